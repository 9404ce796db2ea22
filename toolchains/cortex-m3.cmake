# SPDX-License-Identifier: Apache-2.0
# Cortex-M3 (ARMv7-M, soft float), run on QEMU's mps2-an385.
set(TINYLDP_CPU_FLAGS "-mcpu=cortex-m3 -mthumb -mfloat-abi=soft")
set(TINYLDP_TARGET cortex-m3)  # the preset's name: which budgets and checks apply (tests, benchmarks)
set(TINYLDP_QEMU_MACHINE mps2-an385)
set(TINYLDP_BOARD mps2)
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
