// SPDX-License-Identifier: Apache-2.0
// The frequency estimators are unbiased and their variance is what the formulas say: R
// repetitions of n reports with fixed seeds; every item's mean error within 5 standard errors of
// 0; the empirical variances, averaged over the items nobody holds and over the held ones, within
// 6σ of Var ĉ(i) = [c_i p(1−p) + (n−c_i) q(1−q)]/(p−q)² (for items nobody holds, the BRIEF's
// n·q(1−q)/(p−q)²), where σ = √(2/(R−1)) is the standard error of one sample variance's ratio
// to the truth (the estimates are sums of n Bernoulli terms, Gaussian to within 1/n; an average
// over items is no noisier than one item, however correlated they are).
//
// Sample sizes. The plain host build runs R = 7201 repetitions of n = 2000 reports, so that
//  - the variance bound 6σ is 10 %, and
//  - a probability off by 1 % is caught: p·1.01 or q·1.01 biases some item's mean by more than
//    9 standard errors (5 for the bound, 4 for the sample's own deviation). Every case asserts
//    this power for its own channel and truth (expect_power_to_catch_one_percent).
// Under ASan + UBSan (TINYLDP_TEST_SANITIZED; -O0, tens of times slower) the same checks run on R/16
// repetitions with bounds from the same σ (variance within 40 %): that build is there for memory
// errors and undefined behaviour on these paths, and the plain build keeps the statistical power.
// Each case is its own ctest entry (gtest_discover_tests), with its own timeout.
#include "tinyldp/collector/frequency_estimate.hpp"
#include "tinyldp/collector/mechanism.hpp"
#include "tinyldp/histogram_encoding.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::collector {
namespace {

using Rng = tinyldp::RandomBits<port::InsecureTestSource, 256>;

constexpr std::uint64_t n = 2000;
constexpr int full_repetitions = 7201;
#if defined(TINYLDP_TEST_SANITIZED)
constexpr int repetitions = full_repetitions / 16;
constexpr bool full_power = false;
#else
constexpr int repetitions = full_repetitions;
constexpr bool full_power = true;
#endif
constexpr double mean_bound_se = 5;
const double variance_bound = 6 * std::sqrt(2.0 / (repetitions - 1));

// True counts: item 0 holds 60 % (so that a wrong keep probability moves its estimate far), the
// rest of the first half of the domain shares the other 40 % ∝ (i+1), the second half is empty
// (the BRIEF's formula applies exactly there).
std::vector<std::uint64_t> true_counts(std::uint32_t d) {
  std::vector<std::uint64_t> c(d, 0);
  const std::uint32_t held = d > 2 ? d / 2 : d;
  std::uint64_t weight = 0;
  for (std::uint32_t i = 1; i < held; ++i) weight += i + 1;
  const std::uint64_t rest = n * 2 / 5;
  std::uint64_t assigned = 0;
  for (std::uint32_t i = 1; i < held; ++i) {
    c[i] = rest * (i + 1) / weight;
    assigned += c[i];
  }
  c[0] = n - assigned;
  return c;
}

// The mean check's power: with the channel's p (then q) off by 1 %, some item's expected
// estimate moves by more than (5 + 4) standard errors of its mean over R repetitions.
void expect_power_to_catch_one_percent(const std::vector<std::uint64_t>& truth, Channel ch) {
  double best_p = 0, best_q = 0;
  for (std::uint64_t c : truth) {
    const double count = static_cast<double>(c);
    const double se = std::sqrt(tinyldp::collector::count_variance(n, count, ch) / full_repetitions);
    best_p = std::max(best_p, count * 0.01 * ch.p / (ch.p - ch.q) / se);
    best_q = std::max(best_q, (static_cast<double>(n) - count) * 0.01 * ch.q / (ch.p - ch.q) / se);
  }
  EXPECT_GT(best_p, mean_bound_se + 4) << "p off by 1 % would go unnoticed";
  EXPECT_GT(best_q, mean_bound_se + 4) << "q off by 1 % would go unnoticed";
  EXPECT_LE(6 * std::sqrt(2.0 / (full_repetitions - 1)), 0.1001);
}

// Runs R rounds of n reports; `support(value, rng, tally)` privatizes one value and adds the
// report's support to tally. Checks bias and variance of every item's estimate.
void check_estimator(std::uint32_t d, Channel ch, std::uint64_t seed,
                     const std::function<void(std::uint32_t, Rng&, std::vector<std::uint64_t>&)>& support) {
  const auto truth = true_counts(d);
  if (full_power) expect_power_to_catch_one_percent(truth, ch);
  std::vector<std::uint32_t> values;
  for (std::uint32_t i = 0; i < d; ++i) values.insert(values.end(), truth[i], i);
  port::InsecureTestSource source(seed);
  Rng rng(source);
  std::vector<double> sum(d, 0), sum_sq(d, 0);
  std::vector<std::uint64_t> tally(d);
  for (int r = 0; r < repetitions; ++r) {
    std::fill(tally.begin(), tally.end(), 0);
    for (std::uint32_t v : values) support(v, rng, tally);
    ASSERT_TRUE(rng.ok());
    const auto e = tinyldp::collector::estimate_frequencies(tally, n, ch);
    for (std::uint32_t i = 0; i < d; ++i) {
      const double err = e.count[i] - static_cast<double>(truth[i]);
      sum[i] += err;
      sum_sq[i] += err * err;
    }
  }
  double zero_ratio = 0, held_ratio = 0;
  int zero_items = 0, held_items = 0;
  for (std::uint32_t i = 0; i < d; ++i) {
    const double var = tinyldp::collector::count_variance(n, static_cast<double>(truth[i]), ch);
    const double mean_err = sum[i] / repetitions;
    EXPECT_LE(std::fabs(mean_err), mean_bound_se * std::sqrt(var / repetitions)) << "item " << i;
    const double sample_var = (sum_sq[i] - repetitions * mean_err * mean_err) / (repetitions - 1);
    if (truth[i] == 0) {
      zero_ratio += sample_var / var;
      ++zero_items;
    } else {
      held_ratio += sample_var / var;
      ++held_items;
    }
  }
  if (zero_items > 0) {
    // The BRIEF's formula applies to these items exactly.
    EXPECT_NEAR(zero_ratio / zero_items, 1.0, variance_bound);
  }
  ASSERT_GT(held_items, 0);
  EXPECT_NEAR(held_ratio / held_items, 1.0, variance_bound);
}

TEST(FrequencyEstimate, BinaryRrIsUnbiasedWithTheBriefVariance) {
  constexpr auto rr = tinyldp::BinaryRr::make(Epsilon::from_double(1.0));
  const Channel ch = tinyldp::collector::channel_of(rr);
  // The BRIEF: Var = N p(1−p)/(2p−1)² whatever the true bits.
  EXPECT_DOUBLE_EQ(tinyldp::collector::count_variance(n, 1234, ch),
                   n * ch.p * (1 - ch.p) / ((2 * ch.p - 1) * (2 * ch.p - 1)));
  check_estimator(2, ch, 1, [&](std::uint32_t v, Rng& rng, std::vector<std::uint64_t>& t) {
    std::uint8_t y = 0;
    ASSERT_EQ(rr.privatize(v, rng, y), Status::ok);
    ++t[1];  // every report supports "1" with p when v = 1 and 1 − p when v = 0 …
    t[1] -= (y == 0);
    t[0] += (y == 0);  // … and "0" symmetrically
  });
}

TEST(FrequencyEstimate, KaryRrIsUnbiasedWithTheBriefVariance) {
  constexpr auto krr = tinyldp::KaryRr::make(Epsilon::from_double(1.0), 16);
  const Channel ch = tinyldp::collector::channel_of(krr);
  const double e = std::exp(tinyldp::collector::to_double(krr.realized_epsilon()));
  EXPECT_NEAR(tinyldp::collector::count_variance(n, 0, ch), n * (e + 14) / ((e - 1) * (e - 1)),
              1e-6 * n);
  check_estimator(16, ch, 2, [&](std::uint32_t v, Rng& rng, std::vector<std::uint64_t>& t) {
    std::uint32_t y = 0;
    ASSERT_EQ(krr.privatize(v, rng, y), Status::ok);
    ++t[y];
  });
}

void check_ue(const tinyldp::UnaryEncoding& ue, std::uint64_t seed) {
  const std::uint32_t d = ue.domain();
  std::vector<std::uint8_t> report(ue.report_bytes());
  check_estimator(d, tinyldp::collector::channel_of(ue), seed,
                  [&](std::uint32_t v, Rng& rng, std::vector<std::uint64_t>& t) {
                    ASSERT_EQ(ue.privatize(v, rng, report.data(), report.size()), Status::ok);
                    for (std::uint32_t i = 0; i < d; ++i) t[i] += (report[i / 8] >> (i % 8)) & 1u;
                  });
}

TEST(FrequencyEstimate, OueIsUnbiasedWithTheBriefVariance) {
  constexpr auto oue = tinyldp::UnaryEncoding::make_oue(Epsilon::from_double(1.0), 64);
  const Channel ch = tinyldp::collector::channel_of(oue);
  const double e = std::exp(tinyldp::collector::to_double(oue.realized_epsilon()));
  EXPECT_NEAR(tinyldp::collector::count_variance(n, 0, ch), n * 4 * e / ((e - 1) * (e - 1)), 1e-6 * n);
  check_ue(oue, 3);
}

TEST(FrequencyEstimate, SueIsUnbiasedWithTheBriefVariance) {
  constexpr auto sue = tinyldp::UnaryEncoding::make_sue(Epsilon::from_double(1.0), 64);
  const Channel ch = tinyldp::collector::channel_of(sue);
  const double h = std::exp(tinyldp::collector::to_double(sue.realized_epsilon()) / 2);
  EXPECT_NEAR(tinyldp::collector::count_variance(n, 0, ch), n * h / ((h - 1) * (h - 1)), 1e-3 * n);
  check_ue(sue, 4);
}

// SHE: integer support (a report supports item i by y_i + T); the estimator and its variance go
// through the channel's expectations and component variances. The variance of an item nobody
// holds is n·Var(y | 0)/(E[y|1] − E[y|0])²: the discrete Laplace's 2α/(1 − α)² (α = e^(−ε/2))
// less what the clamp at ±T removes, a little below the BRIEF's continuous n·8/ε².
TEST(FrequencyEstimate, SheIsUnbiasedWithTheBriefVariance) {
  tinyldp::collector::Mechanism m;
  ASSERT_EQ(tinyldp::collector::Mechanism::configure({tinyldp::wire::MechanismId::she, Epsilon::from_ratio(1, 1), 8, {}}, m),
            Status::ok);
  const Channel ch = m.channel();
  const double alpha = std::exp(-0.5);
  const double discrete = 2 * alpha / ((1 - alpha) * (1 - alpha));
  EXPECT_NEAR(tinyldp::collector::count_variance(n, 0, ch), n * discrete, 0.005 * n * discrete);
  EXPECT_NEAR(tinyldp::collector::count_variance(n, 0, ch), n * 8.0, 0.03 * n * 8.0);
  EXPECT_LT(tinyldp::collector::count_variance(n, 0, ch), n * discrete);
  EXPECT_EQ(m.max_support_per_report(), 29u);
  std::vector<std::uint8_t> report;
  check_estimator(8, ch, 7, [&](std::uint32_t v, Rng& rng, std::vector<std::uint64_t>& t) {
    report.clear();
    ASSERT_EQ(m.privatize(v, rng, {}, report), Status::ok);
    m.add_support(std::span(report).subspan(tinyldp::wire::fixed_header_bytes), t);
  });
}

// THE: UE with the thresholded Laplace law's (p, q) at θ; the BRIEF's UE variance n·q(1−q)/(p−q)².
TEST(FrequencyEstimate, TheIsUnbiasedWithTheUeVariance) {
  constexpr auto the = tinyldp::ThresholdHistogram::make(Epsilon::from_double(1.0), 16);
  const double theta = the.theta_numerator() / 64.0;
  const double p = 1 - 0.5 * std::exp(-(1 - theta) / 2), q = 0.5 * std::exp(-theta / 2);
  EXPECT_NEAR(tinyldp::collector::count_variance(n, 0, tinyldp::collector::channel_of(the.unary())),
              n * q * (1 - q) / ((p - q) * (p - q)), 1e-4 * n);
  check_ue(the.unary(), 8);
}

TEST(FrequencyEstimate, OlhIsUnbiasedWithTheBriefVariance) {
  tinyldp::collector::Mechanism m;
  ASSERT_EQ(tinyldp::collector::Mechanism::configure(
                {tinyldp::wire::MechanismId::olh, Epsilon::from_ratio(1, 1), 16, {}}, m),
            Status::ok);
  // The BRIEF's OLH variance: n·4e^ε/(e^ε−1)² (exact for g = e^ε + 1; here g = round(e) + 1).
  const double e = std::exp(tinyldp::collector::to_double(m.realized_epsilon()));
  EXPECT_NEAR(tinyldp::collector::count_variance(n, 0, m.channel()), n * 4 * e / ((e - 1) * (e - 1)),
              0.05 * n * 4 * e / ((e - 1) * (e - 1)));
  std::vector<std::uint8_t> report;
  check_estimator(16, m.channel(), 5, [&](std::uint32_t v, Rng& rng, std::vector<std::uint64_t>& t) {
    report.clear();
    ASSERT_EQ(m.privatize(v, rng, {}, report), Status::ok);
    m.add_support(std::span(report).subspan(tinyldp::wire::fixed_header_bytes), t);
  });
}

TEST(FrequencyEstimate, HadamardResponseIsUnbiased) {
  tinyldp::collector::Mechanism m;
  ASSERT_EQ(tinyldp::collector::Mechanism::configure(
                {tinyldp::wire::MechanismId::hr, Epsilon::from_ratio(1, 1), 16, {}}, m),
            Status::ok);
  std::vector<std::uint8_t> report;
  check_estimator(16, m.channel(), 6, [&](std::uint32_t v, Rng& rng, std::vector<std::uint64_t>& t) {
    report.clear();
    ASSERT_EQ(m.privatize(v, rng, {}, report), Status::ok);
    m.add_support(std::span(report).subspan(tinyldp::wire::fixed_header_bytes), t);
  });
}

}  // namespace
}  // namespace tinyldp::collector
