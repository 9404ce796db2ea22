// SPDX-License-Identifier: Apache-2.0
// Square Wave: the window's half-width against the paper's b, the grid it configures (PM's with
// a band of 2B + 1 and D starts), the realized ε, failure behaviour, golden reports.
#include "check.hpp"
#include "mechanism_checks.hpp"
#include "no_libm.hpp"
#include "tinyldp/square_wave.hpp"

namespace tinyldp::test {
namespace {

TEST(half_width_is_the_papers_b_in_buckets) {
  // b = (εe^ε − e^ε + 1)/(2e^ε(e^ε − 1 − ε)): 0.3582, 0.2561, 0.1293, 0.03043, 0.001178 at
  // ε = 0.5, 1, 2, 4, 8; B = ⌊b·(D − 1) + ½⌋, the fixed-point result equal to the double's
  // (none of these is within 10⁻⁶ of a half).
  const uint64_t eps_q2[] = {1, 2, 4, 8, 16};
  const uint32_t bucket_counts[] = {4, 74, 1024, 2048};
  for (uint64_t q2 : eps_q2) {
    const double eps = static_cast<double>(q2) / 2, e = exponential(eps);
    const double b = (eps * e - e + 1) / (2 * e * (e - 1 - eps));
    for (uint32_t d : bucket_counts) {
      const double exact = b * (d - 1) + 0.5;
      const auto expected = static_cast<uint32_t>(exact);
      CHECK_EQ(SquareWave::half_width_for(Epsilon::from_ratio(q2, 2), d), expected);
    }
  }
  static_assert(SquareWave::half_width_for(Epsilon::from_ratio(1, 1), 1024) == 262);
}

TEST(configures_the_grid_and_rejects) {
  constexpr auto sw = SquareWave::make(Epsilon::from_ratio(1, 1), 17, 90, 74);
  static_assert(sw.buckets() == 74 && sw.half_width() == 19 && sw.cells() == 74 + 38);
  static_assert(sw.grid().band_cells() == 39 && sw.grid().starts() == 74);
  static_assert(sw.description().payload_bits == 7);
  static_assert(sw.realized_epsilon() <= Epsilon::from_ratio(1, 1));
  CHECK_GE(sw.realized_epsilon().q32 + (uint64_t{1} << 11), Epsilon::from_ratio(1, 1).q32);
  // At ε = 8 over 74 buckets the window is one cell (B = 0): k-RR over the buckets.
  constexpr auto narrow = SquareWave::make(Epsilon::from_ratio(8, 1), 17, 90, 74);
  static_assert(narrow.half_width() == 0 && narrow.cells() == 74);
  SquareWave x;
  const Epsilon one = Epsilon::from_ratio(1, 1);
  CHECK(SquareWave::configure(one, 0, 9, 3, x) == Status::bad_parameter);      // D < 4
  CHECK(SquareWave::configure(one, 0, 9, 4097, x) == Status::bad_parameter);   // D > 4096
  CHECK(SquareWave::configure(one, 0, 9, 4000, x) == Status::bad_parameter);   // N = D + 2B > 4096
  CHECK(SquareWave::configure(one, 9, 9, 64, x) == Status::bad_parameter);     // empty range
  CHECK(SquareWave::configure(Epsilon::from_q32(0), 0, 9, 64, x) == Status::bad_epsilon);
  CHECK(SquareWave::from_half_width(one, 0, 9, 4, 2049, x) == Status::bad_parameter);
  CHECK(!x.configured());
  CHECK(!SquareWave{}.configured());
  CHECK_EQ(SquareWave::configure(one, 0, 9, 2048, x), Status::ok);  // N = 2048 + 2·524 = 3096
  CHECK_EQ(x.cells(), 2048u + 2 * x.half_width());
}

TEST(every_cell_draw_follows_the_window) {
  // D = 6 buckets, B = 2 (N = 10, window 5), m = 5/2^8: each bucket's cells over every draw.
  SquareWave sw;
  CHECK_EQ(SquareWave::configure(Epsilon::from_ratio(1, 1), 0, 5, 6, sw, Precision{8, 1u << 28}, 4), Status::ok);
  SquareWave fixed;
  CHECK_EQ(SquareWave::from_half_width(Epsilon::from_ratio(1, 1), 0, 5, 6, 2, fixed, Precision{8, 1u << 28}, 4),
           Status::ok);
  const PiecewiseMechanism& grid = fixed.grid();
  CHECK_EQ(grid.cells(), 10u);
  CHECK_EQ(grid.band_cells(), 5u);
  const uint64_t m = grid.outside_probability().num, h = grid.band_numerator(), rest = grid.cell_zero_extra();
  for (uint32_t s = 0; s < 6; ++s) {
    uint64_t count[10] = {};
    for (uint64_t u = 0; u < (uint64_t{1} << grid.outside_probability().bits); ++u) ++count[grid.cell(s, u)];
    for (uint32_t y = 0; y < 10; ++y) CHECK_EQ(count[y], (y >= s && y < s + 5 ? h : m) + (y == 0 ? rest : 0));
  }
}

TEST(out_of_range_and_entropy_failure_emit_nothing) {
  constexpr auto sw = SquareWave::make(Epsilon::from_double(1.0), 0, 100, 64);
  check_fail_closed(sw, 50, 101);
  check_fail_closed(sw, 50, -1);
}

TEST(consumes_the_same_bits_for_every_input) {
  const int32_t values[] = {-10, -3, 4, 10};
  check_same_bits(SquareWave::make(Epsilon::from_double(2.0), -10, 10, 256), values, 5, 40);
}

TEST(golden_reports_are_identical_everywhere) {
  constexpr auto sw = SquareWave::make(Epsilon::from_double(2.0), -40, 85, 126);
  CHECK_EQ(golden_digest(sw, 500, [](uint32_t i) { return -40 + static_cast<int32_t>(i % 126); },
                         [](uint32_t r) { return r < 126 + 2 * 16; }),
           11917727006940709607ull);
}

}  // namespace
}  // namespace tinyldp::test
