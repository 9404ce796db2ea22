// SPDX-License-Identifier: Apache-2.0
// Estimators of the numeric mechanisms (fixed seeds, host): the stochastic-discretization mean
// is unbiased within 5 SE and its variance matches the formula within 6σ (σ = √(2/(R−1)), the
// standard error of a sample variance's ratio to the truth over R repetitions: 10 % in the plain
// build, which also asserts that a k-RR probability off by 1 % would move the mean by more than
// 9 SE); the discrete Laplace noise has mean 0 and variance 2α/(1−α)² (the discrete counterpart
// of the BRIEF's 2b²) within 10 %, away from the clamped ends. Under ASan + UBSan
// (TINYLDP_TEST_SANITIZED) the discretization runs R/16 repetitions, bounds from the same σ: that
// build checks memory and undefined behaviour; the plain build keeps the power.
#include <math.h>

#include "check.hpp"
#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/stochastic_discretization.hpp"

namespace tinyldp::test {
namespace {

using Rng = RandomBits<port::InsecureTestSource, 256>;

double as_double(Dyadic p) { return ldexp(static_cast<double>(p.num), -p.bits); }
uint64_t table[2001];

TEST(discretization_mean_is_unbiased_with_the_predicted_variance) {
  // Values in [0, 100], 5 levels, ε = 1. Estimator: k-RR-debiased level frequencies f̂_ℓ, then
  // mean = lo + W/(L−1) · Σ ℓ f̂_ℓ.
  constexpr auto sd = StochasticDiscretization::make(Epsilon::from_double(1.0), 0, 100, 5);
  const double q = as_double(sd.randomizer().other_probability());
  const double p = ldexp(static_cast<double>(sd.randomizer().keep_numerator()), -sd.randomizer().other_probability().bits);
  constexpr int n = 2000, full_reps = 7201;  // 6√(2/(R−1)) = 10 %
#if defined(TINYLDP_TEST_SANITIZED)
  constexpr int reps = full_reps / 16;
#else
  constexpr int reps = full_reps;
#endif
  port::InsecureTestSource src(11);
  Rng rng(src);
  double sum = 0, sum_sq = 0, true_mean = 0;
  for (int i = 0; i < n; ++i) true_mean += (i * 37) % 101;
  true_mean /= n;
  for (int r = 0; r < reps; ++r) {
    uint64_t hist[5] = {};
    for (int i = 0; i < n; ++i) {
      uint32_t y = 0;
      CHECK(sd.privatize((i * 37) % 101, rng, y) == Status::ok);
      ++hist[y < 5 ? y : 0];
    }
    double mean_level = 0;
    for (uint32_t l = 0; l < 5; ++l) mean_level += l * (static_cast<double>(hist[l]) / n - q) / (p - q);
    const double estimate = 100.0 / 4 * mean_level;
    sum += estimate;
    sum_sq += estimate * estimate;
  }
  // Predicted variance: one report contributes c·Σ ℓ([y = ℓ] − q)/(p − q) with c = W/(L−1);
  // Var = c²/(p−q)² · (E[ℓ_y²] − E[ℓ_y]²)/n over the reported level ℓ_y, whose distribution is
  // E_x[ p·[ℓ_y = ℓ(x)] + q·[ℓ_y ≠ ℓ(x)] ] with ℓ(x) the rounded level.
  double e1 = 0, e2 = 0;
  for (int i = 0; i < 101; ++i) {  // the values cycle through 0 … 100 uniformly
    const double position = i * 4.0 / 100.0;  // exact rounding probabilities (bias ≤ 2^-24)
    const double low = floor(position), up = position - low;
    for (int l = 0; l < 5; ++l) {
      const double pr_rounded = (l == low ? 1 - up : 0) + (l == low + 1 ? up : 0);
      const double pr_reported = pr_rounded * p + (1 - pr_rounded) * q;
      e1 += l * pr_reported / 101;
      e2 += l * l * pr_reported / 101;
    }
  }
  const double c = 25.0;
  const double predicted = c * c / ((p - q) * (p - q)) * (e2 - e1 * e1) / n;
  const double mean = sum / reps;
  const double variance = (sum_sq - reps * mean * mean) / (reps - 1);
  CHECK(fabs(mean - true_mean) <= 5 * sqrt(predicted / reps));
  CHECK(fabs(variance / predicted - 1) <= 6 * sqrt(2.0 / (reps - 1)));
#if !defined(TINYLDP_TEST_SANITIZED)
  // Power: p·1.01 moves E[f̂_ℓ] by π_ℓ·0.01p/(p−q), q·1.01 by (1−π_ℓ)·0.01q/(p−q) (π_ℓ the
  // share of values rounded to ℓ, Σ_ℓ ℓ·π_ℓ = e1_true); either bias must exceed 9 SE.
  double e1_true = 0;
  for (int i = 0; i < 101; ++i) e1_true += i * 4.0 / 100.0 / 101;  // E[ℓ(x)] = E[position]
  const double bias_p = c * e1_true * 0.01 * p / (p - q);
  const double bias_q = c * (10 - e1_true) * 0.01 * q / (p - q);  // Σ_ℓ ℓ(1−π_ℓ) = 10 − e1_true
  CHECK(bias_p > 9 * sqrt(predicted / reps));
  CHECK(bias_q > 9 * sqrt(predicted / reps));
#endif
  print("  sd: variance / predicted = ");
  print_u64(static_cast<uint64_t>(variance / predicted * 1000));
  print("e-3\n");
}

TEST(discrete_laplace_noise_has_the_geometric_variance) {
  DiscreteLaplace dl;
  CHECK_EQ(DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), -1000, 1000, 4, table, 2001, dl),
           Status::ok);
  // Step ε = 1/4 (Δ = 4): α = e^(−ε_step); the noise rarely reaches ±1000, so no clamping.
  const double alpha = exp(-ldexp(static_cast<double>(dl.realized_epsilon().q32 / 4), -32));
  const double predicted = 2 * alpha / ((1 - alpha) * (1 - alpha));
  port::InsecureTestSource src(12);
  Rng rng(src);
  const int n = 20000;
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < n; ++i) {
    int32_t y = 0;
    CHECK(dl.privatize(0, rng, y) == Status::ok);
    sum += y;
    sum_sq += static_cast<double>(y) * y;
  }
  const double mean = sum / n, variance = sum_sq / n - mean * mean;
  CHECK(fabs(mean) <= 4 * sqrt(predicted / n));
  // Var of a sample variance for this distribution: ≈ (kurtosis excess 3+) → SE ≈ 2.3 %.
  CHECK(fabs(variance / predicted - 1) <= 0.10);
}

}  // namespace
}  // namespace tinyldp::test
