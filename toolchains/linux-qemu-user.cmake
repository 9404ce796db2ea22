# SPDX-License-Identifier: Apache-2.0
# Shared part of the Linux toolchain files (aarch64-linux.cmake, ppc32-linux.cmake): Debian's
# cross compilers, programs linked statically and run under QEMU's user mode. The including
# file sets:
#   CMAKE_SYSTEM_PROCESSOR
#   TINYLDP_TRIPLE        the GNU triple, e.g. aarch64-linux-gnu (compilers /usr/bin/<triple>-g++,
#                         sysroot /usr/<triple>)
#   TINYLDP_QEMU_USER     qemu-<arch>
#   TINYLDP_TARGET        the preset's name
# Hosted (glibc, libstdc++): the core is still held to the freestanding flags through
# tinyldp_core_flags; the test programs use the host board (stdout, argv).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${TINYLDP_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${TINYLDP_TRIPLE}-g++)
# Static: one file per program, no dynamic loader under QEMU (-L still names the sysroot for any
# dynamically linked program a consumer builds).
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_CROSSCOMPILING_EMULATOR "${TINYLDP_QEMU_USER};-L;/usr/${TINYLDP_TRIPLE}")
# Libraries and headers only from the target's sysroot: the host's x86-64 libraries (GoogleTest,
# OpenSSL, …) are not the target's, and what is missing there is skipped by name at configure time.
# (Packages: both, so that a consumer finds an installed tinyldp outside the sysroot.)
set(CMAKE_FIND_ROOT_PATH /usr/${TINYLDP_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
