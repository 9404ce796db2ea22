// SPDX-License-Identifier: Apache-2.0
// Exhaustive privacy verification of Square Wave as configured: every value of a small range,
// every rounding draw and every cell draw, against the realized ε (the grid is PM's, verified in
// test_exhaustive_piecewise.cpp; this covers SW's configure: its window, buckets and m), tight;
// plus a planted mutant. Runs ignore the mechanism's Status (every value is in the domain and
// the counting source never fails; statuses: tests/core/test_square_wave.cpp).
#include "check.hpp"
#include "exhaustive.hpp"
#include "tinyldp/square_wave.hpp"

namespace tinyldp::test {
namespace {

uint32_t counts[7 * 16];
constexpr int32_t lo = -3, hi = 3;  // 7 values over D − 1 bucket steps: the rounding is inexact for D = 5

ExhaustiveVerdict enumerate(const SquareWave& sw, uint32_t mutate_value) {
  return verify_exhaustively(7, sw.cells(), sw.realized_epsilon(), counts, [&](uint32_t x, CountingRng& rng) {
    uint32_t y = 0;
    static_cast<void>(sw.privatize(lo + static_cast<int32_t>(x), rng, y));
    if (x == mutate_value && y == sw.cells() - 1) y = 0;  // the planted bug: one cell never follows x
    return y;
  });
}

TEST(square_wave_is_exactly_as_private_as_it_claims) {
  // D ∈ {4, 5, 7} at ε ∈ {0.5, 1, 2} (B = 1 … 3 by the paper's b), 8-bit cells, 3-bit rounding.
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 2), Epsilon::from_ratio(1, 1), Epsilon::from_ratio(2, 1)};
  const uint32_t bucket_counts[] = {4, 5, 7};
  int verified = 0;
  for (uint32_t d : bucket_counts) {
    for (Epsilon eps : epsilons) {
      SquareWave sw;
      const Status s = SquareWave::configure(eps, lo, hi, d, sw, Precision{8, 1u << 28}, 3);
      if (s == Status::precision_too_low) continue;
      CHECK_EQ(s, Status::ok);
      if (s != Status::ok || sw.cells() > 16) continue;
      const ExhaustiveVerdict v = enumerate(sw, 99);
      expect_private_and_tight(v, sw.realized_epsilon());
      CHECK_EQ(v.random_bits, sw.random_bits_per_report());
      ++verified;
    }
  }
  CHECK_GE(verified, 7);
}

TEST(catches_a_cell_that_never_follows_one_value) {
  SquareWave sw;
  CHECK_EQ(SquareWave::configure(Epsilon::from_ratio(1, 1), lo, hi, 5, sw, Precision{8, 1u << 28}, 3), Status::ok);
  CHECK(!enumerate(sw, 3).within_claim);
}

}  // namespace
}  // namespace tinyldp::test
