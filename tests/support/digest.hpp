// SPDX-License-Identifier: Apache-2.0
// FNV-1a over report bytes: a compact fingerprint for golden-vector tests. The same seed must
// give the same fingerprint on the host and on every target.
#ifndef TINYLDP_TESTS_SUPPORT_DIGEST_HPP
#define TINYLDP_TESTS_SUPPORT_DIGEST_HPP

#include <stddef.h>
#include <stdint.h>

namespace tinyldp::test {

struct Digest {
  uint64_t state = 0xcbf29ce484222325ull;
  void add(const uint8_t* bytes, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      state ^= bytes[i];
      state *= 0x100000001b3ull;
    }
  }
  void add_u32(uint32_t v) {
    const uint8_t b[4] = {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8),
                          static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 24)};
    add(b, 4);
  }
};

}  // namespace tinyldp::test

#endif
