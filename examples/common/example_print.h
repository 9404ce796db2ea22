/* SPDX-License-Identifier: Apache-2.0 */
/* Text output for the C example programs, through the board (stdout on the host, semihosting on
 * the QEMU boards): no printf, so they link no stdio on the targets. Not part of tinyldp. */
#ifndef TINYLDP_EXAMPLES_COMMON_EXAMPLE_PRINT_H
#define TINYLDP_EXAMPLES_COMMON_EXAMPLE_PRINT_H

#include <stddef.h>
#include <stdint.h>

#include "board.h"

static inline void example_print(const char* text) {
  size_t n = 0;
  while (text[n] != '\0') ++n;
  tinyldp_board_write(text, n);
}

/* v in decimal. */
static inline void example_print_uint(uint32_t v) {
  char out[10];
  size_t n = sizeof out;
  do {
    out[--n] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  tinyldp_board_write(out + n, sizeof out - n);
}

#endif
