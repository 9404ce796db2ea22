# SPDX-License-Identifier: Apache-2.0
# Cortex-M4F (ARMv7E-M, single-precision FPU, hard-float ABI), run on QEMU's mps2-an386.
# The reset code enables the FPU (CPACR) before any C++ runs.
set(TINYLDP_CPU_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(TINYLDP_TARGET cortex-m4f)  # the preset's name: which budgets and checks apply (tests, benchmarks)
set(TINYLDP_QEMU_MACHINE mps2-an386)
set(TINYLDP_BOARD mps2)
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
