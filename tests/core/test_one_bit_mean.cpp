// SPDX-License-Identifier: Apache-2.0
// 1BitMean with α-point rounding and output perturbation (one_bit_mean.hpp): configuration
// and its exact ε∞ / ε₁, the rounding (division-free, its step count too; unbiased over α), the memo per rounded
// value and its exact P(z = 1), fail-closed ends, the same bits for every value, the mean
// estimator's unbiasedness over a fleet, and the wire codec.
#include "check.hpp"
#include "frequency_check.hpp"
#include "mechanism_checks.hpp"
#include "memoized_checks.hpp"
#include "tinyldp/one_bit_mean.hpp"

namespace tinyldp::test {
namespace {

constexpr Epsilon eps_inf = Epsilon::from_double(2.0), eps_one = Epsilon::from_double(1.0);
constexpr OneBitMean counter = OneBitMean::make(eps_inf, eps_one, OneBitMean::Grid{100, 10});

uint32_t device_alpha(const OneBitMean& m, const TestMemoKey& key) {
  auto stream = key.memo_stream(m.memo_attribute_word(), 0xFFFFFFFFu);
  TestMemoDraws offsets(stream);
  return m.rounding_offset(offsets);
}

// Draws handed out from a fixed list (the memo's u, then stage 1's draw).
struct Scripted {
  uint64_t values[2];
  unsigned n = 0;
  uint64_t draw(unsigned) { return values[n++ % 2]; }
};

TEST(the_memo_is_rr_at_epsilon_infinity_and_the_flip_makes_one_report_epsilon_one) {
  check_chain_meets(counter.chain(), 2, eps_inf, eps_one);
  CHECK_EQ(counter.memo_bits_per_report(), 32u + counter.chain().memo_bits());
  // The notes' ε′ from the integers: q1 = 1/4, γ = 1/8 give p* = 3/4·7/8 + 1/4·1/8 = 22/32 and
  // q* = 1/4·7/8 + 3/4·1/8 = 10/32, so ε₁ = ln 2.2, ε∞ = ln 3.
  OneBitMean m;
  CHECK_EQ(OneBitMean::configure_stages(Dyadic{1, 2}, Dyadic{1, 3}, OneBitMean::Grid{8, 2}, m), Status::ok);
  using W = detail::Wide;
  Epsilon one, inf;
  CHECK(ln_upper_bound(W::from(22), W::from(10), one));
  CHECK(ln_upper_bound(W::from(3), W::from(1), inf));
  CHECK_EQ(m.epsilon_one().q32, one.q32);
  CHECK_EQ(m.epsilon_infinity().q32, inf.q32);
  CHECK(m.flip_probability() == (Dyadic{1, 3}));
  // A history visiting c grid points spends c·ε∞, at most J + 1 of them.
  CHECK_EQ(m.lifetime_epsilon(2).q32, 2 * inf.q32);
  CHECK_EQ(m.lifetime_epsilon(50).q32, 5 * inf.q32);
}

TEST(rejects_bad_parameters_with_their_reason) {
  OneBitMean m;
  CHECK_EQ(OneBitMean::configure(eps_inf, eps_one, OneBitMean::Grid{0, 1}, m), Status::bad_parameter);
  CHECK_EQ(OneBitMean::configure(eps_inf, eps_one, OneBitMean::Grid{100, 7}, m), Status::bad_parameter);
  CHECK_EQ(OneBitMean::configure(eps_inf, eps_one, OneBitMean::Grid{100, 200}, m), Status::bad_parameter);
  CHECK_EQ(OneBitMean::configure(eps_inf, eps_one, OneBitMean::Grid{100, 10, 33}, m), Status::bad_parameter);
  CHECK_EQ(OneBitMean::configure(eps_inf, eps_one, OneBitMean::Grid{100, 10, 0}, m), Status::bad_parameter);
  CHECK_EQ(OneBitMean::configure(eps_inf, eps_one, OneBitMean::Grid{OneBitMean::max_value + 1, 1}, m),
           Status::bad_parameter);
  CHECK_EQ(OneBitMean::configure(eps_one, eps_inf, OneBitMean::Grid{100, 10}, m), Status::bad_epsilon);
  CHECK_EQ(OneBitMean::configure_stages(Dyadic{1, 1}, Dyadic{1, 3}, OneBitMean::Grid{8, 2}, m),
           Status::precision_too_low);  // q1 = 1/2: no randomized response at all
  CHECK_EQ(OneBitMean::configure(eps_inf, eps_one, OneBitMean::Grid{100, 10}, m, Precision{1, 1}),
           Status::precision_too_low);
}

TEST(alpha_point_rounding_is_the_division_and_unbiased_over_alpha) {
  const uint32_t steps[] = {1, 3, 4, 6, 60};
  for (uint32_t s : steps) {
    OneBitMean m;
    CHECK_EQ(OneBitMean::configure(eps_inf, eps_one, OneBitMean::Grid{60, s}, m), Status::ok);
    for (uint32_t x = 0; x <= 60; ++x) {
      uint64_t sum = 0;
      for (uint32_t alpha = 0; alpha < s; ++alpha) {
        const uint32_t j = m.grid_index(x, alpha);
        CHECK_EQ(j, (x + alpha) / s);
        sum += j;
      }
      CHECK_EQ(sum, uint64_t{x});  // E_α[j·s] = (1/s)·Σ_α j·s = x exactly
    }
  }
  // The division's step count, found without dividing, is ⌈log2(J + 1)⌉ for every grid —
  // J at and around powers of two, up to m = 2^30 — and the top index is still J.
  const uint32_t grids[][2] = {{1, 1},           {2, 1},         {3, 1},         {4, 1},
                               {7, 1},           {8, 2},         {96, 3},        {1024, 2},
                               {1023, 3},        {1u << 30, 1},  {1u << 30, 1u << 30},
                               {(1u << 30) - 2, 2}, {3u << 20, 3u << 10}};
  for (const auto& g : grids) {
    const AlphaRounding rounding(g[0], g[1]);
    CHECK(AlphaRounding::valid(g[0], g[1]));
    CHECK_EQ(rounding.index_steps(), bits_to_represent(g[0] / g[1]));
    CHECK_EQ(rounding.index(g[0], g[1] - 1), g[0] / g[1]);
  }
  // α is fixed per device and uniform over the devices.
  uint32_t seen[10] = {};
  for (uint64_t device = 1; device <= 2000; ++device) {
    const uint32_t a = device_alpha(counter, TestMemoKey{device});
    CHECK(a < 10);
    CHECK_EQ(a, device_alpha(counter, TestMemoKey{device}));
    ++seen[a < 10 ? a : 0];
  }
  for (uint32_t a = 0; a < 10; ++a) CHECK(within_six_sigma(seen[a], 2000, 0.1, false));
}

TEST(z_is_one_with_probability_j_over_cells_exactly) {
  // R = 6 bits; stage 1 fed 0 keeps z, so the memo is z. J = 4 (divides 2^6): exactly
  // j·2^6/4 of the 64 strings give 1; J = 5: ⌈j·64/5⌉ of them.
  const uint32_t cells[] = {4, 5};
  for (uint32_t J : cells) {
    OneBitMean m;
    CHECK_EQ(OneBitMean::configure(eps_inf, eps_one, OneBitMean::Grid{J * 3, 3, 6}, m), Status::ok);
    for (uint32_t j = 0; j <= J; ++j) {
      uint32_t ones = 0;
      for (uint64_t u = 0; u < 64; ++u) {
        Scripted memo{{u, 0}};
        ones += m.memoize(j, memo);
      }
      CHECK_EQ(ones, (j * 64 + J - 1) / J);
    }
  }
}

TEST(the_memo_follows_the_rounded_value) {
  // Values that round to one grid point share their memo (the same fresh bits give the same
  // report); the report of a value in another cell comes from another memo stream.
  port::InsecureTestSource src(41);
  Rng rng(src);
  uint32_t shared = 0, differs = 0;
  for (uint64_t device = 1; device <= 40; ++device) {
    const TestMemoKey key{device};
    const uint32_t alpha = device_alpha(counter, key);
    const uint32_t x = 41, twin = counter.grid_index(40, alpha) == counter.grid_index(41, alpha) ? 40 : 42;
    CHECK_EQ(counter.grid_index(twin, alpha), counter.grid_index(x, alpha));
    for (uint64_t s = 0; s < 8; ++s) {
      port::InsecureTestSource a(200 + s), b(200 + s), c(200 + s);
      Rng ra(a), rb(b), rc(c);
      uint8_t y1 = 9, y2 = 9, y3 = 9;
      CHECK_EQ(counter.privatize(x, key, ra, y1), Status::ok);
      CHECK_EQ(counter.privatize(twin, key, rb, y2), Status::ok);
      CHECK_EQ(counter.privatize(95, key, rc, y3), Status::ok);
      shared += y1 == y2;
      differs += y1 != y3;
    }
  }
  CHECK_EQ(shared, 320u);
  CHECK(differs > 0);
}

TEST(out_of_range_and_entropy_failure_emit_nothing) {
  const uint32_t out_of_range[] = {101, 0xFFFFFFFFu};
  check_memoized_fail_closed(counter, 3, out_of_range);
}

TEST(consumes_the_same_bits_for_every_value) {
  const TestMemoKey key{};
  const uint32_t alpha = device_alpha(counter, key);
  for (uint32_t v = 0; v <= 110; v += 5) {  // 105 and 110 are out of range
    port::InsecureTestSource src(9);
    Rng rng(src);
    uint8_t report;
    (void)counter.privatize(v, key, rng, report);
    CHECK_EQ(rng.bits_drawn(), uint64_t{counter.random_bits_per_report()});
    auto stream = key.memo_stream(counter.memo_attribute_word(), counter.grid_index(v <= 100 ? v : 0, alpha));
    CountedMemoDraws memo(stream);
    (void)counter.privatize_with_memo(v, alpha, memo, rng, report);
    CHECK_EQ(memo.bits_drawn(), uint64_t{counter.memo_bits_per_report()});
  }
}

TEST(the_mean_estimator_is_unbiased_over_a_fleet) {
  // Device i holds x_i = (i·37) mod 101 (mean ≈ 50) or, for a fifth of them, 100. The mean of
  // x̂ = m(y − q*)/(p* − q*) must lie within 6σ of the true mean, σ from the formula.
  double p_star, q_star;
  composed_channel(counter.chain(), p_star, q_star);
  const uint32_t n = fleet_size(100000);
  port::InsecureTestSource src(19);
  Rng rng(src);
  double sum_estimates = 0, truth = 0, variance = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t x = i % 5 == 0 ? 100 : (i * 37) % 101;
    uint8_t y;
    CHECK_EQ(counter.privatize(x, TestMemoKey{i + 5}, rng, y), Status::ok);
    sum_estimates += 100.0 * (y - q_star) / (p_star - q_star);
    truth += x;
    const double s = q_star + x / 100.0 * (p_star - q_star);
    variance += s * (1 - s);
  }
  const double sigma = 100.0 * sqrt_newton(variance) / ((p_star - q_star) * n);
  const double diff = sum_estimates / n - truth / n;
  CHECK(diff <= 6 * sigma && -diff <= 6 * sigma);
#ifndef TINYLDP_TEST_ON_TARGET
  CHECK(6 * sigma < 2.0);  // the check has power: a mean off by 2 (of 100) fails
#endif
}

TEST(wire_codec_round_trips) {
  const auto d = counter.description();
  CHECK(d.id == wire::MechanismId::one_bit_mean);
  CHECK_EQ(d.payload_bits, 1u);
  for (uint8_t bit = 0; bit < 2; ++bit) {
    uint8_t payload[1] = {0};
    counter.pack(bit, payload);
    CHECK_EQ(OneBitMean::unpack(payload), bit);
  }
  OneBitMean other;
  CHECK_EQ(OneBitMean::configure(eps_inf, eps_one, OneBitMean::Grid{100, 5}, other), Status::ok);
  CHECK_NE(other.description().digest, d.digest);
}

}  // namespace
}  // namespace tinyldp::test
