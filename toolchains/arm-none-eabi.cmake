# SPDX-License-Identifier: Apache-2.0
# Shared part of the Arm Cortex-M toolchain files. A core file sets TINYLDP_CPU_FLAGS,
# TINYLDP_QEMU_MACHINE and TINYLDP_BOARD, then includes this file.
set(CMAKE_SYSTEM_PROCESSOR arm)
set(TINYLDP_TOOLCHAIN_PREFIX arm-none-eabi-)
# newlib-nano supplies only mem*.
set(TINYLDP_RUNTIME_LIBRARIES "-lc_nano -lgcc")
set(TINYLDP_QEMU_SYSTEM qemu-system-arm)
include(${CMAKE_CURRENT_LIST_DIR}/bare-metal.cmake)
