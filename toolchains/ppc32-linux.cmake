# SPDX-License-Identifier: Apache-2.0
# 32-bit PowerPC Linux (big-endian, no unaligned-access feature macro: the word-aligned branch of
# the unary-encoding ladder runs here, in the other byte order), run under qemu-ppc.
set(CMAKE_SYSTEM_PROCESSOR powerpc)
set(TINYLDP_TRIPLE powerpc-linux-gnu)
set(TINYLDP_QEMU_USER qemu-ppc)
set(TINYLDP_TARGET ppc32-linux)  # the preset's name: which budgets and checks apply
include(${CMAKE_CURRENT_LIST_DIR}/linux-qemu-user.cmake)
