// SPDX-License-Identifier: Apache-2.0
// Hex strings in tests (freestanding: no <cstring>, no heap): known answers written as the RFCs
// and reference implementations print them.
#ifndef TINYLDP_TESTS_SUPPORT_HEX_HPP
#define TINYLDP_TESTS_SUPPORT_HEX_HPP

#include <stddef.h>
#include <stdint.h>

namespace tinyldp::test {

constexpr uint8_t hex_nibble(char c) {
  return static_cast<uint8_t>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
}

// Parses 2*n hex digits into out[0..n).
inline void from_hex(const char* hex, uint8_t* out, size_t n) {
  for (size_t i = 0; i < n; ++i)
    out[i] = static_cast<uint8_t>(hex_nibble(hex[2 * i]) << 4 | hex_nibble(hex[2 * i + 1]));
}

// True when a[0..n) equals the bytes the hex string spells.
inline bool equals_hex(const uint8_t* a, const char* hex, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const uint8_t b = static_cast<uint8_t>(hex_nibble(hex[2 * i]) << 4 | hex_nibble(hex[2 * i + 1]));
    if (a[i] != b) return false;
  }
  return true;
}

}  // namespace tinyldp::test

#endif
