// SPDX-License-Identifier: Apache-2.0
// Semihosting for Arm (BKPT 0xAB) and RISC-V (the slli/ebreak/srai sequence): text through
// SYS_WRITE0, the command line through SYS_GET_CMDLINE, the verdict through SYS_EXIT_EXTENDED,
// whose code QEMU returns as its own.
#include "board.h"
#include <stdint.h>

namespace {
constexpr uintptr_t sys_write0 = 0x04;
constexpr uintptr_t sys_get_cmdline = 0x15;
constexpr uintptr_t sys_exit_extended = 0x20;
constexpr uintptr_t adp_stopped_application_exit = 0x20026;

uintptr_t semihost_call(uintptr_t op, const void* arg) {
#if defined(__arm__)
  register uintptr_t r0 asm("r0") = op;
  register const void* r1 asm("r1") = arg;
  asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
#elif defined(__riscv)
  register uintptr_t a0 asm("a0") = op;
  register const void* a1 asm("a1") = arg;
  asm volatile(
      ".option push\n.option norvc\n.balign 16\n"
      "slli x0, x0, 0x1f\nebreak\nsrai x0, x0, 7\n.option pop\n"
      : "+r"(a0)
      : "r"(a1)
      : "memory");
  return a0;
#else
#error "semihosting.cpp supports Arm and RISC-V targets only"
#endif
}
}  // namespace

extern "C" void tinyldp_board_write(const char* text, size_t length) {
  char chunk[65];
  while (length > 0) {
    size_t n = length < 64 ? length : 64;
    for (size_t i = 0; i < n; ++i) chunk[i] = text[i];
    chunk[n] = '\0';
    semihost_call(sys_write0, chunk);
    text += n;
    length -= n;
  }
}

extern "C" int tinyldp_board_command_line(char* buffer, size_t capacity) {
  if (capacity == 0) return -1;
  buffer[0] = '\0';
  // The debugger fills the buffer and writes back the length; a line that does not fit fails.
  uintptr_t block[2] = {reinterpret_cast<uintptr_t>(buffer), capacity};
  if (semihost_call(sys_get_cmdline, block) != 0 || block[1] >= capacity) {
    buffer[0] = '\0';
    return -1;
  }
  buffer[block[1]] = '\0';
  return 0;
}

extern "C" void tinyldp_board_exit(int code) {
  const uintptr_t block[2] = {adp_stopped_application_exit, static_cast<uintptr_t>(code)};
  for (;;) semihost_call(sys_exit_extended, block);
}
