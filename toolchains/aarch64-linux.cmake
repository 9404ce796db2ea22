# SPDX-License-Identifier: Apache-2.0
# AArch64 Linux (64-bit, little-endian: the gateway class), run under qemu-aarch64.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(TINYLDP_TRIPLE aarch64-linux-gnu)
set(TINYLDP_QEMU_USER qemu-aarch64)
set(TINYLDP_TARGET aarch64-linux)  # the preset's name: which budgets and checks apply
include(${CMAKE_CURRENT_LIST_DIR}/linux-qemu-user.cmake)
