// SPDX-License-Identifier: Apache-2.0
// The harness runner: main() for every core test binary, host and target alike.
#include "check.hpp"

#include "board.h"

namespace tinyldp::test {
namespace {
// Test-only mutable state: the list of tests and the running test's failure count.
Registration* first_test = nullptr;
Registration* last_test = nullptr;
int current_failures = 0;
const char* current_name = "";

size_t length_of(const char* text) {
  size_t n = 0;
  while (text[n] != '\0') ++n;
  return n;
}
}  // namespace

Registration::Registration(const char* test_name, void (*test_body)())
    : name(test_name), body(test_body), next(nullptr) {
  if (last_test == nullptr)
    first_test = this;
  else
    last_test->next = this;
  last_test = this;
}

void print(const char* text) { tinyldp_board_write(text, length_of(text)); }
void write(const char* text, size_t length) { tinyldp_board_write(text, length); }

void print_u64(uint64_t value) {
  char digits[21];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  char out[21];
  for (int i = 0; i < n; ++i) out[i] = digits[n - 1 - i];
  tinyldp_board_write(out, static_cast<size_t>(n));
}

void print_i64(int64_t value) {
  if (value < 0) {
    print("-");
    print_u64(static_cast<uint64_t>(-(value + 1)) + 1);
  } else {
    print_u64(static_cast<uint64_t>(value));
  }
}

void print_hex(uint64_t value) {
  char out[18] = {'0', 'x'};
  for (int i = 0; i < 16; ++i)
    out[2 + i] = "0123456789abcdef"[(value >> (60 - 4 * i)) & 0xF];
  tinyldp_board_write(out, sizeof out);
}

void fail(const char* file, int line, const char* expression) {
  ++current_failures;
  print("FAIL ");
  print(current_name);
  print(" at ");
  print(file);
  print(":");
  print_u64(static_cast<uint64_t>(line));
  print(": ");
  print(expression);
  print("\n");
}

int failures_in_current_test() { return current_failures; }

}  // namespace tinyldp::test

namespace {
bool same_text(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

// Runs every registered test, or only the one named `only` (a ctest entry per test: see
// tinyldp_add_test's SPLIT). A name that matches no test fails, so a renamed test cannot pass
// by running nothing.
int run_tests(const char* only) {
  using namespace tinyldp::test;
  uint64_t passed = 0;
  uint64_t failed = 0;
  for (Registration* t = first_test; t != nullptr; t = t->next) {
    if (only != nullptr && !same_text(only, t->name)) continue;
    current_failures = 0;
    current_name = t->name;
    t->body();
    if (current_failures == 0) {
      ++passed;
    } else {
      ++failed;
    }
  }
  if (only != nullptr && passed + failed == 0) {
    print("no test named ");
    print(only);
    print("\n");
    ++failed;
  }
  print_u64(passed);
  print(" passed, ");
  print_u64(failed);
  print(" failed\n");
  return failed == 0 ? 0 : 1;
}
}  // namespace

// usage: <test binary> [test name]. On an emulated MCU the arguments come from semihosting
// (toolchains/qemu-run passes them on); hosted programs (the host, Linux under qemu-user) have argv.
#if defined(TINYLDP_TEST_SEMIHOSTING)
int main() {
  static char line[160];
  if (tinyldp_board_command_line(line, sizeof line) != 0) {
    tinyldp::test::print("cannot read the command line\n");
    return 1;
  }
  // line = "program [test name]": the second word, if any.
  char* p = line;
  while (*p != '\0' && *p != ' ') ++p;
  while (*p == ' ') ++p;
  char* end = p;
  while (*end != '\0' && *end != ' ') ++end;
  *end = '\0';
  return run_tests(*p != '\0' ? p : nullptr);
}
#else
int main(int argc, char** argv) { return run_tests(argc > 1 ? argv[1] : nullptr); }
#endif
