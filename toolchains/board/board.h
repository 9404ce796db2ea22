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
#ifdef __cplusplus
}
#endif
#endif
