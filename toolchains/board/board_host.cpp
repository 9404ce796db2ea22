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

extern "C" long tinyldp_board_file_read(const char* path, size_t offset, void* out, size_t length) {
  std::FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return 0;
  long got = 0;
  if (std::fseek(f, static_cast<long>(offset), SEEK_SET) == 0) got = static_cast<long>(std::fread(out, 1, length, f));
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  return failed ? -1 : got;
}

extern "C" int tinyldp_board_file_write(const char* path, size_t offset, const void* data, size_t length) {
  std::FILE* f = std::fopen(path, "r+b");
  if (f == nullptr) f = std::fopen(path, "w+b");
  if (f == nullptr) return -1;
  const bool ok = std::fseek(f, static_cast<long>(offset), SEEK_SET) == 0 &&
                  std::fwrite(data, 1, length, f) == length;
  return std::fclose(f) == 0 && ok ? 0 : -1;
}
