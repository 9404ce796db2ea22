// SPDX-License-Identifier: Apache-2.0
// Histogram encoding (SHE, THE): configuration, realized ε, errors, fail-closed reports, layout,
// the components' law, golden reports.
#include "check.hpp"
#include "digest.hpp"
#include "frequency_check.hpp"
#include "tinyldp/histogram_encoding.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::test {
namespace {

using Rng = RandomBits<port::InsecureTestSource>;

uint64_t table[2 * 140 + 2];
constexpr size_t table_size = sizeof table / sizeof table[0];

double dyadic_value(uint64_t num, unsigned bits) {
  double v = static_cast<double>(num);
  for (unsigned i = 0; i < bits; ++i) v *= 0.5;
  return v;
}
// e^x by its series (the harness has no libm); |x| ≤ 20 keeps it within 1e-15 relative.
double exp_series(double x) {
  double term = 1, sum = 1;
  for (int n = 1; n < 200; ++n) {
    term *= x / n;
    sum += term;
  }
  return sum;
}
double as_real(Epsilon e) { return static_cast<double>(e.q32) / 4294967296.0; }

// --- SHE ---

TEST(she_default_truncation_keeps_the_clamped_noise_below_2_to_minus_10) {
  CHECK_EQ(SummationHistogram::default_truncation(Epsilon::from_ratio(1, 1)), 14u);
  CHECK_EQ(SummationHistogram::default_truncation(Epsilon::from_ratio(1, 10)), 139u);
  CHECK_EQ(SummationHistogram::default_truncation(Epsilon::from_ratio(20, 1)), 1u);
  CHECK_EQ(SummationHistogram::default_truncation(Epsilon::from_q32(1)), SummationHistogram::max_truncation);
  // e^(−εT/2) ≤ 2^-10 < e^(−ε(T−1)/2): T is the smallest such.
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 10), Epsilon::from_ratio(1, 1), Epsilon::from_ratio(3, 1)};
  for (Epsilon eps : epsilons) {
    const uint32_t t = SummationHistogram::default_truncation(eps);
    CHECK_LE(exp_series(-as_real(eps) * t / 2), 1.0 / 1024);
    CHECK_GT(exp_series(-as_real(eps) * (t - 1) / 2), 1.0 / 1024);
  }
  CHECK_EQ(SummationHistogram::component_bits_for(14), 5u);  // 30 values
  CHECK_EQ(SummationHistogram::report_bytes_for(16, 14), 10u);
}

TEST(she_realized_epsilon_is_at_most_the_request_and_close) {
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 10), Epsilon::from_ratio(1, 2), Epsilon::from_ratio(1, 1),
                              Epsilon::from_ratio(2, 1),  Epsilon::from_ratio(5, 1), Epsilon::from_ratio(20, 1)};
  for (Epsilon eps : epsilons) {
    SummationHistogram she;
    CHECK_EQ(SummationHistogram::configure(eps, 16, table, table_size, she), Status::ok);
    CHECK(she.realized_epsilon() <= eps);
    // Two components at ε/2 each, each within 1e-6 of its ε/2 (the noise's fewest-bits promise).
    CHECK_GE(she.realized_epsilon().q32, eps.q32 - 2 * 4294 - 2);
    CHECK_EQ(she.truncation(), SummationHistogram::default_truncation(eps));
    CHECK_EQ(she.random_bits_per_report(), 16u * she.noise_bits());
    // Each component's law is a distribution, exactly.
    for (uint32_t x = 0; x < 2; ++x) {
      uint64_t total = 0;
      const int32_t t = static_cast<int32_t>(she.truncation());
      for (int32_t y = -t; y <= t + 1; ++y) total += she.probability(x, y);
      CHECK_EQ(total, uint64_t{1} << she.noise_bits());
      CHECK_EQ(she.probability(x, t + 2), 0u);
    }
  }
}

TEST(she_configures_at_compile_time_like_at_run_time) {
  constexpr Epsilon eps = Epsilon::from_double(1.0);
  static constexpr auto she_table =
      SummationHistogramTable<SummationHistogram::table_entries(SummationHistogram::default_truncation(eps))>::make(
          eps, 16);
  constexpr SummationHistogram compiled = she_table.bind();
  static_assert(compiled.truncation() == 14);
  static_assert(compiled.report_bytes() == 10);
  SummationHistogram she;
  CHECK_EQ(SummationHistogram::configure(eps, 16, table, table_size, she), Status::ok);
  CHECK_EQ(compiled.realized_epsilon().q32, she.realized_epsilon().q32);
  CHECK_EQ(compiled.description().digest, she.description().digest);
  for (int32_t y = -14; y <= 15; ++y) CHECK_EQ(compiled.probability(1, y), she.probability(1, y));
}

TEST(she_rejects_bad_parameters) {
  SummationHistogram she;
  const Epsilon one = Epsilon::from_ratio(1, 1);
  CHECK(SummationHistogram::configure(one, 1, table, table_size, she) == Status::bad_parameter);
  CHECK(SummationHistogram::configure(Epsilon::from_q32(0), 4, table, table_size, she) == Status::bad_epsilon);
  CHECK(SummationHistogram::configure(Epsilon::from_q32(1), 4, table, table_size, she, 10) == Status::epsilon_too_small);
  CHECK(SummationHistogram::configure(one, 4, table, 29, she) == Status::buffer_too_small);
  CHECK(SummationHistogram::configure(one, 4, nullptr, 30, she) == Status::buffer_too_small);
  CHECK(SummationHistogram::configure(one, 4, table, table_size, she, SummationHistogram::max_truncation + 1) ==
        Status::bad_parameter);
  CHECK(SummationHistogram::configure(one, 4, table, table_size, she, 14, 1) == Status::bad_parameter);
}

TEST(she_short_buffer_out_of_domain_and_failure_emit_nothing) {
  SummationHistogram she;
  CHECK_EQ(SummationHistogram::configure(Epsilon::from_ratio(1, 1), 5, table, table_size, she), Status::ok);
  CHECK_EQ(she.report_bytes(), 4u);  // 5 components × 5 bits
  uint8_t report[5] = {0xAA, 0xAA, 0xAA, 0xAA, 0xAA};
  port::InsecureTestSource src(5);
  Rng rng(src);
  CHECK(she.privatize(3, rng, report, 3) == Status::buffer_too_small);
  CHECK_EQ(report[0] | report[1] | report[2], 0);
  report[0] = 0xFF;
  CHECK(she.privatize(5, rng, report, 4) == Status::value_out_of_domain);
  CHECK_EQ(report[0] | report[1] | report[2] | report[3], 0);
  src.fail_on_call(1);
  Rng failing(src);
  report[0] = 0xFF;
  CHECK(she.privatize(1, failing, report, 4) == Status::entropy_failed);
  CHECK_EQ(report[0] | report[1] | report[2] | report[3], 0);
}

TEST(she_writes_exactly_its_bits_and_consumes_the_same_for_every_input) {
  SummationHistogram she;
  CHECK_EQ(SummationHistogram::configure(Epsilon::from_ratio(1, 1), 5, table, table_size, she), Status::ok);
  for (uint32_t v = 0; v < 5; ++v) {
    port::InsecureTestSource src(1);
    Rng rng(src);
    uint8_t report[5] = {0, 0, 0, 0, 0x5A};
    for (int i = 0; i < 20; ++i) {
      CHECK(she.privatize(v, rng, report, 4) == Status::ok);
      CHECK_EQ(report[3] & 0xFE, 0);  // bits 25…31 stay zero
      CHECK_EQ(report[4], 0x5A);
      for (uint32_t c = 0; c < 5; ++c) CHECK_LE(she.shifted_component(report, c), 29u);
    }
    CHECK_EQ(rng.bits_drawn(), 20u * she.random_bits_per_report());
  }
}

TEST(she_components_follow_the_weights) {
  // The true position's component (x = 1) and another (x = 0) against Pr[y | x]: within 6σ, and
  // on the host with enough reports to catch the centre weight (y = x) 1 % off.
  SummationHistogram she;
  CHECK_EQ(SummationHistogram::configure(Epsilon::from_ratio(1, 1), 4, table, table_size, she), Status::ok);
#if defined(TINYLDP_TEST_ON_TARGET) || defined(TINYLDP_TEST_SANITIZED)
  const uint64_t n = 20000;
  const bool power = false;
#else
  const double p_mode = dyadic_value(she.probability(1, 1), she.noise_bits());
  const uint64_t n = trials_to_catch_one_percent(p_mode);
  const bool power = true;
#endif
  port::InsecureTestSource src(11);
  Rng rng(src);
  uint64_t hist[2][30] = {};
  uint8_t report[3];
  for (uint64_t i = 0; i < n; ++i) {
    CHECK(she.privatize(2, rng, report, sizeof report) == Status::ok);
    ++hist[1][she.shifted_component(report, 2)];
    ++hist[0][she.shifted_component(report, 0)];
  }
  const int32_t ys[] = {-14, -1, 0, 1, 2, 15};
  for (int32_t y : ys) {
    for (uint32_t x = 0; x < 2; ++x) {
      const double p = dyadic_value(she.probability(x, y), she.noise_bits());
      CHECK(within_six_sigma(hist[x][y + 14], n, p, power && y == static_cast<int32_t>(x)));
    }
  }
}

TEST(she_golden_reports_are_identical_everywhere) {
  SummationHistogram she;
  CHECK_EQ(SummationHistogram::configure(Epsilon::from_ratio(1, 1), 16, table, table_size, she), Status::ok);
  port::InsecureTestSource src(2024);
  Rng rng(src);
  Digest digest;
  uint8_t report[10];
  for (uint32_t i = 0; i < 100; ++i) {
    CHECK(she.privatize(i % 16, rng, report, sizeof report) == Status::ok);
    digest.add(report, sizeof report);
  }
  CHECK_EQ(rng.bits_drawn(), 100u * 16u * 48u);
  CHECK_EQ(digest.state, 8483424532307479184ull);
  CHECK_EQ(she.realized_epsilon().q32, 4294967296u);  // exactly the request, to 2^-32
  CHECK_EQ(she.description().digest, 2617731293u);
}

// --- THE ---

TEST(the_picks_the_least_variance_threshold) {
  // θ = j/64 at the grid's least q(1−q)/(p−q)² (the paper's θ ≈ 0.62 at ε = 1, 0.71 at ε = 2).
  const uint32_t expected[][2] = {{1, 40}, {2, 45}, {4, 52}, {8, 58}};
  for (const auto& e : expected) {
    ThresholdHistogram the;
    CHECK_EQ(ThresholdHistogram::configure(Epsilon::from_ratio(e[0], 1), 16, the), Status::ok);
    CHECK_EQ(the.theta_numerator(), e[1]);
    // Its variance is no larger than at the neighbouring grid points (real-valued law).
    const double eps = e[0];
    auto variance = [&](uint32_t j) {
      const double theta = j / 64.0;
      const double p = 1 - 0.5 * exp_series(-eps * (1 - theta) / 2), q = 0.5 * exp_series(-eps * theta / 2);
      return q * (1 - q) / ((p - q) * (p - q));
    };
    CHECK_LE(variance(e[1]), variance(e[1] - 1));
    CHECK_LE(variance(e[1]), variance(e[1] + 1));
  }
}

TEST(the_probabilities_are_the_thresholded_laplace_law_on_the_safe_side) {
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 10), Epsilon::from_ratio(1, 2), Epsilon::from_ratio(1, 1),
                              Epsilon::from_ratio(2, 1),  Epsilon::from_ratio(5, 1), Epsilon::from_ratio(20, 1)};
  for (Epsilon eps : epsilons) {
    ThresholdHistogram the;
    CHECK_EQ(ThresholdHistogram::configure(eps, 16, the), Status::ok);
    const double e = as_real(eps), theta = the.theta_numerator() / 64.0;
    const double p_law = 1 - 0.5 * exp_series(-e * (1 - theta) / 2), q_law = 0.5 * exp_series(-e * theta / 2);
    const double p = dyadic_value(the.p().num, the.p().bits), q = dyadic_value(the.q().num, the.q().bits);
    CHECK_LE(p, p_law);
    CHECK_GE(q, q_law);
    CHECK_LE(p_law - p, 1e-6);
    CHECK_LE(q - q_law, 1e-6);
    // The realized ε is UE's, below the request, and within the tolerance of the real law's
    // loss ln((2e^(ε(1−θ)/2) − 1)(2e^(εθ/2) − 1)): e^realized vs the law's ratio.
    CHECK(the.realized_epsilon() <= eps);
    const double law_ratio = (2 * exp_series(e * (1 - theta) / 2) - 1) * (2 * exp_series(e * theta / 2) - 1);
    const double realized_ratio = exp_series(as_real(the.realized_epsilon()));
    CHECK_LE(realized_ratio, law_ratio * (1 + 1e-9));
    CHECK_GE(realized_ratio, law_ratio * (1 - 1e-6));
    CHECK_LT(law_ratio, exp_series(e));
  }
}

TEST(the_reports_are_unary_encoding_reports) {
  constexpr ThresholdHistogram the = ThresholdHistogram::make(Epsilon::from_double(1.0), 20);
  static_assert(the.theta_numerator() == 40);
  static_assert(the.report_bytes() == 3);
  static_assert(the.description().id == wire::MechanismId::the);
  UnaryEncoding ue;
  CHECK_EQ(UnaryEncoding::configure(the.p(), the.q(), 20, ue), Status::ok);
  CHECK_EQ(ue.realized_epsilon().q32, the.realized_epsilon().q32);
  port::InsecureTestSource s1(7), s2(7);
  Rng a(s1), b(s2);
  uint8_t ra[3], rb[3];
  for (uint32_t i = 0; i < 50; ++i) {
    CHECK(the.privatize(i % 20, a, ra, sizeof ra) == Status::ok);
    CHECK(ue.privatize(i % 20, b, rb, sizeof rb) == Status::ok);
    CHECK_EQ((ra[0] ^ rb[0]) | (ra[1] ^ rb[1]) | (ra[2] ^ rb[2]), 0);
  }
  // Fail-closed like UE.
  port::InsecureTestSource src(3);
  src.fail_on_call(1);
  Rng failing(src);
  ra[0] = 0xFF;
  CHECK(the.privatize(1, failing, ra, sizeof ra) == Status::entropy_failed);
  CHECK_EQ(ra[0] | ra[1] | ra[2], 0);
}

TEST(the_rejects_bad_parameters) {
  ThresholdHistogram the;
  CHECK(ThresholdHistogram::configure(Epsilon::from_ratio(1, 1), 1, the) == Status::bad_parameter);
  CHECK(ThresholdHistogram::configure(Epsilon::from_q32(0), 4, the) == Status::bad_epsilon);
  CHECK(ThresholdHistogram::configure(Epsilon::from_ratio(21, 1), 4, the) == Status::bad_epsilon);
  Precision none{};
  none.max_bits = 0;
  CHECK(ThresholdHistogram::configure(Epsilon::from_ratio(1, 1), 4, the, none) == Status::bad_parameter);
}

}  // namespace
}  // namespace tinyldp::test
