// SPDX-License-Identifier: Apache-2.0
// Exhaustive privacy verification of stochastic discretization + k-RR: every value of a small
// range, every rounding draw and every k-RR string; plus the exact rounding probabilities and a
// planted mutant.
// Runs ignore the mechanism's Status: every value enumerated is in the domain and the counting
// source never fails, so each run returns ok (statuses, fail-closed reports included, are
// checked in tests/core/).
#include "check.hpp"
#include "exhaustive.hpp"
#include "tinyldp/stochastic_discretization.hpp"

namespace tinyldp::test {
namespace {

uint32_t counts[8 * 8];
constexpr int32_t lo = -2, hi = 3;  // W = 5: not a power of two, so rounding is inexact
const Epsilon epsilons[] = {Epsilon::from_ratio(1, 100), Epsilon::from_ratio(1, 2),
                            Epsilon::from_ratio(1, 1), Epsilon::from_ratio(4, 1)};
const uint32_t level_counts[] = {2, 3, 4};

TEST(discretization_is_exactly_as_private_as_it_claims) {
  int verified = 0;
  for (uint32_t levels : level_counts) {
    for (Epsilon eps : epsilons) {
      StochasticDiscretization sd;
      const Status s = StochasticDiscretization::configure(eps, lo, hi, levels, sd, Precision{8, 1u << 11}, 4);
      if (s == Status::precision_too_low) continue;
      CHECK_EQ(s, Status::ok);
      if (s != Status::ok) continue;
      const auto v = verify_exhaustively(6, levels, sd.realized_epsilon(), counts,
                                         [&](uint32_t x, CountingRng& rng) {
                                           uint32_t y = 0;
                                           static_cast<void>(sd.privatize(lo + static_cast<int32_t>(x), rng, y));
                                           return y;
                                         });
      // Tight: the end points round deterministically, so p/q is attained.
      expect_private_and_tight(v, sd.realized_epsilon());
      CHECK_EQ(v.random_bits, sd.random_bits_per_report());
      ++verified;
    }
  }
  CHECK_GE(verified, 8);  // 12 configurations less those too coarse at 8 bits
}

TEST(tiny_and_large_epsilon_are_verified) {
  // ε = 0.01 needs 12 bits (at 8, p = q and configuration refuses); ε = 8 makes q a single unit.
  const Epsilon extremes[] = {Epsilon::from_ratio(1, 100), Epsilon::from_ratio(8, 1)};
  const uint32_t few_levels[] = {2, 3};
  for (Epsilon eps : extremes) {
    for (uint32_t levels : few_levels) {
      StochasticDiscretization sd;
      CHECK_EQ(StochasticDiscretization::configure(eps, lo, hi, levels, sd, Precision{12, 1u << 11}, 4), Status::ok);
      CHECK(sd.realized_epsilon().q32 > 0 && sd.realized_epsilon() <= eps);
      const auto v = verify_exhaustively(6, levels, sd.realized_epsilon(), counts, [&](uint32_t x, CountingRng& rng) {
        uint32_t y = 0;
        static_cast<void>(sd.privatize(lo + static_cast<int32_t>(x), rng, y));
        return y;
      });
      expect_private_and_tight(v, sd.realized_epsilon());
      CHECK_EQ(v.random_bits, sd.random_bits_per_report());
    }
  }
}

TEST(rounding_probabilities_are_the_stated_ones) {
  // Up-probability ⌊r·2^B/W⌋/2^B with r = t mod W, for every value, B = 4 and 8.
  const unsigned bits[] = {4, 8};
  for (unsigned b : bits) {
    for (uint32_t levels : level_counts) {
      StochasticDiscretization sd;
      CHECK_EQ(StochasticDiscretization::configure(Epsilon::from_ratio(1, 1), lo, hi, levels, sd, {}, b),
               Status::ok);
      const uint64_t width = hi - lo;
      for (int32_t v = lo; v <= hi; ++v) {
        const uint64_t t = static_cast<uint64_t>(v - lo) * (levels - 1);
        const uint64_t floor_level = t / width, r = t % width;
        uint64_t up = 0, other = 0;
        for (uint64_t u = 0; u < (uint64_t{1} << b); ++u) {
          const uint32_t level = sd.round(v, u);
          up += level == floor_level + 1;
          other += level != floor_level && level != floor_level + 1;
        }
        CHECK_EQ(other, 0u);
        CHECK_EQ(up, r * (uint64_t{1} << b) / width);
      }
    }
  }
}

TEST(catches_discretization_that_skips_the_randomizer_at_the_ends) {
  StochasticDiscretization sd;
  CHECK_EQ(StochasticDiscretization::configure(Epsilon::from_ratio(1, 1), lo, hi, 3, sd, Precision{8, 1u << 11}, 4),
           Status::ok);
  const auto v = verify_exhaustively(6, 3, sd.realized_epsilon(), counts, [&](uint32_t x, CountingRng& rng) {
    uint32_t y = 0;
    static_cast<void>(sd.privatize(lo + static_cast<int32_t>(x), rng, y));
    if (x == 0) y = 0;  // the bug: the lowest value is reported as is
    return y;
  });
  CHECK(!v.within_claim);
}

}  // namespace
}  // namespace tinyldp::test
