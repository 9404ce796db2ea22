// SPDX-License-Identifier: Apache-2.0
// A caller's buffer between guard bytes, for the fail-closed tests: a refused report must zero
// the buffer it was given and write nothing past it. Filled with 0xA5 first, so that "all zero"
// is something the refusal did. Also: zero_bytes, a context as a C caller who never
// initialised it leaves it (freestanding: no <cstring>).
#ifndef TINYLDP_TESTS_SUPPORT_GUARDED_BUFFER_HPP
#define TINYLDP_TESTS_SUPPORT_GUARDED_BUFFER_HPP

#include <stddef.h>
#include <stdint.h>

namespace tinyldp::test {

template <size_t Size, size_t After = 64>
struct Guarded {
  static constexpr uint8_t fill = 0xA5;
  uint8_t before[16];
  uint8_t buffer[Size];
  uint8_t after[After];
  Guarded() {
    for (uint8_t& b : before) b = fill;
    for (uint8_t& b : buffer) b = fill;
    for (uint8_t& b : after) b = fill;
  }
  bool zero() const {
    for (uint8_t b : buffer)
      if (b != 0) return false;
    return true;
  }
  bool guards_intact() const {
    for (uint8_t b : before)
      if (b != fill) return false;
    for (uint8_t b : after)
      if (b != fill) return false;
    return true;
  }
};

template <class T>
void zero_bytes(T& object) {
  __builtin_memset(static_cast<void*>(&object), 0, sizeof object);
}

}  // namespace tinyldp::test

#endif
