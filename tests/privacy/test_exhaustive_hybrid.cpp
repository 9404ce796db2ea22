// SPDX-License-Identifier: Apache-2.0
// Exhaustive privacy verification of the Hybrid Mechanism: every value of a small range and
// every draw (α's, PM's rounding and cell, Duchi's rounding and RR), against the realized ε —
// the larger branch's, or Duchi's alone when α = 0; plus a planted mutant whose branch depends on
// the value. Runs ignore the mechanism's Status: every value enumerated is in the domain and the
// counting source never fails (statuses are checked in tests/core/test_hybrid.cpp).
#include "check.hpp"
#include "exhaustive.hpp"
#include "tinyldp/hybrid.hpp"

namespace tinyldp::test {
namespace {

uint32_t counts[5 * 10];
constexpr int32_t lo = 0, hi = 4;  // 5 values; PM: M = 8 cells, a band of 3 (S = 6 starts)

// PM with the outside probability m/2^6 (h follows: m = 3 gives h = 16, ε = ln(16/3) = 1.67;
// m = 5 gives h = 13, ε = ln(13/5) = 0.96); Duchi at ε with 3-bit probabilities (ε = 1:
// q = 3/8, ln(5/3) = 0.51; ε = 2: q = 1/8, ln 7 = 1.95); 2-bit rounding for both.
HybridMechanism hybrid(uint64_t m, Epsilon duchi_eps, Dyadic alpha) {
  PiecewiseMechanism pm;
  StochasticDiscretization duchi;
  HybridMechanism hm;
  CHECK_EQ(PiecewiseMechanism::from_outside_probability(lo, hi, 8, 3, Dyadic{m, 6}, pm, 2), Status::ok);
  CHECK_EQ(StochasticDiscretization::configure(duchi_eps, lo, hi, 2, duchi, Precision{3, uint64_t{1} << 31}, 2),
           Status::ok);
  CHECK_EQ(HybridMechanism::from_parts(pm, duchi, alpha, hm), Status::ok);
  return hm;
}

template <class Mutate>
ExhaustiveVerdict enumerate(const HybridMechanism& hm, Mutate mutate) {
  return verify_exhaustively(5, 10, hm.realized_epsilon(), counts, [&](uint32_t x, CountingRng& rng) {
    uint32_t y = 0;
    static_cast<void>(hm.privatize(lo + static_cast<int32_t>(x), rng, y));
    return mutate(x, y);
  });
}
constexpr auto unchanged = [](uint32_t, uint32_t y) { return y; };

TEST(hybrid_is_exactly_as_private_as_its_larger_branch) {
  // PM the larger (1.67 against 0.51), then Duchi (1.95 against 0.96); α = 1/4 and 3/4.
  const Dyadic alphas[] = {{1, 2}, {3, 2}};
  for (Dyadic alpha : alphas) {
    const HybridMechanism pm_larger = hybrid(3, Epsilon::from_ratio(1, 1), alpha);
    CHECK(pm_larger.realized_epsilon() == pm_larger.piecewise().realized_epsilon());
    CHECK(pm_larger.duchi().realized_epsilon() < pm_larger.realized_epsilon());
    const auto a = enumerate(pm_larger, unchanged);
    expect_private_and_tight(a, pm_larger.realized_epsilon());
    CHECK_EQ(a.random_bits, pm_larger.random_bits_per_report());
    const HybridMechanism duchi_larger = hybrid(5, Epsilon::from_ratio(2, 1), alpha);
    CHECK(duchi_larger.realized_epsilon() == duchi_larger.duchi().realized_epsilon());
    CHECK(duchi_larger.piecewise().realized_epsilon() < duchi_larger.realized_epsilon());
    expect_private_and_tight(enumerate(duchi_larger, unchanged), duchi_larger.realized_epsilon());
  }
}

TEST(without_the_pm_branch_only_duchi_counts) {
  // α = 0: PM's larger ratio never reaches an output, and the claim (Duchi's) is tight.
  const HybridMechanism hm = hybrid(3, Epsilon::from_ratio(1, 1), Dyadic{});
  CHECK(hm.realized_epsilon() == hm.duchi().realized_epsilon());
  expect_private_and_tight(enumerate(hm, unchanged), hm.realized_epsilon());
}

TEST(catches_a_branch_chosen_by_the_value) {
  // The bug: the top value always takes the PM branch (its Duchi outputs become cell 0), so
  // outputs 8 and 9 never follow it while they follow every other value: an unbounded ratio.
  const HybridMechanism hm = hybrid(3, Epsilon::from_ratio(1, 1), Dyadic{1, 2});
  CHECK(!enumerate(hm, [](uint32_t x, uint32_t y) { return x == 4 && y >= 8 ? 0u : y; }).within_claim);
}

}  // namespace
}  // namespace tinyldp::test
