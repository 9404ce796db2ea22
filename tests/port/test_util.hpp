// SPDX-License-Identifier: Apache-2.0
// Small helpers shared by the port tests (freestanding: no <cstring>, no heap).
#ifndef TINYLDP_TESTS_PORT_TEST_UTIL_HPP
#define TINYLDP_TESTS_PORT_TEST_UTIL_HPP

#include <stddef.h>
#include <stdint.h>

#include "bytes_equal.hpp"
#include "hex.hpp"

namespace tinyldp::test {

inline uint32_t popcount8(uint8_t b) {
  uint32_t n = 0;
  for (; b != 0; b = static_cast<uint8_t>(b & (b - 1))) ++n;
  return n;
}

}  // namespace tinyldp::test

#endif
