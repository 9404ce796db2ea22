// SPDX-License-Identifier: Apache-2.0
// What the tests of the memoized mechanisms (longitudinal_grr.hpp, loloha.hpp,
// bit_flip_mean.hpp) share.
//
// TestMemoKey, a memo key for core tests (memo.hpp): the memo stream of (attribute, value) is the insecure
// test source seeded from (seed, attribute, value, generation) — deterministic per value like
// the real PRF (port/entropy/chacha20_drbg/…/memo_key.hpp), and cheap.
#ifndef TINYLDP_TESTS_SUPPORT_MEMOIZED_CHECKS_HPP
#define TINYLDP_TESTS_SUPPORT_MEMOIZED_CHECKS_HPP

#include <stdint.h>

#include "check.hpp"
#include "tinyldp/endian.hpp"
#include "tinyldp/longitudinal_grr.hpp"
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
  TestMemoStream memo_stream(uint32_t attribute, uint32_t value) const {
    return {port::InsecureTestSource(seed * 0x9E3779B97F4A7C15u + (uint64_t{attribute} << 40) +
                                     (uint64_t{gen} << 32) + value + 1)};
  }
  uint32_t cohort(uint32_t cohorts) const { return static_cast<uint32_t>(seed % cohorts); }
  uint32_t generation() const { return gen; }
};
static_assert(MemoKey<TestMemoKey>);

// A configuration integer below 2^128 as a double.
inline double wide_to_double(const detail::Wide& w) {
  double r = 0;
  for (int i = 3; i >= 0; --i) r = r * 4294967296.0 + w.limb[i];
  return r;
}

// The chain's composed channel p* = P(y = x), q* = P(y = z ≠ x) as doubles.
inline void composed_channel(const GrrChain& c, double& p_star, double& q_star) {
  detail::Wide same, other, all;
  c.composed(same, other, all);
  p_star = wide_to_double(same) / wide_to_double(all);
  q_star = wide_to_double(other) / wide_to_double(all);
}

// A chain configured at (inf, one) over [g] with the default precision: stage 1 is KaryRr at
// ε∞ with at most 32 bits (one memo word per draw; the same integers, the same realized ε),
// ε₁ is met from below within the tolerance.
inline void check_chain_meets(const GrrChain& c, uint32_t g, Epsilon inf, Epsilon one) {
  KaryRr first;
  CHECK_EQ(KaryRr::configure(inf, g, first, Precision{32, Precision{}.tolerance_q32}), Status::ok);
  CHECK(c.memo_stage().other_probability() == first.other_probability());
  CHECK_EQ(c.epsilon_infinity().q32, first.realized_epsilon().q32);
  CHECK(c.epsilon_one() <= one);
  CHECK(Epsilon::from_q32(one.q32 - Precision{}.tolerance_q32) <= c.epsilon_one());
}

}  // namespace tinyldp::test

#endif
