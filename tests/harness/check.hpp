// SPDX-License-Identifier: Apache-2.0
// tinyldp's test harness: the same tests on the host and on emulated MCUs.
//
// Freestanding (no heap, no exceptions, no <cstdio>): output goes through the board contract
// (stdout on the host, semihosting on targets). A test binary runs every registered TEST,
// prints one line per failed check, then a final line "N passed, N failed" (counting tests)
// and exits non-zero if any test failed.
#ifndef TINYLDP_TESTS_HARNESS_CHECK_HPP
#define TINYLDP_TESTS_HARNESS_CHECK_HPP

#include <stddef.h>
#include <stdint.h>

namespace tinyldp::test {

struct Registration {
  Registration(const char* name, void (*body)());
  const char* name;
  void (*body)();
  Registration* next;
};

void print(const char* text);
// Writes length bytes of text (the output function the conformance suites take).
void write(const char* text, size_t length);
void print_u64(uint64_t value);
void print_i64(int64_t value);
void print_hex(uint64_t value);
// Records a failed check of the running test; prints the location and expression.
void fail(const char* file, int line, const char* expression);
// The running test's failure count, for tests that stop early once something has failed.
int failures_in_current_test();

// Prints an integer, bool or enum (as its underlying value).
template <class T>
void print_value(T value) {
  if constexpr (__is_enum(T)) {
    print_value(static_cast<__underlying_type(T)>(value));
  } else if constexpr (static_cast<T>(-1) < static_cast<T>(0)) {
    print_i64(static_cast<int64_t>(value));
  } else {
    print_u64(static_cast<uint64_t>(value));
  }
}

}  // namespace tinyldp::test

#define TINYLDP_TEST_CONCAT2(a, b) a##b
#define TINYLDP_TEST_CONCAT(a, b) TINYLDP_TEST_CONCAT2(a, b)

#define TEST(name)                                                                          \
  static void TINYLDP_TEST_CONCAT(test_, name)();                                           \
  static ::tinyldp::test::Registration TINYLDP_TEST_CONCAT(registration_, name){           \
      #name, &TINYLDP_TEST_CONCAT(test_, name)};                                            \
  static void TINYLDP_TEST_CONCAT(test_, name)()

#define CHECK(condition)                                                   \
  do {                                                                     \
    if (!(condition)) ::tinyldp::test::fail(__FILE__, __LINE__, #condition); \
  } while (0)

// Compares two integers (or enums) and prints both values on failure.
#define CHECK_OP(a, op, b)                                                    \
  do {                                                                        \
    const auto tinyldp_a_ = (a);                                              \
    const auto tinyldp_b_ = (b);                                              \
    if (!(tinyldp_a_ op tinyldp_b_)) {                                        \
      ::tinyldp::test::fail(__FILE__, __LINE__, #a " " #op " " #b);           \
      ::tinyldp::test::print("    left:  ");                                  \
      ::tinyldp::test::print_value(tinyldp_a_);      \
      ::tinyldp::test::print("\n    right: ");                                \
      ::tinyldp::test::print_value(tinyldp_b_);      \
      ::tinyldp::test::print("\n");                                           \
    }                                                                         \
  } while (0)
#define CHECK_EQ(a, b) CHECK_OP(a, ==, b)
#define CHECK_NE(a, b) CHECK_OP(a, !=, b)
#define CHECK_LT(a, b) CHECK_OP(a, <, b)
#define CHECK_LE(a, b) CHECK_OP(a, <=, b)
#define CHECK_GE(a, b) CHECK_OP(a, >=, b)
#define CHECK_GT(a, b) CHECK_OP(a, >, b)

#endif
