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
