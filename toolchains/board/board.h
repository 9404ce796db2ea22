// SPDX-License-Identifier: Apache-2.0
/* Board support for tinyldp's test and example programs: where text goes and how a program
 * ends. On the host it is stdout and exit(); on an emulated MCU it is semihosting, and the
 * exit code becomes QEMU's exit code (the CTest verdict). Not part of the library. */
#ifndef TINYLDP_BOARD_H
#define TINYLDP_BOARD_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
void tinyldp_board_write(const char* text, size_t length);
__attribute__((noreturn)) void tinyldp_board_exit(int code);
/* Copies the program's command line ("program arg1 arg2 …", NUL-terminated) into buffer:
 * 0 on success, -1 if it cannot be read or does not fit. On an emulated MCU it comes from
 * semihosting (QEMU's -semihosting-config arg=…); on the host it is empty (programs read argv). */
int tinyldp_board_command_line(char* buffer, size_t capacity);
/* Host files, for examples that keep state between runs (the fleet demo's flash images): on an
 * emulated MCU through semihosting, on the host through stdio. read copies up to `length`
 * bytes from `offset` and returns how many it copied (0 for a missing file or an offset past its
 * end), or -1 on an error; write stores `length` bytes at `offset` (creating the file, and
 * extending it, as needed) and returns 0, or -1. */
long tinyldp_board_file_read(const char* path, size_t offset, void* out, size_t length);
int tinyldp_board_file_write(const char* path, size_t offset, const void* data, size_t length);
#ifdef __cplusplus
}
#endif
#endif
