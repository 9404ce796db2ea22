// SPDX-License-Identifier: Apache-2.0
// TestMemoKey, a memo key for tests (memo.hpp): the memo stream of (attribute word, value) is the
// insecure test source seeded from (seed, attribute word, value, generation) — deterministic
// per value like the real PRF (port/entropy/chacha20_drbg/…/memo_key.hpp), and cheap. Every
// bit of the attribute word (the mechanism's wire id in its top byte, memo.hpp) changes the
// stream. Freestanding: core tests, target tests and the collector's GoogleTest tests share it.
#ifndef TINYLDP_TESTS_SUPPORT_TEST_MEMO_KEY_HPP
#define TINYLDP_TESTS_SUPPORT_TEST_MEMO_KEY_HPP

#include <stdint.h>

#include "tinyldp/endian.hpp"
#include "tinyldp/memo.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"

namespace tinyldp::test {

struct TestMemoStream {
  port::InsecureTestSource source;
  uint32_t next_word() {
    uint8_t b[4];
    (void)source.fill(b, 4, 0);
    return get_le<uint32_t>(b);
  }
};
using TestMemoDraws = MemoDraws<TestMemoStream>;
// The same, counting the bits handed out (a report's memo consumption).
class CountedMemoDraws {
 public:
  explicit CountedMemoDraws(TestMemoStream& stream) : draws_(stream) {}
  uint64_t draw(unsigned n) {
    bits_ += n;
    return draws_.draw(n);
  }
  uint64_t bits_drawn() const { return bits_; }

 private:
  TestMemoDraws draws_;
  uint64_t bits_ = 0;
};

struct TestMemoKey {
  uint64_t seed = 1;
  uint32_t gen = 0;
  bool is_provisioned = true;  // false: the state of a key whose record could not be read
  TestMemoStream memo_stream(uint32_t attribute, uint32_t value) const {
    return {port::InsecureTestSource(seed * 0x9E3779B97F4A7C15u + uint64_t{attribute} * 0xD6E8FEB86659FD93u +
                                     (uint64_t{gen} << 32) + value + 1)};
  }
  uint32_t cohort(uint32_t cohorts) const { return static_cast<uint32_t>(seed % cohorts); }
  uint32_t generation() const { return gen; }
  bool provisioned() const { return is_provisioned; }
  // The privacy ledger's keyed tag of a value (memo_key.hpp's memo_value_tag): here the first two
  // words of the value's stream — keyed by seed and generation, like the real one.
  uint64_t memo_value_tag(uint32_t attribute, uint32_t value) const {
    TestMemoStream s = memo_stream(attribute, value);
    const uint64_t high = s.next_word();
    return high << 32 | s.next_word();
  }
};
static_assert(MemoKey<TestMemoKey>);

}  // namespace tinyldp::test

#endif
