// SPDX-License-Identifier: Apache-2.0
// Exhaustive privacy verification of memoized two-stage randomized response (two_stage_rr.hpp)
// on small configurations, with the memo's PRF replaced by enumeration of its outputs: every
// input, every memo string and every fresh string, the exact distribution of
//  - one report, against ε₁ (must hold and be tight);
//  - the memo itself (IRR = identity), against ε∞ (must hold and be tight);
//  - two reports of one value sharing their memo, against ε∞ (must hold) — and, planted, the
//    same two reports with the memo re-drawn for each (memoization off), which must break ε∞;
//  - Bloom encodings (k = 4, h = 2) in one cohort, against h times the per-bit losses.
#include "check.hpp"
#include "exhaustive.hpp"
#include "tinyldp/two_stage_rr.hpp"

namespace tinyldp::test {
namespace {

uint32_t counts[8 * 256];
constexpr Dyadic half{1, 1}, quarter{1, 2}, three_quarters{3, 2};

// One report: its k ≤ 8 bits are the output index.
uint32_t one_report(const TwoStageRr& m, uint32_t v, CountingRng& rng, uint32_t cohort = 0) {
  uint8_t report[1] = {0};
  static_cast<void>(m.privatize_with_memo(v, cohort, rng, rng, report, sizeof report));
  return report[0];
}

// Two reports of v (k bits each) as one output index: memo shared, or (planted) re-drawn.
uint32_t two_reports(const TwoStageRr& m, uint32_t v, CountingRng& rng, bool memoized) {
  uint8_t first[1] = {0}, second[1] = {0};
  MemoRecorder memo{rng};
  static_cast<void>(m.privatize_with_memo(v, 0, memo, rng, first, 1));
  if (memoized) {
    MemoReplayer replay{memo};
    static_cast<void>(m.privatize_with_memo(v, 0, replay, rng, second, 1));
  } else {
    static_cast<void>(m.privatize_with_memo(v, 0, rng, rng, second, 1));
  }
  return first[0] | (uint32_t{second[0]} << m.bits());
}

// The same PRR with the identity as IRR: a report is the memo.
TwoStageRr memo_only(const TwoStageRr& m) {
  TwoStageRr r;
  CHECK(TwoStageRr::configure(m.p1(), m.q1(), Dyadic{1, 0}, Dyadic{0, 0}, m.encoding(), r) == Status::ok);
  return r;
}

void check_one_report_and_memo(const TwoStageRr& m) {
  const uint32_t k = m.bits();
  const auto one = verify_exhaustively(k, 1u << k, m.epsilon_one(), counts,
                                       [&](uint32_t v, CountingRng& rng) { return one_report(m, v, rng); });
  expect_private_and_tight(one, m.epsilon_one());
  CHECK_EQ(one.random_bits, m.memo_bits_per_report() + m.random_bits_per_report());
  const TwoStageRr prr = memo_only(m);
  const auto memo = verify_exhaustively(k, 1u << k, m.epsilon_infinity(), counts,
                                        [&](uint32_t v, CountingRng& rng) { return one_report(prr, v, rng); });
  expect_private_and_tight(memo, m.epsilon_infinity());
}

TEST(rappor_one_report_is_epsilon_one_and_the_memo_epsilon_infinity) {
  TwoStageRr m;
  CHECK(TwoStageRr::configure_rappor(half, half, three_quarters, TwoStageRr::one_hot(3), m) == Status::ok);
  check_one_report_and_memo(m);
}

TEST(ue_chains_are_exactly_as_private_as_they_claim) {
  // Coarse precision keeps the strings enumerable: k = 3 bits, at most 3 + 3 bits per lane.
  const uint32_t k = 3;
  const Precision coarse{3, uint64_t{1} << 31};
  const UeStage stages[] = {UeStage::sue, UeStage::oue};
  int verified = 0;
  for (UeStage first : stages) {
    for (UeStage second : stages) {
      TwoStageRr m;
      if (TwoStageRr::configure_chain(first, second, Epsilon::from_ratio(2, 1), Epsilon::from_ratio(1, 1),
                                      TwoStageRr::one_hot(k), m, coarse) != Status::ok)
        continue;
      check_one_report_and_memo(m);
      ++verified;
    }
  }
  CHECK_EQ(verified, 4);
}

TEST(bloom_reports_are_exactly_as_private_as_they_claim) {
  // k = 4, h = 2, one cohort (the positions are public). The claim is h times
  // the per-bit loss; it is met with equality by two values whose positions are disjoint.
  TwoStageRr m;
  CHECK(TwoStageRr::configure_rappor(half, half, three_quarters, TwoStageRr::bloom(4, 2, 1), m) == Status::ok);
  // Inputs: values 0 and 1, and the first pair (a, b) whose positions are all distinct.
  uint32_t inputs[4] = {0, 1, 0, 0};
  bool found = false;
  for (uint32_t a = 0; a < 64 && !found; ++a) {
    for (uint32_t b = a + 1; b < 64 && !found; ++b) {
      const uint32_t p[4] = {TwoStageRr::bloom_position(a, 0, 0, 4), TwoStageRr::bloom_position(a, 0, 1, 4),
                             TwoStageRr::bloom_position(b, 0, 0, 4), TwoStageRr::bloom_position(b, 0, 1, 4)};
      if ((1u << p[0] | 1u << p[1] | 1u << p[2] | 1u << p[3]) == 0xFu) {
        inputs[2] = a, inputs[3] = b;
        found = true;
      }
    }
  }
  CHECK(found);
  const auto one = verify_exhaustively(4, 16, m.epsilon_one(), counts, [&](uint32_t i, CountingRng& rng) {
    return one_report(m, inputs[i], rng);
  });
  expect_private_and_tight(one, m.epsilon_one());
  const TwoStageRr prr = memo_only(m);
  const auto memo = verify_exhaustively(4, 16, m.epsilon_infinity(), counts, [&](uint32_t i, CountingRng& rng) {
    return one_report(prr, inputs[i], rng);
  });
  expect_private_and_tight(memo, m.epsilon_infinity());
}

TEST(reports_of_one_value_stay_within_epsilon_infinity_only_when_memoized) {
  // f = 1/4 (PRR 7/8, 1/8), IRR p2 = 1, q2 = 1/2: ε∞ = 2 ln 7 ≈ 3.89, ε₁ = ln(105/9) ≈ 2.46, so
  // two independent reports (2ε₁ ≈ 4.91) exceed ε∞ while two memoized ones cannot.
  TwoStageRr m;
  CHECK(TwoStageRr::configure_rappor(quarter, half, Dyadic{1, 0}, TwoStageRr::one_hot(2), m) == Status::ok);
  CHECK(m.epsilon_infinity() < Epsilon::from_q32(2 * m.epsilon_one().q32));
  const auto memoized = verify_exhaustively(2, 16, m.epsilon_infinity(), counts,
                                            [&](uint32_t v, CountingRng& rng) { return two_reports(m, v, rng, true); });
  CHECK(memoized.fixed_consumption);
  CHECK(memoized.within_claim);
  const auto planted = verify_exhaustively(2, 16, m.epsilon_infinity(), counts,
                                           [&](uint32_t v, CountingRng& rng) { return two_reports(m, v, rng, false); });
  CHECK(!planted.within_claim);  // the check catches a device that re-draws its memo
}

}  // namespace
}  // namespace tinyldp::test
