// SPDX-License-Identifier: Apache-2.0
// The Piecewise Mechanism on a grid: configuration, the exact channel over every draw, unbiased
// rounding and scores, the variance against the continuous PM's, failure behaviour, golden reports.
#include "check.hpp"
#include "mechanism_checks.hpp"
#include "no_libm.hpp"
#include "piecewise_moments.hpp"
#include "tinyldp/piecewise.hpp"

namespace tinyldp::test {
namespace {

TEST(configures_and_rejects) {
  constexpr auto pm = PiecewiseMechanism::make(Epsilon::from_double(4.0), -40, 85);
  static_assert(pm.cells() == 2048 && pm.low() == -40 && pm.high() == 85);
  static_assert(pm.band_cells() == 244);  // ⌊2048/(e² + 1) + ½⌋ = ⌊244.4⌋
  static_assert(pm.realized_epsilon() <= Epsilon::from_double(4.0));
  static_assert(pm.description().payload_bits == 11);
  PiecewiseMechanism x;
  const Epsilon one = Epsilon::from_ratio(1, 1);
  CHECK(PiecewiseMechanism::configure(one, 5, 5, 64, x) == Status::bad_parameter);
  CHECK(PiecewiseMechanism::configure(one, 0, 9, 3, x) == Status::bad_parameter);
  CHECK(PiecewiseMechanism::configure(one, 0, 9, 4097, x) == Status::bad_parameter);
  CHECK(PiecewiseMechanism::configure(one, 0, 9, 64, x, {}, 25) == Status::bad_parameter);
  // (hi − lo)·S·2^B must stay below 2^63: at M = 2048 and ε = 1 (W_b = 773, S = 1276),
  // 2^29·1276 ≥ 2^39 > 2^28·1276.
  CHECK(PiecewiseMechanism::configure(one, 0, 1 << 29, 2048, x) == Status::bad_parameter);
  CHECK(PiecewiseMechanism::configure(one, 0, 1 << 28, 2048, x) == Status::ok);
  CHECK(PiecewiseMechanism::configure(Epsilon::from_q32(0), 0, 9, 64, x) == Status::bad_epsilon);
  CHECK(!PiecewiseMechanism{}.configured());
}

TEST(realized_epsilon_is_at_most_the_request_and_close) {
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 10), Epsilon::from_ratio(1, 2), Epsilon::from_ratio(1, 1),
                              Epsilon::from_ratio(4, 1), Epsilon::from_ratio(8, 1), Epsilon::from_ratio(20, 1)};
  const uint32_t cell_counts[] = {4, 5, 64, 2048, 4096};
  for (Epsilon eps : epsilons) {
    for (uint32_t cells : cell_counts) {
      PiecewiseMechanism pm;
      CHECK_EQ(PiecewiseMechanism::configure(eps, -1000, 1000, cells, pm), Status::ok);
      CHECK(pm.realized_epsilon() <= eps);
      // Within the default tolerance, 2^-21 (h's rounding down included).
      CHECK_GE(pm.realized_epsilon().q32 + (uint64_t{1} << 11), eps.q32);
      CHECK_GE(pm.band_cells(), 1u);
      CHECK_LE(pm.band_cells(), cells - 3);
      // The probabilities add up to one: W_b·h + (M − W_b)·m + R = 2^b.
      const Dyadic m = pm.outside_probability();
      const detail::Wide total = detail::Wide::from(pm.band_numerator()).times(pm.band_cells()) +
                                 detail::Wide::from(m.num).times(cells - pm.band_cells()) +
                                 detail::Wide::from(pm.cell_zero_extra());
      CHECK(total == detail::scale(m.bits));
      CHECK_LT(pm.cell_zero_extra(), pm.band_cells());
    }
  }
}

TEST(every_cell_draw_lands_where_the_channel_says) {
  // M = 12, W_b = 4 (S = 9), m = 5/2^7: h = ⌊(128 − 40)/4⌋ = 22, R = 0; and m = 3/2^7: h = 26,
  // R = 0 … every draw u of each start s, against m, h and cell 0's extra.
  const Dyadic ms[] = {{5, 7}, {3, 7}, {7, 8}};
  for (Dyadic m : ms) {
    PiecewiseMechanism pm;
    CHECK_EQ(PiecewiseMechanism::from_outside_probability(0, 8, 12, 4, m, pm), Status::ok);
    const uint64_t h = pm.band_numerator(), rest = pm.cell_zero_extra();
    CHECK_EQ(rest, (uint64_t{1} << m.bits) - 4 * h - 8 * m.num);
    for (uint32_t s = 0; s < pm.starts(); ++s) {
      uint64_t count[12] = {};
      for (uint64_t u = 0; u < (uint64_t{1} << m.bits); ++u) {
        const uint32_t y = pm.cell(s, u);
        CHECK_LT(y, 12u);
        if (y < 12) ++count[y];
      }
      for (uint32_t y = 0; y < 12; ++y) {
        const uint64_t expected = (y >= s && y < s + 4 ? h : m.num) + (y == 0 ? rest : 0);
        CHECK_EQ(count[y], expected);
      }
    }
  }
}

TEST(a_band_ending_at_two_to_the_64_stays_a_band) {
  // b = 64 and R = 0: the top band ends exactly at 2^64 (M = 64, W_b = 8, m = (2^55 + 1)/2^64,
  // h = 57·m…). Each cell's first and last draw, for the top start and two others.
  PiecewiseMechanism pm;
  const Dyadic m{(uint64_t{1} << 55) + 1, 64};
  CHECK_EQ(PiecewiseMechanism::from_outside_probability(0, 56, 64, 8, m, pm), Status::ok);
  CHECK_EQ(pm.cell_zero_extra(), 0u);
  const uint64_t h = pm.band_numerator();
  const uint32_t starts[] = {0, 30, 56};
  for (uint32_t s : starts) {
    uint64_t begin = 0;  // the cell's first draw
    for (uint32_t y = 0; y < 64; ++y) {
      const uint64_t width = y >= s && y < s + 8 ? h : m.num;
      CHECK_EQ(pm.cell(s, begin), y);
      CHECK_EQ(pm.cell(s, begin + width - 1), y);
      begin += width;  // wraps to 0 after the last cell: the draws cover [0, 2^64) exactly
    }
    CHECK_EQ(begin, 0u);
  }
}

TEST(rounding_is_unbiased_over_all_draws) {
  // Σ_u start(v, u)·W/(S − 1)/2^B + lo = v up to 2^-B of a start, for every v (B = 10, W = 100).
  PiecewiseMechanism pm;
  CHECK_EQ(PiecewiseMechanism::from_outside_probability(-7, 93, 12, 4, Dyadic{5, 7}, pm, 10), Status::ok);
  const int64_t steps = pm.starts() - 1;  // 8
  for (int32_t v = -7; v <= 93; ++v) {
    uint64_t sum = 0;
    for (uint64_t u = 0; u < 1024; ++u) sum += pm.start(v, u);
    const int64_t scaled_mean = int64_t{-7} * steps * 1024 + static_cast<int64_t>(sum) * 100;
    const int64_t target = int64_t{v} * steps * 1024;
    CHECK_LE(scaled_mean - target, 0);     // the up-probability is rounded down: never above
    CHECK_GT(scaled_mean - target, -100);  // bias < 2^-10 of a start (100 in these units)
  }
}

// The worst-case variance (at lo and hi) of the value's unbiased estimate, in units of the
// continuous PM's input [−1, 1], from the integer probabilities.
double worst_variance(const PiecewiseMechanism& pm) {
  const double low = piecewise_variance_at_start(pm, 0), high = piecewise_variance_at_start(pm, pm.starts() - 1);
  return low > high ? low : high;
}

TEST(variance_is_within_half_a_percent_of_the_continuous_mechanism) {
  // PM's worst case, t = ±1: 1/(e^{ε/2} − 1) + (e^{ε/2} + 3)/(3(e^{ε/2} − 1)²).
  const uint64_t eps_q2[] = {1, 2, 4, 8, 16};  // ε = 0.5, 1, 2, 4, 8
  for (uint64_t q2 : eps_q2) {
    const Epsilon eps = Epsilon::from_ratio(q2, 2);
    PiecewiseMechanism pm;
    CHECK_EQ(PiecewiseMechanism::configure(eps, 0, 1000, PiecewiseMechanism::default_cells, pm), Status::ok);
    const double e = exponential(static_cast<double>(q2) / 4.0);
    const double continuous = 1 / (e - 1) + (e + 3) / (3 * (e - 1) * (e - 1));
    const double ratio = worst_variance(pm) / continuous;
    CHECK_LT(ratio, 1.005);
    CHECK_GT(ratio, 0.995);
  }
}

TEST(out_of_range_and_entropy_failure_emit_nothing) {
  constexpr auto pm = PiecewiseMechanism::make(Epsilon::from_double(1.0), 0, 100, 64);
  check_fail_closed(pm, 50, 101);
  check_fail_closed(pm, 50, -1);
}

TEST(consumes_the_same_bits_for_every_input) {
  const int32_t values[] = {-10, -3, 4, 10};
  check_same_bits(PiecewiseMechanism::make(Epsilon::from_double(2.0), -10, 10, 256), values, 5, 40);
}

TEST(golden_reports_are_identical_everywhere) {
  constexpr auto pm = PiecewiseMechanism::make(Epsilon::from_double(2.0), -40, 85);
  CHECK_EQ(golden_digest(pm, 500, [](uint32_t i) { return -40 + static_cast<int32_t>(i % 126); },
                         [](uint32_t r) { return r < 2048; }),
           9374030532768214041ull);
}

}  // namespace
}  // namespace tinyldp::test
