// SPDX-License-Identifier: Apache-2.0
// Host side of the board contract: stdout and exit().
#include "board.h"
#include <cstdio>
#include <cstdlib>

extern "C" void tinyldp_board_write(const char* text, size_t length) {
  std::fwrite(text, 1, length, stdout);
}
extern "C" void tinyldp_board_exit(int code) {
  std::fflush(stdout);
  std::exit(code);
}

extern "C" int tinyldp_board_command_line(char* buffer, size_t capacity) {
  if (capacity == 0) return -1;
  buffer[0] = '\0';  // host programs take argv from main()
  return 0;
}
