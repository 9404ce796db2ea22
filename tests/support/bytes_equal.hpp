// SPDX-License-Identifier: Apache-2.0
// Byte-for-byte comparison for tests (freestanding: no <cstring>).
#ifndef TINYLDP_TESTS_SUPPORT_BYTES_EQUAL_HPP
#define TINYLDP_TESTS_SUPPORT_BYTES_EQUAL_HPP

#include <stddef.h>
#include <stdint.h>

namespace tinyldp::test {

inline bool bytes_equal(const uint8_t* a, const uint8_t* b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

}  // namespace tinyldp::test

#endif
