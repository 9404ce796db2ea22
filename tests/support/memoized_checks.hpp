// SPDX-License-Identifier: Apache-2.0
// What the tests of the memoized mechanisms (longitudinal_grr.hpp, loloha.hpp,
// one_bit_mean.hpp) share.
//
// The memo key tests use: test_memo_key.hpp.
#ifndef TINYLDP_TESTS_SUPPORT_MEMOIZED_CHECKS_HPP
#define TINYLDP_TESTS_SUPPORT_MEMOIZED_CHECKS_HPP

#include <stdint.h>

#include "check.hpp"
#include "mechanism_checks.hpp"
#include "test_memo_key.hpp"
#include "tinyldp/longitudinal_grr.hpp"

namespace tinyldp::test {

// check_fail_closed for a memoized mechanism (under TestMemoKey{}): each out-of-domain value
// gives value_out_of_domain and a zero report; then, from a source that fails on its first
// call, in_domain gives entropy_failed and a zero report.
template <class M, size_t N>
void check_memoized_fail_closed(const M& m, uint32_t in_domain, const uint32_t (&out_of_domain)[N]) {
  const TestMemoKey key{};
  port::InsecureTestSource src(5);
  Rng rng(src);
  ReportOf<M> report;
  for (uint32_t v : out_of_domain) {
    poison(report);
    CHECK_EQ(m.privatize(v, key, rng, report), Status::value_out_of_domain);
    CHECK(is_zero(report));
  }
  port::InsecureTestSource failing(6);
  failing.fail_on_call(1);
  Rng broken(failing);
  poison(report);
  CHECK_EQ(m.privatize(in_domain, key, broken, report), Status::entropy_failed);
  CHECK(is_zero(report));
}

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
