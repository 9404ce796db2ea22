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
#ifdef __cplusplus
}
#endif
#endif
