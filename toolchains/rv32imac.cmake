# RV32IMAC, run on QEMU's virt machine with -bios none (reset jumps to 0x80000000).
# Debian's riscv64-unknown-elf GCC is multilib; -march/-mabi select the rv32imac/ilp32 libgcc.
# There is no newlib for this target: the board library provides memcpy/memset/memmove/memcmp.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_CXX_COMPILER riscv64-unknown-elf-g++)
set(CMAKE_ASM_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_OBJCOPY riscv64-unknown-elf-objcopy CACHE FILEPATH "")
set(CMAKE_SIZE riscv64-unknown-elf-size CACHE FILEPATH "")
set(CMAKE_NM riscv64-unknown-elf-nm CACHE FILEPATH "")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(_rv_flags "-march=rv32imac -mabi=ilp32 -mcmodel=medany")
set(CMAKE_C_FLAGS_INIT "${_rv_flags} -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "${_rv_flags} -ffunction-sections -fdata-sections")
set(CMAKE_ASM_FLAGS_INIT "${_rv_flags}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_rv_flags} -nostdlib -nostartfiles -Wl,--gc-sections")
set(CMAKE_CXX_STANDARD_LIBRARIES "-lgcc")
set(CMAKE_C_STANDARD_LIBRARIES "-lgcc")

set(TINYLDP_BOARD virt-rv32 CACHE STRING "board support used for target executables")
set(CMAKE_CROSSCOMPILING_EMULATOR
    "${CMAKE_CURRENT_LIST_DIR}/qemu-run;qemu-system-riscv32;virt")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
