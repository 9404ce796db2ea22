// SPDX-License-Identifier: Apache-2.0
// A memo key for core tests (memo.hpp): the memo stream of (attribute, value) is the insecure
// test source seeded from (seed, attribute, value, generation) — deterministic per value like
// the real PRF (port/entropy/chacha20_drbg/…/memo_key.hpp), and cheap. fail_memo_on = n > 0
// makes every memo stream fail on its n-th call (a broken key must never produce a report).
#ifndef TINYLDP_TESTS_SUPPORT_TEST_MEMO_KEY_HPP
#define TINYLDP_TESTS_SUPPORT_TEST_MEMO_KEY_HPP

#include <stdint.h>

#include "tinyldp/memo.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"

namespace tinyldp::test {

struct TestMemoKey {
  uint64_t seed = 1;
  uint32_t gen = 0;
  uint64_t fail_memo_on = 0;
  port::InsecureTestSource memo_stream(uint32_t attribute, uint32_t value) const {
    port::InsecureTestSource s(seed * 0x9E3779B97F4A7C15u + (uint64_t{attribute} << 40) +
                               (uint64_t{gen} << 32) + value + 1);
    if (fail_memo_on != 0) s.fail_on_call(fail_memo_on);
    return s;
  }
  uint32_t cohort(uint32_t cohorts) const { return static_cast<uint32_t>(seed % cohorts); }
  uint32_t generation() const { return gen; }
};
static_assert(MemoKey<TestMemoKey>);

}  // namespace tinyldp::test

#endif
