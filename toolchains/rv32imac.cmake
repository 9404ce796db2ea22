# SPDX-License-Identifier: Apache-2.0
# RV32IMAC, run on QEMU's virt machine with -bios none (reset jumps to 0x80000000).
# Debian's riscv64-unknown-elf GCC is multilib; -march/-mabi select the rv32imac/ilp32 libgcc.
# There is no newlib for this target: the board library provides memcpy/memset/memmove/memcmp.
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(TINYLDP_TOOLCHAIN_PREFIX riscv64-unknown-elf-)
set(TINYLDP_CPU_FLAGS "-march=rv32imac -mabi=ilp32 -mcmodel=medany")
set(TINYLDP_RUNTIME_LIBRARIES "-lgcc")
set(TINYLDP_QEMU_SYSTEM qemu-system-riscv32)
set(TINYLDP_TARGET rv32imac)  # the preset's name: which budgets and checks apply (tests, benchmarks)
set(TINYLDP_QEMU_MACHINE virt)
set(TINYLDP_BOARD virt-rv32)
include(${CMAKE_CURRENT_LIST_DIR}/bare-metal.cmake)
