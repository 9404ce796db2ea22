# SPDX-License-Identifier: Apache-2.0
# A bare-metal core tinyldp has no preset, board code or budgets for (Cortex-M33, ARMv8-M
# Mainline): tests/platforms configures and builds tinyldp's libraries with it.
set(TINYLDP_CPU_FLAGS "-mcpu=cortex-m33 -mthumb -mfloat-abi=soft")
set(TINYLDP_QEMU_MACHINE none)
set(TINYLDP_BOARD none)
include(${CMAKE_CURRENT_LIST_DIR}/../../toolchains/arm-none-eabi.cmake)
