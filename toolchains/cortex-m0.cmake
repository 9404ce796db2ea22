# SPDX-License-Identifier: Apache-2.0
# Cortex-M0 (ARMv6-M, soft float), run on QEMU's micro:bit (nRF51822: 256 KiB flash, 16 KiB RAM).
set(TINYLDP_CPU_FLAGS "-mcpu=cortex-m0 -mthumb -mfloat-abi=soft")
set(TINYLDP_TARGET cortex-m0)  # the preset's name: which budgets and checks apply (tests, benchmarks)
set(TINYLDP_QEMU_MACHINE microbit)
set(TINYLDP_BOARD microbit)
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
