// SPDX-License-Identifier: Apache-2.0
// The Hybrid Mechanism: configuration (α, the branches, ε*), the realized ε as the larger
// branch's, the exact output law over every draw of a small configuration, the worst-case
// variance against the continuous HM's, failure behaviour, golden reports.
#include "check.hpp"
#include "mechanism_checks.hpp"
#include "no_libm.hpp"
#include "piecewise_moments.hpp"
#include "tinyldp/hybrid.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::test {
namespace {

TEST(configures_and_rejects) {
  constexpr auto hm = HybridMechanism::make(Epsilon::from_double(4.0), -40, 85);
  static_assert(hm.cells() == 2048 && hm.low() == -40 && hm.high() == 85);
  static_assert(hm.description().payload_bits == 12);  // 2050 outputs
  static_assert(hm.random_bits_per_report() == 131);  // the figure hybrid.hpp quotes at ε = 4
  static_assert(hm.piecewise().band_cells() == 244 && hm.duchi().levels() == 2);
  // α = 1 − e^{−2} in 24 bits: e^{−2}·2^24 = 2270549.3, so 2^24 − 2270549.
  static_assert(hm.alpha().bits <= 24);
  CHECK_EQ(hm.alpha().num << (24 - hm.alpha().bits), 14506667u);
  CHECK(hm.realized_epsilon() <= Epsilon::from_double(4.0));
  // At and below ε* no PM branch: α = 0.
  CHECK(HybridMechanism::alpha_for(Epsilon::from_double(0.5)).num == 0);
  CHECK(HybridMechanism::alpha_for(HybridMechanism::mixing_threshold).num == 0);
  CHECK(HybridMechanism::alpha_for(Epsilon{HybridMechanism::mixing_threshold.q32 + 1}).num != 0);
  HybridMechanism x;
  const Epsilon one = Epsilon::from_ratio(1, 1);
  CHECK(HybridMechanism::configure(one, 5, 5, 64, x) == Status::bad_parameter);
  CHECK(HybridMechanism::configure(one, 0, 9, 3, x) == Status::bad_parameter);
  CHECK(HybridMechanism::configure(one, 0, 9, 64, x, {}, 25) == Status::bad_parameter);
  CHECK(HybridMechanism::configure(Epsilon::from_q32(0), 0, 9, 64, x) == Status::bad_epsilon);
  CHECK(!x.configured());
  CHECK(!HybridMechanism{}.configured());
  // The parts must agree: the range, two levels, the rounding bits, α ≤ 1.
  PiecewiseMechanism pm;
  StochasticDiscretization duchi, other_range, three_levels, other_bits;
  CHECK_EQ(PiecewiseMechanism::configure(one, 0, 9, 64, pm), Status::ok);
  CHECK_EQ(StochasticDiscretization::configure(one, 0, 9, 2, duchi), Status::ok);
  CHECK_EQ(StochasticDiscretization::configure(one, 0, 10, 2, other_range), Status::ok);
  CHECK_EQ(StochasticDiscretization::configure(one, 0, 9, 3, three_levels), Status::ok);
  CHECK_EQ(StochasticDiscretization::configure(one, 0, 9, 2, other_bits, {}, 12), Status::ok);
  CHECK(HybridMechanism::from_parts(pm, duchi, Dyadic{1, 1}, x) == Status::ok);
  CHECK(HybridMechanism::from_parts(pm, other_range, Dyadic{1, 1}, x) == Status::bad_parameter);
  CHECK(HybridMechanism::from_parts(pm, three_levels, Dyadic{1, 1}, x) == Status::bad_parameter);
  CHECK(HybridMechanism::from_parts(pm, other_bits, Dyadic{1, 1}, x) == Status::bad_parameter);
  CHECK(HybridMechanism::from_parts(pm, duchi, Dyadic{5, 2}, x) == Status::bad_parameter);
  CHECK(HybridMechanism::from_parts(PiecewiseMechanism{}, duchi, Dyadic{1, 1}, x) == Status::bad_parameter);
}

TEST(realized_epsilon_is_the_larger_branch_that_occurs) {
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 10), Epsilon::from_ratio(1, 2), Epsilon::from_ratio(1, 1),
                              Epsilon::from_ratio(4, 1), Epsilon::from_ratio(8, 1), Epsilon::from_ratio(20, 1)};
  for (Epsilon eps : epsilons) {
    HybridMechanism hm;
    CHECK_EQ(HybridMechanism::configure(eps, -1000, 1000, 2048, hm), Status::ok);
    const Epsilon a = hm.piecewise().realized_epsilon(), b = hm.duchi().realized_epsilon();
    if (hm.alpha().num == 0) {
      CHECK(hm.realized_epsilon() == b);
    } else {
      CHECK(hm.realized_epsilon() == (a < b ? b : a));
    }
    CHECK(hm.realized_epsilon() <= eps);
    CHECK_GE(hm.realized_epsilon().q32 + (uint64_t{1} << 11), eps.q32);
  }
  // α = 1: only the PM branch occurs, so Duchi's ε does not count.
  PiecewiseMechanism pm;
  StochasticDiscretization duchi;
  CHECK_EQ(PiecewiseMechanism::configure(Epsilon::from_ratio(1, 1), 0, 9, 64, pm), Status::ok);
  CHECK_EQ(StochasticDiscretization::configure(Epsilon::from_ratio(3, 1), 0, 9, 2, duchi), Status::ok);
  HybridMechanism hm;
  CHECK_EQ(HybridMechanism::from_parts(pm, duchi, Dyadic{1, 0}, hm), Status::ok);
  CHECK(hm.realized_epsilon() == pm.realized_epsilon());
  CHECK_EQ(HybridMechanism::from_parts(pm, duchi, Dyadic{1, 1}, hm), Status::ok);
  CHECK(hm.realized_epsilon() == duchi.realized_epsilon());
}

// Replays a fixed sequence of draws (each the value given for its width), for the law test.
struct ScriptedRng {
  const uint64_t* draws;
  unsigned next = 0;
  uint64_t draw(unsigned bits) {
    const uint64_t u = draws[next++];
    return bits == 0 ? 0 : u;
  }
  bool ok() const { return true; }
  Status status() const { return Status::ok; }
};

TEST(every_draw_gives_the_branch_its_alpha_says) {
  // α = 3/8: each of the 8 α draws with every PM and Duchi draw (rounding 2 bits, cells 7
  // bits, RR 4 bits): the output is PM's cell for u < 3, else M + Duchi's level, and each
  // branch's output is the branch's own for the same draws.
  PiecewiseMechanism pm;
  StochasticDiscretization duchi;
  CHECK_EQ(PiecewiseMechanism::from_outside_probability(0, 6, 12, 4, Dyadic{5, 7}, pm, 2), Status::ok);
  CHECK_EQ(StochasticDiscretization::configure(Epsilon::from_ratio(1, 1), 0, 6, 2, duchi, Precision{4, 1u << 28}, 2),
           Status::ok);
  CHECK_EQ(duchi.randomizer().other_probability().bits, 4u);
  HybridMechanism hm;
  CHECK_EQ(HybridMechanism::from_parts(pm, duchi, Dyadic{3, 3}, hm), Status::ok);
  uint32_t checked = 0;
  for (int32_t v = 0; v <= 6; v += 3) {
    for (uint64_t a = 0; a < 8; ++a) {
      for (uint64_t r = 0; r < 4; ++r) {
        for (uint64_t c = 0; c < 128; c += 5) {
          for (uint64_t d = 0; d < 16; d += 3) {
            const uint64_t draws[] = {a, r, c, r, d};
            ScriptedRng rng{draws};
            uint32_t y = 0;
            CHECK_EQ(hm.privatize(v, rng, y), Status::ok);
            CHECK_EQ(rng.next, 5u);
            ScriptedRng rr_draw{&draws[4]};
            const uint32_t level = duchi.randomizer().randomize(duchi.round(v, r), rr_draw);
            const uint32_t expected = a < 3 ? pm.cell(pm.start(v, r), c) : 12 + level;
            CHECK_EQ(y, expected);
            ++checked;
          }
        }
      }
    }
  }
  CHECK_EQ(checked, 3u * 8 * 4 * 26 * 6);
}

// The variance of the value's unbiased estimate for the value at band start s, in units of the
// continuous mechanisms' input [−1, 1], from the integer probabilities: α·PM's + (1 − α)·Duchi's
// (both branches are unbiased, so the mixture adds no term).
double variance_at_start(const HybridMechanism& hm, uint32_t s) {
  const PiecewiseMechanism& pm = hm.piecewise();
  const double pm_variance = piecewise_variance_at_start(pm, s);
  const double to_unit = 2.0 / (pm.starts() - 1);
  // Duchi on [−1, 1]: the score ±1/(1 − 2q), so its variance is 1/(1 − 2q)² − t².
  const Dyadic q = hm.duchi().randomizer().other_probability();
  const double gap = 1 - 2 * static_cast<double>(q.num) / power_of_two(q.bits);
  const double t = -1 + to_unit * s;
  const double duchi_variance = 1 / (gap * gap) - t * t;
  const double alpha = static_cast<double>(hm.alpha().num) / power_of_two(hm.alpha().bits);
  return alpha * pm_variance + (1 - alpha) * duchi_variance;
}

TEST(worst_variance_is_within_one_percent_of_the_continuous_mechanism) {
  // The paper's HM above ε*: α·PM(t) + (1 − α)·Duchi(t), flat in t; Duchi's C_D² below.
  // Figures (notes): 16.67, 4.289, 1.042, 0.219, 0.0249 at ε = 0.5, 1, 2, 4, 8.
  const uint64_t eps_q2[] = {1, 2, 4, 8, 16};  // ε = 0.5, 1, 2, 4, 8
  for (uint64_t q2 : eps_q2) {
    const Epsilon eps = Epsilon::from_ratio(q2, 2);
    HybridMechanism hm;
    CHECK_EQ(HybridMechanism::configure(eps, 0, 1000, PiecewiseMechanism::default_cells, hm), Status::ok);
    const double half = exponential(static_cast<double>(q2) / 4.0), full = half * half;
    const double duchi = (full + 1) / (full - 1);
    double continuous = duchi * duchi;  // at t = 0
    if (q2 > 1) {
      const double alpha = 1 - 1 / half;
      const double pm_at_zero = (half + 3) / (3 * (half - 1) * (half - 1));
      continuous = alpha * pm_at_zero + (1 - alpha) * duchi * duchi;  // the same at every t
    }
    const uint32_t last = hm.piecewise().starts() - 1;
    const uint32_t starts[] = {0, last / 4, last / 2, last};
    double worst = 0;
    for (uint32_t s : starts) {
      const double v = variance_at_start(hm, s);
      if (v > worst) worst = v;
    }
    CHECK_LT(worst / continuous, 1.01);
    CHECK_GT(worst / continuous, 0.99);
  }
}

TEST(out_of_range_and_entropy_failure_emit_nothing) {
  constexpr auto hm = HybridMechanism::make(Epsilon::from_double(2.0), 0, 100, 64);
  check_fail_closed(hm, 50, 101);
  check_fail_closed(hm, 50, -1);
}

TEST(consumes_the_same_bits_for_every_input) {
  const int32_t values[] = {-10, -3, 4, 10};
  check_same_bits(HybridMechanism::make(Epsilon::from_double(2.0), -10, 10, 256), values, 5, 40);
}

TEST(golden_reports_are_identical_everywhere) {
  constexpr auto hm = HybridMechanism::make(Epsilon::from_double(2.0), -40, 85);
  CHECK_EQ(golden_digest(hm, 500, [](uint32_t i) { return -40 + static_cast<int32_t>(i % 126); },
                         [](uint32_t r) { return r < 2050; }),
           144115143175253378ull);
}

}  // namespace
}  // namespace tinyldp::test
