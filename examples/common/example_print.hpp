// SPDX-License-Identifier: Apache-2.0
// Text output for the example programs, through the board (stdout on the host, semihosting on
// the QEMU boards): no printf, so the examples link no stdio on the targets. Not part of tinyldp.
#ifndef TINYLDP_EXAMPLES_COMMON_EXAMPLE_PRINT_HPP
#define TINYLDP_EXAMPLES_COMMON_EXAMPLE_PRINT_HPP

#include <stddef.h>
#include <stdint.h>

#include "board.h"

namespace example {

inline void print(const char* s) {
  size_t n = 0;
  while (s[n] != '\0') ++n;
  tinyldp_board_write(s, n);
}

// v in decimal, right-aligned in min_width characters.
inline void print_uint(uint64_t v, int min_width = 1) {
  char buf[24];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n < min_width) buf[n++] = ' ';
  char out[24];
  for (int i = 0; i < n; ++i) out[i] = buf[n - 1 - i];
  tinyldp_board_write(out, static_cast<size_t>(n));
}

// " xx" for each byte, in hex.
inline void print_hex_bytes(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const char hex[4] = {' ', "0123456789abcdef"[p[i] >> 4], "0123456789abcdef"[p[i] & 15], 0};
    print(hex);
  }
}

}  // namespace example

#endif
