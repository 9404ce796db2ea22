// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/test/conformance.hpp — what the entropy and storage conformance suites
// (entropy_conformance.hpp, storage_conformance.hpp) share: counting violations and writing
// them through the caller's output function, and a buffer with sentinels around the bytes
// handed to the code under test. Header-only and freestanding (tinyldp::port_conformance): a
// port's own test program includes the suites and calls them from its main(); nothing here
// defines main, needs a board or prints by itself.
#ifndef TINYLDP_PORT_TEST_CONFORMANCE_HPP
#define TINYLDP_PORT_TEST_CONFORMANCE_HPP

#include <stddef.h>
#include <stdint.h>

namespace tinyldp::conformance {

// Where a suite writes its violations, one line each (e.g. a UART or semihosting writer);
// null: nothing is written, the violations are only counted.
using Output = void (*)(const char* text, size_t length);

// A suite's output and the name of what it checks.
struct Channel {
  Output output;
  const char* name;
};

inline void write(Output out, const char* text) {
  size_t n = 0;
  while (text[n] != '\0') ++n;
  out(text, n);
}

inline void write_u64(Output out, uint64_t v) {
  char digits[20];
  size_t n = sizeof digits;
  do {
    digits[--n] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  out(digits + n, sizeof digits - n);
}

constexpr uint8_t sentinel = 0xA5;
constexpr size_t guard = 4;

// Counts a violation and, unless the channel is null (a quiet run), writes
// "  <suite>: <name>: <what> (<detail><n>)".
inline void report(uint32_t& violations, const char* suite, const Channel* channel,
                   const char* what, const char* detail, size_t n) {
  ++violations;
  if (channel == nullptr || channel->output == nullptr) return;  // quiet
  const Output out = channel->output;
  write(out, "  ");
  write(out, suite);
  write(out, ": ");
  write(out, channel->name);
  write(out, ": ");
  write(out, what);
  write(out, " (");
  write(out, detail);
  write_u64(out, n);
  write(out, ")\n");
}

inline bool bytes_equal(const uint8_t* a, const uint8_t* b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// Up to MaxLength bytes handed out at an odd offset (no alignment assumed), with `guard`
// sentinels on each side.
template <size_t MaxLength>
struct GuardedBuffer {
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

}  // namespace tinyldp::conformance

#endif
