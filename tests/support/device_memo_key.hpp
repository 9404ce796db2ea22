// SPDX-License-Identifier: Apache-2.0
// A device's real memo key (ChaCha20, port/entropy/chacha20_drbg/…/memo_key.hpp) for tests of a
// fleet: every device its own secret — the bytes i·stride + offset with the device number in the
// first four — so that devices never share memos and their reports stay independent. Tests
// pick their own (stride, offset) so that their fleets differ.
#ifndef TINYLDP_TESTS_SUPPORT_DEVICE_MEMO_KEY_HPP
#define TINYLDP_TESTS_SUPPORT_DEVICE_MEMO_KEY_HPP

#include <stdint.h>

#include "tinyldp/endian.hpp"
#include "tinyldp/port/memo/memo_key.hpp"

namespace tinyldp::test {

inline port::MemoKey device_memo_key(uint32_t device, uint32_t stride, uint32_t offset) {
  uint8_t secret[32];
  for (uint32_t i = 0; i < 32; ++i) secret[i] = static_cast<uint8_t>(i * stride + offset);
  put_le(secret, device);
  port::MemoKey key;
  key.set(secret, 0);
  return key;
}

}  // namespace tinyldp::test

#endif
