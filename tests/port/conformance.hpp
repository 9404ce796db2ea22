// SPDX-License-Identifier: Apache-2.0
// What the entropy and storage conformance suites (entropy_conformance.hpp,
// storage_conformance.hpp) share: counting and printing violations, and a buffer with sentinels
// around the bytes handed to the code under test.
#ifndef TINYLDP_TESTS_PORT_CONFORMANCE_HPP
#define TINYLDP_TESTS_PORT_CONFORMANCE_HPP

#include <stddef.h>
#include <stdint.h>

#include "check.hpp"

namespace tinyldp::test::conformance {

constexpr uint8_t sentinel = 0xA5;
constexpr size_t guard = 4;

// Counts a violation and, unless name is null (a quiet run), prints
// "  <suite>: <name>: <what> (<detail><n>)".
inline void report(uint32_t& violations, const char* suite, const char* name, const char* what,
                   const char* detail, size_t n) {
  ++violations;
  if (name == nullptr) return;  // quiet
  print("  ");
  print(suite);
  print(": ");
  print(name);
  print(": ");
  print(what);
  print(" (");
  print(detail);
  print_u64(n);
  print(")\n");
}

// Up to MaxLength bytes handed out at an odd offset (no alignment assumed), with `guard`
// sentinels on each side.
template <size_t MaxLength>
struct Guarded {
  uint8_t bytes[MaxLength + 2 * guard + 1];
  size_t n;
  void prepare(size_t length, uint8_t prefill) {
    n = length;
    for (uint8_t& b : bytes) b = sentinel;
    for (size_t i = 0; i < n; ++i) bytes[guard + 1 + i] = prefill;
  }
  uint8_t* out() { return bytes + guard + 1; }
  const uint8_t* out() const { return bytes + guard + 1; }
  bool guards_intact() const {
    for (size_t i = 0; i < guard + 1; ++i)
      if (bytes[i] != sentinel) return false;
    for (size_t i = guard + 1 + n; i < sizeof bytes; ++i)
      if (bytes[i] != sentinel) return false;
    return true;
  }
  size_t count(uint8_t v) const {
    size_t c = 0;
    for (size_t i = 0; i < n; ++i) c += out()[i] == v ? size_t{1} : size_t{0};
    return c;
  }
  bool all(uint8_t v) const { return count(v) == n; }
};

}  // namespace tinyldp::test::conformance

#endif
