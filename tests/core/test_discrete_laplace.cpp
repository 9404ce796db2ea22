// SPDX-License-Identifier: Apache-2.0
// Discrete Laplace: realized ε from the integers, errors, failure behaviour, golden reports.
#include "check.hpp"
#include "frequency_check.hpp"
#include "mechanism_checks.hpp"
#include "tinyldp/discrete_laplace.hpp"

namespace tinyldp::test {
namespace {

uint64_t table[201];

TEST(realized_epsilon_is_at_most_the_request_and_close) {
  const uint32_t deltas[] = {1, 10, 100};
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 10), Epsilon::from_ratio(1, 1), Epsilon::from_ratio(5, 1)};
  for (uint32_t delta : deltas) {
    for (Epsilon eps : epsilons) {
      DiscreteLaplace dl;
      CHECK_EQ(DiscreteLaplace::configure(eps, -100, 100, delta, table, 201, dl), Status::ok);
      CHECK(dl.realized_epsilon() <= eps);
      // Within 1e-6 relative at 48 bits (ceil rounding of 2^48-scale weights).
      CHECK_GE(dl.realized_epsilon().q32, eps.q32 - eps.q32 / 1000000 - delta);
      CHECK(dl.realized_epsilon() <= dl.local_epsilon());
      uint64_t total = dl.tail_low() + dl.tail_high() + dl.weight(0);
      for (uint32_t k = 1; k < 200; ++k) total += 2 * dl.weight(k);
      CHECK_EQ(total, uint64_t{1} << 48);  // the weights are a distribution, exactly
    }
  }
}

TEST(realized_epsilon_is_within_the_tolerance_on_a_grid) {
  // ε 0.01–10, W ≤ 100, Δ ∈ {1, W} at the default 48 bits: never above ε, at most 2^-21 below
  // (measured: ≤ 2.3e-8; W = Δ = 1000 at ε = 10 reaches 1.0e-6, the 2^-48 weights' limit).
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 100), Epsilon::from_ratio(1, 50), Epsilon::from_ratio(1, 20),
                              Epsilon::from_ratio(1, 10),  Epsilon::from_ratio(1, 5),  Epsilon::from_ratio(1, 2),
                              Epsilon::from_ratio(1, 1),   Epsilon::from_ratio(2, 1),  Epsilon::from_ratio(3, 1),
                              Epsilon::from_ratio(5, 1),   Epsilon::from_ratio(7, 1),  Epsilon::from_ratio(9, 1),
                              Epsilon::from_ratio(10, 1)};
  const uint32_t widths[] = {1, 2, 10, 100};
  for (uint32_t width : widths) {
    for (Epsilon eps : epsilons) {
      const uint32_t deltas[] = {1, width};
      for (uint32_t delta : deltas) {
        DiscreteLaplace dl;
        CHECK_EQ(DiscreteLaplace::configure(eps, 0, static_cast<int32_t>(width), delta, table, 201, dl), Status::ok);
        CHECK(dl.realized_epsilon() <= eps);
        CHECK_LE(eps.q32 - dl.realized_epsilon().q32, uint64_t{1} << 11);
      }
    }
  }
}

TEST(realized_epsilon_is_exact_for_the_sensitivity) {
  // Δ = W: the Δ-neighbour figure and the whole-range figure are the same maximum.
  DiscreteLaplace dl;
  CHECK_EQ(DiscreteLaplace::configure(Epsilon::from_ratio(3, 1), 0, 30, 30, table, 201, dl), Status::ok);
  CHECK_EQ(dl.realized_epsilon().q32, dl.local_epsilon().q32);
  // Δ < W: the whole-range figure is larger; for Δ = 1 it is ln of the largest adjacent ratio,
  // at most e^(ε) — here the interior ratio w_0/w_1 is the largest.
  CHECK_EQ(DiscreteLaplace::configure(Epsilon::from_ratio(1, 2), 0, 30, 1, table, 201, dl), Status::ok);
  CHECK(dl.realized_epsilon() < dl.local_epsilon());
  CHECK(dl.realized_epsilon() <= Epsilon::from_ratio(1, 2));
  CHECK_GE(dl.realized_epsilon().q32, Epsilon::from_ratio(1, 2).q32 - 4096);
}

constexpr Epsilon compile_time_eps = Epsilon::from_double(1.0);
constexpr auto compile_time_noise =
    DiscreteLaplaceTable<DiscreteLaplace::table_entries(-20, 20)>::make(compile_time_eps, -20, 20, 2);
constexpr DiscreteLaplace compile_time_dl = compile_time_noise.bind();
static_assert(compile_time_dl.realized_epsilon() <= compile_time_eps);
static_assert(compile_time_dl.low() == -20 && compile_time_dl.high() == 20);

TEST(configures_at_compile_time_like_at_run_time) {
  DiscreteLaplace dl;
  CHECK_EQ(DiscreteLaplace::configure(compile_time_eps, -20, 20, 2, table, 201, dl), Status::ok);
  CHECK_EQ(compile_time_dl.realized_epsilon().q32, dl.realized_epsilon().q32);
  CHECK_EQ(compile_time_dl.local_epsilon().q32, dl.local_epsilon().q32);
  CHECK_EQ(compile_time_dl.tail_low(), dl.tail_low());
  CHECK_EQ(compile_time_dl.tail_high(), dl.tail_high());
  for (uint32_t k = 0; k < 40; ++k) CHECK_EQ(compile_time_dl.weight(k), dl.weight(k));
  // Same reports from the same stream.
  port::InsecureTestSource a(77), b(77);
  Rng ra(a), rb(b);
  for (int32_t v = -20; v <= 20; ++v) {
    int32_t x = 0, y = 0;
    CHECK(compile_time_dl.privatize(v, ra, x) == Status::ok);
    CHECK(dl.privatize(v, rb, y) == Status::ok);
    CHECK_EQ(x, y);
  }
}

TEST(consumes_the_same_bits_for_every_input) {
  DiscreteLaplace dl;
  CHECK_EQ(DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), -30, 30, 3, table, 201, dl), Status::ok);
  const int32_t values[] = {-30, -18, -6, 6, 18, 30};
  check_same_bits(dl, values, 6, 40);
}

TEST(rejects_bad_parameters) {
  DiscreteLaplace dl;
  CHECK(DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), 5, 5, 1, table, 201, dl) == Status::bad_parameter);
  CHECK(DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), 0, 10, 0, table, 201, dl) == Status::bad_parameter);
  CHECK(DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), 0, 10, 11, table, 201, dl) == Status::bad_parameter);
  CHECK(DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), 0, 10, 1, table, 10, dl) == Status::buffer_too_small);
  CHECK(DiscreteLaplace::configure(Epsilon::from_q32(0), 0, 10, 1, table, 201, dl) == Status::bad_epsilon);
  CHECK_EQ(DiscreteLaplace::table_entries(-100, 100), 201u);
}

TEST(noise_follows_the_weights) {
  DiscreteLaplace dl;
  CHECK_EQ(DiscreteLaplace::configure(Epsilon::from_ratio(1, 2), 0, 20, 1, table, 201, dl), Status::ok);
  port::InsecureTestSource src(8);
  Rng rng(src);
  uint64_t hist[21] = {};
  const uint64_t n = 40000;
  for (uint64_t i = 0; i < n; ++i) {
    int32_t y = 0;
    CHECK(dl.privatize(10, rng, y) == Status::ok);
    ++hist[y >= 0 && y <= 20 ? y : 0];
  }
  for (uint32_t y = 1; y < 20; ++y) {
    const double p = static_cast<double>(dl.weight(y > 10 ? y - 10 : 10 - y)) / 281474976710656.0;
    CHECK(within_six_sigma(hist[y], n, p, false));
  }
}

TEST(out_of_range_and_entropy_failure_emit_nothing) {
  DiscreteLaplace dl;
  CHECK_EQ(DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), -5, 5, 10, table, 201, dl), Status::ok);
  check_fail_closed(dl, 0, 6);
}

TEST(golden_reports_are_identical_everywhere) {
  DiscreteLaplace dl;
  CHECK_EQ(DiscreteLaplace::configure(Epsilon::from_ratio(2, 1), -50, 50, 100, table, 201, dl), Status::ok);
  port::InsecureTestSource src(2024);
  Rng rng(src);
  CHECK_EQ(golden_digest(dl, rng, 300, [](uint32_t i) { return -50 + static_cast<int32_t>(i % 101); },
                                        [](int32_t r) { return r >= -50 && r <= 50; }),
           16743145130842820316ull);
  CHECK_EQ(rng.bits_drawn(), 300u * 48u);
  // The configuration itself, bit for bit: every weight, both tails, both ε figures.
  Digest weights;
  for (uint32_t k = 0; k < 100; ++k) {
    weights.add_u32(static_cast<uint32_t>(dl.weight(k)));
    weights.add_u32(static_cast<uint32_t>(dl.weight(k) >> 32));
  }
  const uint64_t figures[] = {dl.tail_low(), dl.tail_high(), dl.realized_epsilon().q32, dl.local_epsilon().q32};
  for (uint64_t f : figures) {
    weights.add_u32(static_cast<uint32_t>(f));
    weights.add_u32(static_cast<uint32_t>(f >> 32));
  }
  CHECK_EQ(weights.state, 7502831240373759600ull);
}

}  // namespace
}  // namespace tinyldp::test
