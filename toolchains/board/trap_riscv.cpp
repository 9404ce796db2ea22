// SPDX-License-Identifier: Apache-2.0
// Any RISC-V trap (illegal instruction, misaligned or faulting access) ends the test with exit
// code 3, so a crash can never look like a pass.
#include "board.h"

extern "C" void rv_trap_handler() {
  static const char message[] = "fatal: trap\n";
  tinyldp_board_write(message, sizeof message - 1);
  tinyldp_board_exit(3);
}
