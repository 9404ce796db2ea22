// SPDX-License-Identifier: Apache-2.0
// The central ε of a shuffled batch (shuffle_amplification.hpp): FMT21's reference values, the
// numerical δ against a direct double sum, monotonicity, and the edges.
#include "tinyldp/collector/shuffle_amplification.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace tinyldp::collector {
namespace {

// The notes' table (numbers-open-domains-trust.md §5), from apple/ml-shuffling-amplification.
// Its numerical (lower, upper) bracket is that code's: 100 values of c per block, each block
// at its better or worse end, then 10 bisection steps from the closed form — the exact analysis
// lies between. Ours sums every c that matters (its bracket is ~10⁴ times narrower), so its
// whole bracket must lie within theirs; the closed form is one formula and matches to 3
// decimals (the table's 4 decimals, rounded).
struct ReferenceRow {
  double n, epsilon0, delta;
  double reference_lower, reference_upper, reference_closed;
};
constexpr ReferenceRow reference_rows[] = {
    {1e5, 4, 1e-6, 0.1675, 0.1725, 0.5378}, {1e6, 1, 1e-6, 0.0043, 0.0046, 0.0238},
    {1e6, 4, 1e-6, 0.0493, 0.0501, 0.2016}, {1e6, 8, 1e-6, 0.4253, 0.5149, 1.0029},
    {1e7, 4, 1e-7, 0.0168, 0.0169, 0.0728},
};

TEST(ShuffleAmplification, ReproducesTheReferenceTable) {
  for (const auto& row : reference_rows) {
    SCOPED_TRACE(testing::Message() << "n " << row.n << ", epsilon0 " << row.epsilon0 << ", delta " << row.delta);
    const ShuffledEpsilon s = shuffled_epsilon(row.epsilon0, static_cast<std::uint64_t>(row.n), row.delta);
    ASSERT_TRUE(s.closed_form.has_value());
    EXPECT_NEAR(*s.closed_form, row.reference_closed, 5e-4);
    ASSERT_TRUE(s.numerical.has_value());
    EXPECT_LE(s.numerical->lower, s.numerical->upper);
    // The reference prints 4 decimals: their bracket, widened by half its last digit.
    EXPECT_GE(s.numerical->lower, row.reference_lower - 5e-5);
    EXPECT_LE(s.numerical->upper, row.reference_upper + 5e-5);
    EXPECT_LE(s.numerical->upper - s.numerical->lower, 1e-3 * s.numerical->upper);
    EXPECT_LT(s.numerical->upper, *s.closed_form);  // the numerical bound is the tighter
  }
}

// δ(ε) of the analysis summed directly over every c and x (lgamma pmfs), both directions of the
// hockey stick, for a batch small enough: within the bracket the fast path returns.
double direct_delta(double epsilon0, std::uint64_t n, double epsilon) {
  const double p = std::exp(-epsilon0), alpha = std::exp(epsilon0) / (std::exp(epsilon0) + 1);
  const auto log_choose = [](double a, double b) { return std::lgamma(a + 1) - std::lgamma(b + 1) - std::lgamma(a - b + 1); };
  double p_over_q = 0, q_over_p = 0;
  const double trials = static_cast<double>(n - 1);
  for (double c = 0; c <= trials; ++c) {
    const double weight = std::exp(log_choose(trials, c) + c * std::log(p) + (trials - c) * std::log1p(-p));
    if (weight < 1e-30) continue;  // at most n·10⁻³⁰ of δ: below the tolerances
    const auto b = [&](double x) { return x < 0 || x > c ? 0.0 : std::exp(log_choose(c, x) - c * std::log(2.0)); };
    for (double x = 0; x <= c + 1; ++x) {
      const double px = alpha * b(x - 1) + (1 - alpha) * b(x), qx = (1 - alpha) * b(x - 1) + alpha * b(x);
      p_over_q += weight * std::max(0.0, px - std::exp(epsilon) * qx);
      q_over_p += weight * std::max(0.0, qx - std::exp(epsilon) * px);
    }
  }
  EXPECT_NEAR(p_over_q, q_over_p, 1e-12 + 1e-9 * p_over_q);  // the symmetry the fast path relies on
  return p_over_q;
}

TEST(ShuffleAmplification, DeltaBracketsTheDirectSum) {
  for (const double epsilon0 : {0.5, 2.0, 4.0})
    for (const std::uint64_t n : {2u, 40u, 600u, 3000u})
      for (const double epsilon : {0.0, 0.1, 0.3, 1.0}) {
        if (epsilon >= epsilon0 || (n == 3000 && epsilon0 < 4)) continue;  // the direct sum: O(n²)
        SCOPED_TRACE(testing::Message() << "epsilon0 " << epsilon0 << ", n " << n << ", epsilon " << epsilon);
        const double exact = direct_delta(epsilon0, n, epsilon);
        const Bracket d = numerical_delta(epsilon0, n, epsilon);
        EXPECT_LE(d.lower, exact * (1 + 1e-9));
        EXPECT_GE(d.upper, exact * (1 - 1e-9));
        EXPECT_LE(d.upper - d.lower, 2e-3 * exact + 1e-18);  // numerical_delta leaves 10⁻¹⁸ of C out
      }
}

TEST(ShuffleAmplification, TheBracketCertifiesDelta) {
  // The upper end's δ is at most δ; just below the lower end the lower δ is still above it.
  const double epsilon0 = 3, delta = 1e-6;
  const std::uint64_t n = 200000;
  const Bracket e = numerical_epsilon(epsilon0, n, delta);
  EXPECT_LE(numerical_delta(epsilon0, n, e.upper).upper, delta * (1 + 1e-6));
  EXPECT_GT(numerical_delta(epsilon0, n, e.lower * (1 - 1e-5)).lower, delta);
}

TEST(ShuffleAmplification, GrowsWithEpsilon0AndFallsWithNAndDelta) {
  const std::uint64_t n = 100000;
  double previous = 0;
  for (const double epsilon0 : {0.5, 1.0, 2.0, 3.0, 4.0, 6.0}) {
    const double e = numerical_epsilon(epsilon0, n, 1e-6).upper;
    EXPECT_GT(e, previous) << "epsilon0 " << epsilon0;
    EXPECT_LT(e, epsilon0);
    previous = e;
  }
  previous = HUGE_VAL;
  for (const std::uint64_t batch : {1000u, 10000u, 100000u, 1000000u}) {
    const double e = numerical_epsilon(2, batch, 1e-6).upper;
    EXPECT_LT(e, previous) << "n " << batch;
    previous = e;
  }
  previous = HUGE_VAL;
  for (const double delta : {1e-9, 1e-6, 1e-3, 0.1}) {
    const double e = numerical_epsilon(2, n, delta).upper;
    const double closed = closed_form_epsilon(2, n, delta).value();
    EXPECT_LT(e, previous) << "delta " << delta;
    EXPECT_LT(e, closed) << "delta " << delta;
    previous = e;
  }
}

TEST(ShuffleAmplification, OneReportIsItsOwnRandomizer) {
  // n = 1: no clone; D = (e^ε₀ − e^ε)/(e^ε₀ + 1), so ε = ln(e^ε₀ − δ(e^ε₀ + 1)): just below ε₀.
  const double epsilon0 = 2, delta = 1e-6;
  const Bracket e = numerical_epsilon(epsilon0, 1, delta);
  const double exact = std::log(std::exp(epsilon0) - delta * (std::exp(epsilon0) + 1));
  EXPECT_NEAR(e.upper, exact, 1e-6);
  EXPECT_LE(e.lower, exact);
  EXPECT_LT(e.upper, epsilon0);
}

TEST(ShuffleAmplification, SmallBatchesAmplifyLittleAndTheClosedFormSaysNotApplicable) {
  // n = 20 at ε₀ = 4: about e^-4 · 19 ≈ 0.35 clones; the closed form's condition fails.
  const ShuffledEpsilon s = shuffled_epsilon(4, 20, 1e-6);
  EXPECT_FALSE(s.closed_form.has_value());
  ASSERT_TRUE(s.numerical.has_value());
  EXPECT_LE(s.numerical->upper, 4.0);
  EXPECT_GT(s.numerical->upper, 3.5);
  // Just inside and just outside the condition ε₀ ≤ ln(n / (16 ln(4/δ))).
  const double delta = 1e-6, n = 1e6, limit = std::log(n / (16 * std::log(4 / delta)));
  EXPECT_TRUE(closed_form_epsilon(limit - 1e-9, 1000000, delta).has_value());
  EXPECT_FALSE(closed_form_epsilon(limit + 1e-9, 1000000, delta).has_value());
}

TEST(ShuffleAmplification, NoLocalLossIsNoCentralLoss) {
  const ShuffledEpsilon s = shuffled_epsilon(0, 1000, 1e-6);
  ASSERT_TRUE(s.numerical.has_value());
  EXPECT_EQ(s.numerical->upper, 0);
  EXPECT_EQ(s.numerical->lower, 0);
  ASSERT_TRUE(s.closed_form.has_value());  // 1000 ≥ 16 ln(4/δ): the condition holds at ε₀ = 0
  EXPECT_EQ(*s.closed_form, 0);
}

TEST(ShuffleAmplification, HugeEpsilon0IsNotAmplified) {
  // e^-40 · 10⁶ ≈ 4·10⁻¹⁸ clones: the batch hides nothing, ε stays ε₀ (δ takes a sliver).
  const ShuffledEpsilon s = shuffled_epsilon(40, 1000000, 1e-6);
  EXPECT_FALSE(s.closed_form.has_value());
  ASSERT_TRUE(s.numerical.has_value());
  EXPECT_NEAR(s.numerical->upper, 40, 1e-4);
  EXPECT_LE(s.numerical->upper, 40);
  EXPECT_THROW(shuffled_epsilon(701, 1000, 1e-6), std::invalid_argument);
}

TEST(ShuffleAmplification, RefusesWhatIsNotABatch) {
  EXPECT_THROW(shuffled_epsilon(1, 1000, 0), std::invalid_argument);
  EXPECT_THROW(shuffled_epsilon(1, 1000, 1), std::invalid_argument);
  EXPECT_THROW(shuffled_epsilon(1, 1000, -1e-6), std::invalid_argument);
  EXPECT_THROW(shuffled_epsilon(1, 1000, std::nan("")), std::invalid_argument);
  EXPECT_THROW(shuffled_epsilon(1, 0, 1e-6), std::invalid_argument);
  EXPECT_THROW(shuffled_epsilon(-1, 1000, 1e-6), std::invalid_argument);
  EXPECT_THROW(shuffled_epsilon(HUGE_VAL, 1000, 1e-6), std::invalid_argument);
  EXPECT_THROW(numerical_delta(1, 1000, -0.1), std::invalid_argument);
  try {
    closed_form_epsilon(1, 1000, 2);
    ADD_FAILURE() << "delta 2 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("(0, 1)"), std::string::npos) << e.what();
  }
}

TEST(ShuffleAmplification, BeyondTheNumericalLimitOnlyTheClosedForm) {
  const ShuffledEpsilon s = shuffled_epsilon(4, max_numerical_batch + 1, 1e-9);
  EXPECT_FALSE(s.numerical.has_value());
  ASSERT_TRUE(s.closed_form.has_value());
  EXPECT_LT(*s.closed_form, closed_form_epsilon(4, max_numerical_batch, 1e-9).value());
  EXPECT_THROW(numerical_epsilon(4, max_numerical_batch + 1, 1e-9), std::invalid_argument);
}

}  // namespace
}  // namespace tinyldp::collector
