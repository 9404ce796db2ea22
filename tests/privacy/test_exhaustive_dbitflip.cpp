// SPDX-License-Identifier: Apache-2.0
// Exhaustive privacy verification of dBitFlip (dbitflip.hpp) on small configurations, with the
// memo key's streams replaced by enumeration of their outputs. The sample S is public (sent in
// every report) and drawn independently of the value, so the check runs for every S of a small
// layout: given S, every input, every α, every memo string and every fresh string, the exact
// distribution of
//  - one report's d bits, against ε₁;
//  - the memo's d bits, against ε∞;
//  - two reports of one value sharing their memo, against ε∞ (must hold) — and, planted (for
//    one sample), with the memo re-drawn for each, which must break it.
// The claim is c·(one bit's realized ε), c = min(d, 2), each rounded up on the 2^-32 grid, so the
// largest ratio met (rounded up once) is the claim or at most c − 1 grid steps below it.
#include "check.hpp"
#include "exhaustive.hpp"
#include "tinyldp/dbitflip.hpp"

namespace tinyldp::test {
namespace {

uint32_t counts[8 * 256];
const Precision coarse{4, uint64_t{1} << 31};  // at most 4 bits per stage: enumerable on targets
struct Budget {
  Epsilon inf, one;
};
const Budget budgets[] = {{Epsilon::from_ratio(2, 1), Epsilon::from_ratio(1, 1)},
                          {Epsilon::from_ratio(4, 1), Epsilon::from_ratio(3, 1)}};

void expect_private_and_nearly_tight(const ExhaustiveVerdict& v, Epsilon claimed) {
  CHECK(v.fixed_consumption);
  CHECK(v.within_claim);
  CHECK(v.observed <= claimed);
  CHECK(Epsilon::from_q32(claimed.q32 - 1) <= v.observed);
}

// Every 2-subset of k = 3 buckets, ascending.
const uint16_t samples[3][2] = {{0, 1}, {0, 2}, {1, 2}};

DBitFlip::DeviceDraw draw_of(const uint16_t* sample, uint32_t alpha) {
  DBitFlip::DeviceDraw d;
  d.alpha = alpha;
  d.bucket[0] = sample[0];
  d.bucket[1] = sample[1];
  return d;
}

TEST(one_report_is_epsilon_one_and_the_memo_epsilon_infinity_for_every_sample) {
  // m = 4, s = 2: values 0 … 4, k = 3 buckets, α one bit; d = 2: outputs are 2 bits.
  int verified = 0;
  for (const Budget& b : budgets) {
    DBitFlip m;
    const Status s = DBitFlip::configure(b.inf, b.one, DBitFlip::Layout{4, 2, 2, 0}, m, coarse);
    if (s == Status::precision_too_low) continue;
    CHECK_EQ(s, Status::ok);
    for (const auto& sample : samples) {
      const auto one = verify_exhaustively(5, 4, m.epsilon_one(), counts, [&](uint32_t v, CountingRng& rng) {
        const DBitFlip::DeviceDraw d = draw_of(sample, m.rounding().offset(rng));
        DBitFlipReport r;
        static_cast<void>(m.privatize_with_memo(v, d, rng, rng, r));
        return uint32_t{r.bits};
      });
      expect_private_and_nearly_tight(one, m.epsilon_one());
      CHECK_EQ(one.random_bits, 1 + m.memo_bits_per_report() + m.random_bits_per_report());
      const auto memo = verify_exhaustively(5, 4, m.epsilon_infinity(), counts, [&](uint32_t v, CountingRng& rng) {
        const DBitFlip::DeviceDraw d = draw_of(sample, m.rounding().offset(rng));
        const uint32_t slot = m.slot(m.rounding().index(v, d.alpha), d);
        uint32_t bits = 0;
        for (uint32_t t = 0; t < 2; ++t) bits |= m.chain().memoize(t == slot ? 1u : 0u, rng) << t;
        return bits;
      });
      expect_private_and_nearly_tight(memo, m.epsilon_infinity());
    }
    ++verified;
  }
  CHECK_GE(verified, 1);
}

TEST(reports_of_one_value_stay_within_epsilon_infinity_only_when_memoized) {
  // 2ε₁ > ε∞: two independent reports of one value would exceed ε∞. s = 1 (no α), k = 3.
  DBitFlip m;
  // q1 = 1/4, γ = 1/8: ε∞ = 2 ln 3 ≈ 2.20, ε₁ = 2 ln 2.2 ≈ 1.58.
  CHECK_EQ(DBitFlip::configure_stages(Dyadic{1, 2}, Dyadic{1, 3}, DBitFlip::Layout{2, 1, 2, 0}, m),
           Status::ok);
  CHECK(m.epsilon_infinity() < Epsilon::from_q32(2 * m.epsilon_one().q32));
  for (const auto& sample : samples) {
    const DBitFlip::DeviceDraw d = draw_of(sample, 0);
    auto run_two = [&](uint32_t v, CountingRng& rng, bool memoized) {
      MemoRecorder memo{rng};
      DBitFlipReport first, second;
      static_cast<void>(m.privatize_with_memo(v, d, memo, rng, first));
      if (memoized) {
        MemoReplayer replay{memo};
        static_cast<void>(m.privatize_with_memo(v, d, replay, rng, second));
      } else {
        static_cast<void>(m.privatize_with_memo(v, d, rng, rng, second));
      }
      return uint32_t{first.bits} + 4u * second.bits;
    };
    const auto memoized = verify_exhaustively(3, 16, m.epsilon_infinity(), counts,
                                              [&](uint32_t v, CountingRng& rng) { return run_two(v, rng, true); });
    CHECK(memoized.fixed_consumption);
    CHECK(memoized.within_claim);
    if (&sample != &samples[0]) continue;  // the planted check once (2^20 strings: a minute on QEMU otherwise)
    const auto planted = verify_exhaustively(3, 16, m.epsilon_infinity(), counts,
                                             [&](uint32_t v, CountingRng& rng) { return run_two(v, rng, false); });
    CHECK(!planted.within_claim);
  }
}

}  // namespace
}  // namespace tinyldp::test
