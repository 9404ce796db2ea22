# SPDX-License-Identifier: Apache-2.0
# Shared part of the bare-metal toolchain files (arm-none-eabi.cmake, rv32imac.cmake). The
# including file sets:
#   CMAKE_SYSTEM_PROCESSOR
#   TINYLDP_TOOLCHAIN_PREFIX   the GNU tools' prefix, e.g. arm-none-eabi-
#   TINYLDP_CPU_FLAGS          architecture and ABI flags, for compiling and linking
#   TINYLDP_RUNTIME_LIBRARIES  what every executable links after its objects
#   TINYLDP_QEMU_SYSTEM        qemu-system-<arch>, and TINYLDP_QEMU_MACHINE, its -M machine
#   TINYLDP_BOARD              the board support used for target executables (toolchains/board)
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_C_COMPILER ${TINYLDP_TOOLCHAIN_PREFIX}gcc)
set(CMAKE_CXX_COMPILER ${TINYLDP_TOOLCHAIN_PREFIX}g++)
set(CMAKE_ASM_COMPILER ${TINYLDP_TOOLCHAIN_PREFIX}gcc)
set(CMAKE_OBJCOPY ${TINYLDP_TOOLCHAIN_PREFIX}objcopy CACHE FILEPATH "")
set(CMAKE_SIZE ${TINYLDP_TOOLCHAIN_PREFIX}size CACHE FILEPATH "")
set(CMAKE_NM ${TINYLDP_TOOLCHAIN_PREFIX}nm CACHE FILEPATH "")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(CMAKE_C_FLAGS_INIT "${TINYLDP_CPU_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "${TINYLDP_CPU_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_ASM_FLAGS_INIT "${TINYLDP_CPU_FLAGS}")
# No C runtime start files and no libstdc++: the board library brings the vector table and
# reset code; any use of malloc/new fails at link time.
set(CMAKE_EXE_LINKER_FLAGS_INIT "${TINYLDP_CPU_FLAGS} -nostdlib -nostartfiles -Wl,--gc-sections")
set(CMAKE_CXX_STANDARD_LIBRARIES "${TINYLDP_RUNTIME_LIBRARIES}")
set(CMAKE_C_STANDARD_LIBRARIES "${TINYLDP_RUNTIME_LIBRARIES}")

set(TINYLDP_BOARD "${TINYLDP_BOARD}" CACHE STRING "board support used for target executables")
set(CMAKE_CROSSCOMPILING_EMULATOR
    "${CMAKE_CURRENT_LIST_DIR}/qemu-run;${TINYLDP_QEMU_SYSTEM};${TINYLDP_QEMU_MACHINE}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
