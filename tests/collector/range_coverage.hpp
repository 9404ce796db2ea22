// SPDX-License-Identifier: Apache-2.0
// What the range mechanisms' collector tests share (test_hierarchy.cpp: hh; test_wavelet.cpp:
// haar-hrr): a mechanism's reports of a skewed population fed to an aggregate, its estimates
// against the truth, and how often the 95 % intervals of p50, p90 and two ranges hold the
// reporters' own values over many runs.
#ifndef TINYLDP_TESTS_COLLECTOR_RANGE_COVERAGE_HPP
#define TINYLDP_TESTS_COLLECTOR_RANGE_COVERAGE_HPP

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/numeric_estimate.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::collector {

// n reports of value(i), i = 0 … n − 1, from the test source seeded `seed`, into a.
template <class Value>
void feed(const Mechanism& m, std::uint64_t seed, int n, Value value, Aggregator& a) {
  port::InsecureTestSource src(seed);
  RandomBits<port::InsecureTestSource> rng(src);
  std::vector<std::uint8_t> r;
  for (int i = 0; i < n; ++i) {
    r.clear();
    ASSERT_EQ(m.privatize(value(i), rng, {}, r), Status::ok);
    ASSERT_EQ(a.ingest(r), ParseError::none);
  }
}

// A skewed population over [0, 255]: most values low, a tail to the top (run picks the order).
inline int skewed(int i, int run) {
  const int u = (i * 7919 + run * 104729) % 1000;
  return u < 600 ? u % 40 : u < 900 ? 40 + u % 60 : 100 + (u * 13) % 156;
}

// 40 000 skewed reports over [0, 255] (seed `seed`): leaves, four ranges and the mean within 5 of
// their own standard errors of the reporters' truth. The aggregate, for more checks.
inline Aggregator expect_unbiased_within_five_sigma(const Mechanism& m, std::uint64_t seed) {
  const NumericModel model = numeric_model(m);
  Aggregator a(m);
  const int n = 40000;
  feed(m, seed, n, [](int i) { return skewed(i, 0); }, a);
  std::vector<double> truth(256, 0.0);
  double mean = 0;
  for (int i = 0; i < n; ++i) {
    truth[static_cast<std::size_t>(skewed(i, 0))] += 1.0 / n;
    mean += static_cast<double>(skewed(i, 0)) / n;
  }
  const auto leaves = estimate_distribution(a, model, Postprocess::none);
  for (std::size_t x = 0; x < 256; x += 17)
    EXPECT_NEAR(leaves[x].unbiased_frequency, truth[x], 5 * leaves[x].standard_error) << x;
  for (const auto& [lo, hi] : {std::pair{0, 39}, std::pair{40, 99}, std::pair{100, 255}, std::pair{17, 200}}) {
    const ItemEstimate r = estimate_range(a, model, lo, hi, Postprocess::none);
    double want = 0;
    for (int x = lo; x <= hi; ++x) want += truth[static_cast<std::size_t>(x)];
    EXPECT_NEAR(r.unbiased_frequency, want, 5 * r.standard_error) << lo << " … " << hi;
    EXPECT_GT(r.standard_error, 0.0);
  }
  const MeanEstimate e = estimate_mean(a, model);
  EXPECT_NEAR(e.mean, mean, 5 * e.standard_error);
  return a;
}

struct Coverage {
  std::vector<int> quantiles;  // p50, p90
  std::vector<int> ranges;     // [0, 39], [60, 180]
  int least = 0;               // 95 % of the runs less 5σ of the binomial
};

// `runs` runs (seeds seed … seed + runs − 1) of 20 000 skewed values over [0, 255]: how many times
// each 95 % interval held the truth.
inline Coverage range_and_quantile_coverage(const Mechanism& m, std::uint64_t seed, int runs) {
  const NumericModel model = numeric_model(m);
  const std::vector<double> qs = {0.5, 0.9};
  const std::vector<std::pair<int, int>> ranges = {{0, 39}, {60, 180}};
  Coverage c{std::vector<int>(qs.size(), 0), std::vector<int>(ranges.size(), 0),
             static_cast<int>(std::floor(0.95 * runs - 5 * std::sqrt(runs * 0.95 * 0.05)))};
  const int n = 20000;
  for (int run = 0; run < runs; ++run) {
    Aggregator a(m);
    feed(m, seed + static_cast<std::uint64_t>(run), n, [&](int i) { return skewed(i, run); }, a);
    std::vector<int> counts(256, 0);
    for (int i = 0; i < n; ++i) ++counts[static_cast<std::size_t>(skewed(i, run))];
    const auto e = estimate_quantiles(estimate_cdf(a, model, Postprocess::none), qs);
    for (std::size_t j = 0; j < qs.size(); ++j) {
      int below = 0, truth = 0;
      while ((below += counts[static_cast<std::size_t>(truth)]) < qs[j] * n) ++truth;
      c.quantiles[j] += e[j].ci_low <= truth && truth <= e[j].ci_high;
    }
    for (std::size_t j = 0; j < ranges.size(); ++j) {
      const ItemEstimate r = estimate_range(a, model, ranges[j].first, ranges[j].second, Postprocess::none);
      int in = 0;
      for (int x = ranges[j].first; x <= ranges[j].second; ++x) in += counts[static_cast<std::size_t>(x)];
      const double share = static_cast<double>(in) / n;
      c.ranges[j] += r.ci_low <= share && share <= r.ci_high;
    }
  }
  return c;
}

// 200 runs; 40 under ASan + UBSan (tens of times slower).
#ifdef TINYLDP_TEST_SANITIZED
inline constexpr int coverage_runs = 40;
#else
inline constexpr int coverage_runs = 200;
#endif

}  // namespace tinyldp::collector

#endif
