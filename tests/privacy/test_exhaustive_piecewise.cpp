// SPDX-License-Identifier: Apache-2.0
// Exhaustive privacy verification of the Piecewise Mechanism: every value of a small range,
// every rounding draw and every cell draw, against the realized ε; plus a planted mutant.
// Runs ignore the mechanism's Status: every value enumerated is in the domain and the counting
// source never fails (statuses are checked in tests/core/test_piecewise.cpp).
#include "check.hpp"
#include "exhaustive.hpp"
#include "tinyldp/piecewise.hpp"

namespace tinyldp::test {
namespace {

uint32_t counts[6 * 12];
constexpr int32_t lo = -2, hi = 3;  // W = 5 over S − 1 steps: the rounding is inexact

TEST(piecewise_is_exactly_as_private_as_it_claims) {
  // M ∈ {8, 12} cells at 8-bit cell draws and 3-bit rounding: 2^11 strings per value.
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 2), Epsilon::from_ratio(1, 1), Epsilon::from_ratio(2, 1),
                              Epsilon::from_ratio(4, 1)};
  const uint32_t cell_counts[] = {8, 12};
  // The default tolerance, and coarse ones where m takes bits one at a time (piecewise.hpp).
  const uint64_t tolerances[] = {uint64_t{1} << 11, uint64_t{1} << 26, uint64_t{1} << 29};
  int verified = 0;
  for (uint32_t cells : cell_counts) {
    for (Epsilon eps : epsilons) {
      for (uint64_t tolerance : tolerances) {
        PiecewiseMechanism pm;
        const Status s = PiecewiseMechanism::configure(eps, lo, hi, cells, pm, Precision{8, tolerance}, 3);
        if (s == Status::precision_too_low) continue;
        CHECK_EQ(s, Status::ok);
        if (s != Status::ok) continue;
        const auto v = verify_exhaustively(6, cells, pm.realized_epsilon(), counts, [&](uint32_t x, CountingRng& rng) {
          uint32_t y = 0;
          static_cast<void>(pm.privatize(lo + static_cast<int32_t>(x), rng, y));
          return y;
        });
        // Tight: lo and hi start the band deterministically at the two ends, so h/m is attained.
        expect_private_and_tight(v, pm.realized_epsilon());
        CHECK_EQ(v.random_bits, pm.random_bits_per_report());
        ++verified;
      }
    }
  }
  CHECK_GE(verified, 18);
}

TEST(cell_zero_extra_keeps_the_bound) {
  // m = 7/2^8 over 12 cells with a band of 4: h = ⌊(256 − 56)/4⌋ = 50, R = 0; m = 9/2^8: h = 46,
  // R = 0; m = 11/2^8 with a band of 3: h = ⌊(256 − 99)/3⌋ = 52, R = 1 (cell 0 gets it).
  const Dyadic ms[] = {{7, 8}, {9, 8}, {11, 8}};
  const uint32_t bands[] = {4, 4, 3};
  for (int i = 0; i < 3; ++i) {
    PiecewiseMechanism pm;
    CHECK_EQ(PiecewiseMechanism::from_outside_probability(lo, hi, 12, bands[i], ms[i], pm, 3), Status::ok);
    const auto v = verify_exhaustively(6, 12, pm.realized_epsilon(), counts, [&](uint32_t x, CountingRng& rng) {
      uint32_t y = 0;
      static_cast<void>(pm.privatize(lo + static_cast<int32_t>(x), rng, y));
      return y;
    });
    expect_private_and_tight(v, pm.realized_epsilon());
  }
}

TEST(catches_a_cell_moved_for_one_value) {
  // The bug: hi's top cell is reported as cell 0, so cell 7 never follows hi while it follows
  // every other value with probability ≥ m: an unbounded ratio.
  PiecewiseMechanism pm;
  CHECK_EQ(PiecewiseMechanism::configure(Epsilon::from_ratio(1, 1), lo, hi, 8, pm, Precision{8, 1u << 11}, 3),
           Status::ok);
  const auto v = verify_exhaustively(6, 8, pm.realized_epsilon(), counts, [&](uint32_t x, CountingRng& rng) {
    uint32_t y = 0;
    static_cast<void>(pm.privatize(lo + static_cast<int32_t>(x), rng, y));
    if (x == 5 && y == 7) y = 0;
    return y;
  });
  CHECK(!v.within_claim);
}

}  // namespace
}  // namespace tinyldp::test
