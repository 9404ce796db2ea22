// SPDX-License-Identifier: Apache-2.0
// Exhaustive privacy verification of the longitudinal protocols — L-GRR (longitudinal_grr.hpp),
// LOLOHA (loloha.hpp), 1BitMean (one_bit_mean.hpp) — on small configurations, with the memo
// key's streams replaced by enumeration of their outputs: every input, every memo string (and
// every seed or α) and every fresh string, the exact distribution of
//  - one report, against ε₁ (must hold and be tight);
//  - the memo itself, against ε∞ (must hold and be tight);
//  - two reports of one value sharing their memo, against ε∞ (must hold) — and, planted, the
//    same two reports with the memo re-drawn for each (memoization off), which must break ε∞.
// Runs ignore the mechanisms' Status: every value enumerated is in the domain and the counting
// source never fails (statuses and fail-closed reports are checked in tests/core/).
#include "check.hpp"
#include "exhaustive.hpp"
#include "tinyldp/one_bit_mean.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/loloha.hpp"
#include "tinyldp/longitudinal_grr.hpp"

namespace tinyldp::test {
namespace {

uint32_t counts[8 * 256];  // 8 KiB: the micro:bit has 16 KiB of RAM
const Precision coarse{5, uint64_t{1} << 31};  // at most 5 bits per stage: enumerable
struct Budget {
  Epsilon inf, one;
};
const Budget budgets[] = {{Epsilon::from_ratio(2, 1), Epsilon::from_ratio(1, 1)},
                          {Epsilon::from_ratio(1, 1), Epsilon::from_ratio(1, 2)},
                          {Epsilon::from_ratio(4, 1), Epsilon::from_ratio(3, 1)}};
// 2ε₁ > ε∞: two independent reports of one value would exceed ε∞.
const Budget tempting{Epsilon::from_ratio(2, 1), Epsilon::from_ratio(3, 2)};

// Two reports of one value, one output index: memo shared (replayed) or, planted, re-drawn.
template <class Report2>
uint32_t two_reports(CountingRng& rng, bool memoized, uint32_t outputs, Report2 report) {
  MemoRecorder memo{rng};
  const uint32_t first = report(memo);
  uint32_t second;
  if (memoized) {
    MemoReplayer replay{memo};
    second = report(replay);
  } else {
    second = report(rng);
  }
  return first + outputs * second;
}

void expect_memoization_holds_and_planted_breaks(uint32_t inputs, uint32_t outputs, Epsilon inf,
                                                 auto run_two) {
  const auto memoized = verify_exhaustively(inputs, outputs * outputs, inf, counts,
                                            [&](uint32_t v, CountingRng& rng) { return run_two(v, rng, true); });
  CHECK(memoized.fixed_consumption);
  CHECK(memoized.within_claim);
  const auto planted = verify_exhaustively(inputs, outputs * outputs, inf, counts,
                                           [&](uint32_t v, CountingRng& rng) { return run_two(v, rng, false); });
  CHECK(!planted.within_claim);  // the check catches a device that re-draws its memo
}

TEST(l_grr_one_report_is_epsilon_one_and_the_memo_epsilon_infinity) {
  int verified = 0;
  const uint32_t domains[] = {2, 3, 5};
  for (uint32_t k : domains) {
    for (const Budget& b : budgets) {
      LongitudinalGrr m;
      const Status s = LongitudinalGrr::configure(b.inf, b.one, k, m, coarse);
      if (s == Status::precision_too_low) continue;
      CHECK_EQ(s, Status::ok);
      const auto one = verify_exhaustively(k, k, m.epsilon_one(), counts, [&](uint32_t v, CountingRng& rng) {
        uint32_t y = 0;
        static_cast<void>(m.privatize_with_memo(v, rng, rng, y));
        return y;
      });
      expect_private_and_tight(one, m.epsilon_one());
      CHECK_EQ(one.random_bits, m.memo_bits_per_report() + m.random_bits_per_report());
      const auto memo = verify_exhaustively(k, k, m.epsilon_infinity(), counts,
                                            [&](uint32_t v, CountingRng& rng) { return m.chain().memoize(v, rng); });
      expect_private_and_tight(memo, m.epsilon_infinity());
      ++verified;
    }
  }
  CHECK_GE(verified, 7);
}

TEST(l_grr_reports_of_one_value_stay_within_epsilon_infinity_only_when_memoized) {
  LongitudinalGrr m;
  CHECK_EQ(LongitudinalGrr::configure(tempting.inf, tempting.one, 3, m, coarse), Status::ok);
  CHECK(m.epsilon_infinity() < Epsilon::from_q32(2 * m.epsilon_one().q32));
  expect_memoization_holds_and_planted_breaks(3, 3, m.epsilon_infinity(), [&](uint32_t v, CountingRng& rng, bool memoized) {
    return two_reports(rng, memoized, 3, [&](auto& memo) {
      uint32_t y = 0;
      static_cast<void>(m.privatize_with_memo(v, memo, rng, y));
      return y;
    });
  });
}

TEST(loloha_one_report_is_epsilon_one_and_the_memo_epsilon_infinity) {
  // d = 4 values, g = 2 (BiLOLOHA) and 3, 3-bit seeds drawn first: the output is (seed, y).
  int verified = 0;
  const uint32_t ranges[] = {2, 3};
  for (uint32_t g : ranges) {
    for (const Budget& b : budgets) {
      Loloha m;
      const Status s = Loloha::configure(b.inf, b.one, 4, g, m, coarse);
      if (s == Status::precision_too_low) continue;
      CHECK_EQ(s, Status::ok);
      const auto one = verify_exhaustively(4, 8 * g, m.epsilon_one(), counts, [&](uint32_t v, CountingRng& rng) {
        const uint32_t seed = static_cast<uint32_t>(rng.draw(3));
        LocalHashingReport r;
        static_cast<void>(m.privatize_with_memo(v, seed, rng, rng, r));
        return r.seed * g + r.value;
      });
      expect_private_and_tight(one, m.epsilon_one());
      CHECK_EQ(one.random_bits, 3 + m.chain().memo_bits() + m.random_bits_per_report());
      const auto memo = verify_exhaustively(4, 8 * g, m.epsilon_infinity(), counts, [&](uint32_t v, CountingRng& rng) {
        const uint32_t seed = static_cast<uint32_t>(rng.draw(3));
        return seed * g + m.chain().memoize(local_hash(seed, v, g), rng);
      });
      expect_private_and_tight(memo, m.epsilon_infinity());
      ++verified;
    }
  }
  CHECK_GE(verified, 5);
}

TEST(loloha_reports_of_one_value_stay_within_epsilon_infinity_only_when_memoized) {
  Loloha m;
  CHECK_EQ(Loloha::configure(tempting.inf, tempting.one, 4, 3, m, coarse), Status::ok);
  CHECK(m.epsilon_infinity() < Epsilon::from_q32(2 * m.epsilon_one().q32));
  // The seed is per device: drawn once (2 bits here), the same in both reports.
  expect_memoization_holds_and_planted_breaks(4, 3 * 4, m.epsilon_infinity(), [&](uint32_t v, CountingRng& rng, bool memoized) {
    const uint32_t seed = static_cast<uint32_t>(rng.draw(2));
    return two_reports(rng, memoized, 3 * 4, [&](auto& memo) {
      LocalHashingReport r;
      static_cast<void>(m.privatize_with_memo(v, seed, memo, rng, r));
      return r.seed * 3 + r.value;
    });
  });
}

TEST(one_bit_mean_one_report_is_epsilon_one_and_the_memo_epsilon_infinity) {
  // m = 4, s = 2 (α is one bit), J = 2 cells, R = 2 bits: values 0 … 4, output one bit.
  int verified = 0;
  for (const Budget& b : budgets) {
    OneBitMean m;
    const Status s = OneBitMean::configure(b.inf, b.one, OneBitMean::Grid{4, 2, 2}, m, coarse);
    if (s == Status::precision_too_low) continue;
    CHECK_EQ(s, Status::ok);
    const auto one = verify_exhaustively(5, 2, m.epsilon_one(), counts, [&](uint32_t v, CountingRng& rng) {
      const uint32_t alpha = m.rounding_offset(rng);
      uint8_t y = 0;
      static_cast<void>(m.privatize_with_memo(v, alpha, rng, rng, y));
      return uint32_t{y};
    });
    expect_private_and_tight(one, m.epsilon_one());
    CHECK_EQ(one.random_bits, 1 + m.memo_bits_per_report() + m.random_bits_per_report());
    const auto memo = verify_exhaustively(5, 2, m.epsilon_infinity(), counts, [&](uint32_t v, CountingRng& rng) {
      const uint32_t alpha = m.rounding_offset(rng);
      return m.memoize(m.grid_index(v, alpha), rng);
    });
    expect_private_and_tight(memo, m.epsilon_infinity());
    ++verified;
  }
  CHECK_GE(verified, 2);
}

TEST(one_bit_mean_reports_of_one_value_stay_within_epsilon_infinity_only_when_memoized) {
  OneBitMean m;
  CHECK_EQ(OneBitMean::configure(tempting.inf, tempting.one, OneBitMean::Grid{4, 2, 2}, m, coarse), Status::ok);
  CHECK(m.epsilon_infinity() < Epsilon::from_q32(2 * m.epsilon_one().q32));
  // α is per device: drawn once, the same in both reports.
  expect_memoization_holds_and_planted_breaks(5, 2, m.epsilon_infinity(), [&](uint32_t v, CountingRng& rng, bool memoized) {
    const uint32_t alpha = m.rounding_offset(rng);
    return two_reports(rng, memoized, 2, [&](auto& memo) {
      uint8_t y = 0;
      static_cast<void>(m.privatize_with_memo(v, alpha, memo, rng, y));
      return uint32_t{y};
    });
  });
}

}  // namespace
}  // namespace tinyldp::test
