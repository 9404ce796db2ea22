// SPDX-License-Identifier: Apache-2.0
// Stochastic discretization: configuration, unbiased rounding, failure behaviour, golden reports.
#include "check.hpp"
#include "mechanism_checks.hpp"
#include "tinyldp/stochastic_discretization.hpp"

namespace tinyldp::test {
namespace {

TEST(configures_and_rejects) {
  constexpr auto sd = StochasticDiscretization::make(Epsilon::from_double(1.0), -40, 85, 5);
  static_assert(sd.levels() == 5 && sd.low() == -40 && sd.high() == 85);
  static_assert(sd.realized_epsilon() <= Epsilon::from_double(1.0));
  StochasticDiscretization x;
  CHECK(StochasticDiscretization::configure(Epsilon::from_ratio(1, 1), 5, 5, 2, x) == Status::bad_parameter);
  CHECK(StochasticDiscretization::configure(Epsilon::from_ratio(1, 1), 0, 9, 1, x) == Status::bad_parameter);
  CHECK(StochasticDiscretization::configure(Epsilon::from_ratio(1, 1), 0, 9, 257, x) == Status::bad_parameter);
  CHECK(StochasticDiscretization::configure(Epsilon::from_ratio(1, 1), -2000000000, 2000000000, 2, x) ==
        Status::bad_parameter);
  CHECK(StochasticDiscretization::configure(Epsilon::from_q32(0), 0, 9, 2, x) == Status::bad_epsilon);
}

TEST(realized_epsilon_is_at_most_the_request_and_close) {
  // The k-RR over the levels at default precision: never above ε, at most 2^-21 below.
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 100), Epsilon::from_ratio(1, 10), Epsilon::from_ratio(1, 1),
                              Epsilon::from_ratio(5, 1), Epsilon::from_ratio(10, 1)};
  const uint32_t level_counts[] = {2, 3, 16, 256};
  for (Epsilon eps : epsilons) {
    for (uint32_t levels : level_counts) {
      StochasticDiscretization sd;
      CHECK(StochasticDiscretization::configure(eps, -1000, 1000, levels, sd) == Status::ok);
      CHECK(sd.realized_epsilon() <= eps);
      CHECK_GE(sd.realized_epsilon().q32 + (uint64_t{1} << 11), eps.q32);
    }
  }
}

TEST(rounding_is_unbiased_over_all_draws) {
  // Σ_u level(v, u) · W/(L−1) / 2^B + lo = v up to the stated 2^-B bias, for every v (B = 12).
  StochasticDiscretization sd;
  CHECK(StochasticDiscretization::configure(Epsilon::from_ratio(1, 1), -7, 93, 4, sd, {}, 12) == Status::ok);
  for (int32_t v = -7; v <= 93; ++v) {
    uint64_t sum = 0;
    for (uint64_t u = 0; u < 4096; ++u) sum += sd.round(v, u);
    // mean value ×3×4096 (levels − 1 = 3, W = 100): lo·3·4096 + sum·100 vs v·3·4096
    const int64_t scaled_mean = int64_t{-7} * 3 * 4096 + static_cast<int64_t>(sum) * 100;
    const int64_t target = int64_t{v} * 3 * 4096;
    CHECK_LE(scaled_mean - target, 0);     // the up-probability is rounded down: never above
    CHECK_GE(scaled_mean - target, -100);  // bias < 2^-12 · W/(L−1) → > −100 in these units
  }
}

TEST(randomizes_exactly_like_the_k_rr_it_reuses) {
  // The k-RR step (KaryRr::randomize): same draws, same reports as KaryRr::privatize.
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 100), Epsilon::from_ratio(1, 1), Epsilon::from_ratio(8, 1)};
  const uint32_t level_counts[] = {2, 3, 7, 64, 256};
  for (Epsilon eps : epsilons) {
    for (uint32_t levels : level_counts) {
      StochasticDiscretization sd;
      CHECK(StochasticDiscretization::configure(eps, -10, 30, levels, sd) == Status::ok);
      port::InsecureTestSource a(12), b(12);
      Rng ra(a), rb(b);
      for (int32_t i = 0; i < 300; ++i) {
        const int32_t v = -10 + i % 41;
        uint32_t r = 9, y = 9;
        CHECK(sd.privatize(v, ra, r) == Status::ok);
        const uint32_t level = sd.round(v, rb.draw(sd.rounding_bits()));
        CHECK(sd.randomizer().privatize(level, rb, y) == Status::ok);
        CHECK_EQ(r, y);
      }
      CHECK_EQ(ra.bits_drawn(), rb.bits_drawn());
    }
  }
}

TEST(out_of_range_and_entropy_failure_emit_nothing) {
  constexpr auto sd = StochasticDiscretization::make(Epsilon::from_double(1.0), 0, 100, 3);
  check_fail_closed(sd, 50, 101);
  check_fail_closed(sd, 50, -1);
}

TEST(consumes_the_same_bits_for_every_input) {
  const int32_t values[] = {-10, -3, 4};
  check_same_bits(StochasticDiscretization::make(Epsilon::from_double(2.0), -10, 10, 4), values,
                                 5, 40);
}

TEST(golden_reports_are_identical_everywhere) {
  constexpr auto sd = StochasticDiscretization::make(Epsilon::from_double(1.0), -40, 85, 6);
  CHECK_EQ(golden_digest(sd, 500, [](uint32_t i) { return -40 + static_cast<int32_t>(i % 126); },
                                        [](uint32_t r) { return r < 6; }),
           14338565792743544258ull);
}

}  // namespace
}  // namespace tinyldp::test
