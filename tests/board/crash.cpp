// SPDX-License-Identifier: Apache-2.0
// A program that crashes: it jumps to an address that holds no code. The board's fault handler
// must end it with exit code 3, so a crashing test can never pass nor hang.
#include "board.h"

int main() {
  static const char message[] = "about to fault\n";
  tinyldp_board_write(message, sizeof message - 1);
  using Function = void (*)();
  // An odd address without the Thumb bit pattern Arm expects, and unmapped on RISC-V virt.
  volatile unsigned long nowhere = 0xFFFFFFF0ul;
  reinterpret_cast<Function>(nowhere)();
  return 0;
}
