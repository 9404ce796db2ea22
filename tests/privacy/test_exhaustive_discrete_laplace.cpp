// SPDX-License-Identifier: Apache-2.0
// Exhaustive privacy verification of the discrete Laplace mechanism: every value of small
// ranges, every random string, the exact output distribution against the integer weights; both
// claims (Δ-neighbours and the whole range) must hold and be tight; and planted mutants.
// Runs ignore the mechanism's Status: every value enumerated is in the domain and the counting
// source never fails, so each run returns ok (statuses, fail-closed reports included, are
// checked in tests/core/).
#include "check.hpp"
#include "exhaustive.hpp"
#include "tinyldp/discrete_laplace.hpp"

namespace tinyldp::test {
namespace {

using W = detail::Wide;

#if defined(TINYLDP_TEST_ON_TARGET)
// One reduced precision keeps the run to a few seconds on the Cortex-M0.
constexpr unsigned fine_bits = 11;
constexpr unsigned closeness_shift = 6;  // realized ε within 2^-6 ε of the request
const unsigned precisions[] = {fine_bits};
constexpr int expected_verified = 42;  // every configuration: none is too coarse
#else
constexpr unsigned fine_bits = 16;
constexpr unsigned closeness_shift = 10;
const unsigned precisions[] = {10, fine_bits};
constexpr int expected_verified = 84;  // every configuration: none is too coarse
#endif
uint32_t counts[6 * 6];
uint64_t table[6];
const Epsilon epsilons[] = {Epsilon::from_ratio(1, 100), Epsilon::from_ratio(1, 2), Epsilon::from_ratio(1, 1),
                            Epsilon::from_ratio(2, 1),   Epsilon::from_ratio(4, 1), Epsilon::from_ratio(8, 1)};

// Pr[y | v] · 2^B from the weights: interior |y − v|, end points the folded sums.
uint64_t expected_count(const DiscreteLaplace& m, uint32_t v, uint32_t y, uint32_t width) {
  if (y > 0 && y < width) return m.weight(y > v ? y - v : v - y);
  uint64_t c = y == 0 ? m.tail_low() : m.tail_high();
  const uint32_t nearest = y == 0 ? v : width - v;  // |z| of the closest noise reaching the end
  for (uint32_t k = nearest; k < width; ++k) c += m.weight(k);
  return c;
}

// ε (rounded up) of the largest ratio in `counts` between inputs at distance ≤ reach.
Epsilon observed_within(uint32_t reach, uint32_t width) {
  W worst_num = W::from(1), worst_den = W::from(1);
  const uint32_t n = width + 1;
  for (uint32_t a = 0; a < n; ++a)
    for (uint32_t b = 0; b < n; ++b) {
      if ((a > b ? a - b : b - a) > reach) continue;
      for (uint32_t y = 0; y < n; ++y) {
        const W x = W::from(counts[a * n + y]), z = W::from(counts[b * n + y]);
        if (z.is_zero()) return Epsilon{~uint64_t{0}};
        if (x * worst_den > worst_num * z) {
          worst_num = x;
          worst_den = z;
        }
      }
    }
  Epsilon e{};
  if (!ln_upper_bound(worst_num, worst_den, e)) return Epsilon{~uint64_t{0}};
  return e;
}

ExhaustiveVerdict run_all(const DiscreteLaplace& dl, uint32_t width, Epsilon claim) {
  return verify_exhaustively(width + 1, width + 1, claim, counts, [&](uint32_t x, CountingRng& rng) {
    int32_t y = 0;
    static_cast<void>(dl.privatize(static_cast<int32_t>(x), rng, y));
    return static_cast<uint32_t>(y);
  });
}

TEST(discrete_laplace_is_exactly_as_private_as_it_claims) {
  int verified = 0, tiny = 0;
  for (unsigned bits : precisions) {
    for (uint32_t width = 1; width <= 4; ++width) {
      for (Epsilon eps : epsilons) {
        for (uint32_t delta = 1; delta <= width; delta += width - 1 > 0 ? width - 1 : 1) {
          DiscreteLaplace dl;
          const Status s =
              DiscreteLaplace::configure(eps, 0, static_cast<int32_t>(width), delta, table, 6, dl, bits);
          if (s == Status::precision_too_low) continue;
          CHECK_EQ(s, Status::ok);
          if (s != Status::ok) continue;
          CHECK(dl.realized_epsilon() <= eps);
          CHECK(dl.realized_epsilon() <= dl.local_epsilon());
          // The whole range: the LDP claim holds, and is the largest ratio met.
          const auto v = run_all(dl, width, dl.local_epsilon());
          expect_private_and_tight(v, dl.local_epsilon());
          CHECK_EQ(v.random_bits, bits);
          for (uint32_t x = 0; x <= width; ++x)
            for (uint32_t y = 0; y <= width; ++y)
              CHECK_EQ(uint64_t{counts[x * (width + 1) + y]}, expected_count(dl, x, y, width));
          // Inputs at distance ≤ Δ: exactly the realized ε.
          CHECK_EQ(observed_within(delta, width).q32, dl.realized_epsilon().q32);
          if (eps.q32 < (uint64_t{1} << 32) / 50) ++tiny;
          ++verified;
        }
      }
    }
  }
  CHECK_EQ(verified, expected_verified);
  CHECK_GE(tiny, 6);
}

TEST(realized_epsilon_is_close_to_the_request_when_precision_allows) {
  // At the fine precision the Δ-ratio is within a small margin of e^ε: the ceiling rounding of
  // the weights costs about 1/w_{W−1} per step, so the margin shrinks as 2^-B.
  for (uint32_t width = 2; width <= 4; ++width) {
    for (uint32_t delta = 1; delta <= width; ++delta) {
      DiscreteLaplace dl;
      const Epsilon eps = Epsilon::from_ratio(1, 1);
      CHECK_EQ(DiscreteLaplace::configure(eps, 0, static_cast<int32_t>(width), delta, table, 6, dl, fine_bits),
               Status::ok);
      CHECK(dl.realized_epsilon() <= eps);
      CHECK_GE(dl.realized_epsilon().q32, eps.q32 - (eps.q32 >> closeness_shift));
    }
  }
}

// --- Planted mutants ---

TEST(catches_discrete_laplace_that_skips_the_noise_at_the_top) {
  DiscreteLaplace dl;
  CHECK_EQ(DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), 0, 3, 3, table, 6, dl, 10), Status::ok);
  const auto v = verify_exhaustively(4, 4, dl.local_epsilon(), counts, [&](uint32_t x, CountingRng& rng) {
    int32_t y = 0;
    static_cast<void>(dl.privatize(static_cast<int32_t>(x), rng, y));
    if (x == 3) y = 3;  // the bug: the largest value is reported without noise
    return static_cast<uint32_t>(y);
  });
  CHECK(!v.within_claim);
}

TEST(catches_a_centre_weight_one_unit_too_large) {
  // The bug: w_0 one unit above what the realized ε was computed from (the top tail loses it).
  const uint32_t widths[] = {1, 2, 4};
  for (uint32_t width : widths) {
    DiscreteLaplace dl;
    CHECK_EQ(DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), 0, static_cast<int32_t>(width), width, table, 6,
                                        dl, 10),
             Status::ok);
    const Epsilon claim = dl.local_epsilon();
    CHECK(run_all(dl, width, claim).within_claim);  // the real mechanism passes…
    table[0] += 1;
    CHECK(!run_all(dl, width, claim).within_claim);  // …the mutant does not
  }
}

}  // namespace
}  // namespace tinyldp::test
