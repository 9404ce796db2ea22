# Shared part of the Arm Cortex-M toolchain files. A core file sets TINYLDP_CPU_FLAGS,
# TINYLDP_QEMU_MACHINE and TINYLDP_BOARD, then includes this file.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_OBJCOPY arm-none-eabi-objcopy CACHE FILEPATH "")
set(CMAKE_SIZE arm-none-eabi-size CACHE FILEPATH "")
set(CMAKE_NM arm-none-eabi-nm CACHE FILEPATH "")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(CMAKE_C_FLAGS_INIT "${TINYLDP_CPU_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "${TINYLDP_CPU_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_ASM_FLAGS_INIT "${TINYLDP_CPU_FLAGS}")
# No C runtime start files and no libstdc++: the board library brings the vector table and
# reset code; newlib-nano supplies only mem*; any use of malloc/new fails at link time.
set(CMAKE_EXE_LINKER_FLAGS_INIT "${TINYLDP_CPU_FLAGS} -nostdlib -nostartfiles -Wl,--gc-sections")
set(CMAKE_CXX_STANDARD_LIBRARIES "-lc_nano -lgcc")
set(CMAKE_C_STANDARD_LIBRARIES "-lc_nano -lgcc")

set(TINYLDP_BOARD "${TINYLDP_BOARD}" CACHE STRING "board support used for target executables")
set(CMAKE_CROSSCOMPILING_EMULATOR
    "${CMAKE_CURRENT_LIST_DIR}/qemu-run;qemu-system-arm;${TINYLDP_QEMU_MACHINE}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
