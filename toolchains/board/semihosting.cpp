// SPDX-License-Identifier: Apache-2.0
// Semihosting for Arm (BKPT 0xAB) and RISC-V (the slli/ebreak/srai sequence): text through
// SYS_WRITE0, the command line through SYS_GET_CMDLINE, the verdict through SYS_EXIT_EXTENDED,
// whose code QEMU returns as its own.
#include "board.h"
#include <stdint.h>

namespace {
constexpr uintptr_t sys_open = 0x01;
constexpr uintptr_t sys_close = 0x02;
constexpr uintptr_t sys_write = 0x05;
constexpr uintptr_t sys_read = 0x06;
constexpr uintptr_t sys_seek = 0x0A;
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

namespace {
size_t length_of(const char* s) {
  size_t n = 0;
  while (s[n] != '\0') ++n;
  return n;
}
// SYS_OPEN modes (ISO C fopen): 1 "rb", 3 "r+b", 7 "w+b".
intptr_t open_file(const char* path, uintptr_t mode) {
  const uintptr_t block[3] = {reinterpret_cast<uintptr_t>(path), mode, length_of(path)};
  return static_cast<intptr_t>(semihost_call(sys_open, block));
}
void close_file(intptr_t handle) {
  const uintptr_t block[1] = {static_cast<uintptr_t>(handle)};
  semihost_call(sys_close, block);
}
bool seek(intptr_t handle, size_t offset) {
  const uintptr_t block[2] = {static_cast<uintptr_t>(handle), offset};
  return semihost_call(sys_seek, block) == 0;
}
}  // namespace

extern "C" long tinyldp_board_file_read(const char* path, size_t offset, void* out, size_t length) {
  const intptr_t f = open_file(path, 1);
  if (f == -1) return 0;
  long got = -1;
  if (seek(f, offset)) {
    const uintptr_t block[3] = {static_cast<uintptr_t>(f), reinterpret_cast<uintptr_t>(out), length};
    const uintptr_t not_read = semihost_call(sys_read, block);  // bytes NOT read
    if (not_read <= length) got = static_cast<long>(length - not_read);
  } else {
    got = 0;  // past the end
  }
  close_file(f);
  return got;
}

extern "C" int tinyldp_board_file_write(const char* path, size_t offset, const void* data, size_t length) {
  intptr_t f = open_file(path, 3);
  if (f == -1) f = open_file(path, 7);
  if (f == -1) return -1;
  bool ok = seek(f, offset);
  if (ok) {
    const uintptr_t block[3] = {static_cast<uintptr_t>(f), reinterpret_cast<uintptr_t>(data), length};
    ok = semihost_call(sys_write, block) == 0;  // bytes NOT written
  }
  close_file(f);
  return ok ? 0 : -1;
}

extern "C" void tinyldp_board_exit(int code) {
  const uintptr_t block[2] = {adp_stopped_application_exit, static_cast<uintptr_t>(code)};
  for (;;) semihost_call(sys_exit_extended, block);
}
