// SPDX-License-Identifier: Apache-2.0
// The single-attribute EM (bayesian_update.hpp) for every mechanism of the collector's table,
// on reports of a known distribution privatized with fixed seeds: a distribution (non-negative,
// sums to 1) within 6 standard errors of the unbiased estimate of the truth on every item; a
// log-likelihood that never decreases; the optimality conditions of the constrained maximum at
// the answer (every held item's gradient equal, no empty item's above it); the unbiased
// estimate itself when that is interior and the channel invertible (k-RR, sd's levels); and
// dlaplace's distribution bounded in [0, 1] where the unbiased one reaches far outside it.
// Under ASan + UBSan (TINYLDP_TEST_SANITIZED) a sixteenth of the reports, bounds from the same σ.
#include "tinyldp/collector/bayesian_update.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/estimates.hpp"
#include "tinyldp/collector/numeric_estimate.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::collector {
namespace {

using Rng = RandomBits<port::InsecureTestSource>;

#ifdef TINYLDP_TEST_SANITIZED
constexpr std::uint32_t scale = 16;
#else
constexpr std::uint32_t scale = 1;
#endif

// A device's own memo key (memoized mechanisms): a secret drawn from the device number.
port::MemoKey device_key(std::uint32_t device) {
  std::mt19937 words(device + 1);
  std::uint8_t secret[32];
  for (std::uint8_t& b : secret) b = static_cast<std::uint8_t>(words());
  port::MemoKey key;
  key.set(secret, 0);
  return key;
}

// A numeric mechanism over [lo, hi] at ε (levels: sd's).
Mechanism numeric(MechanismId id, std::int32_t lo, std::int32_t hi, std::int64_t epsilon, std::uint32_t levels = 0) {
  MechanismConfig c;
  c.id = id;
  c.domain = 0;  // set by configure
  c.epsilon = Epsilon::from_ratio(epsilon, 1);
  c.lo = lo;
  c.hi = hi;
  c.levels = levels;
  Mechanism m;
  const ConfigureResult r = Mechanism::configure(c, m);
  EXPECT_TRUE(r) << r.reason;
  return m;
}

// n values with a skewed, known distribution over the mechanism's inputs (categories 0 … d − 1,
// or the integers lo … hi), and the truth over its rows (sd, sw: the levels or buckets they
// round to).
struct Sample {
  std::vector<std::int64_t> values;
  std::vector<double> truth;
};

Sample skewed_sample(const Mechanism& m, std::uint32_t n) {
  const std::int64_t first = m.numeric() ? m.config().lo : 0;
  const std::int64_t count = m.numeric() ? std::int64_t{m.config().hi} - m.config().lo + 1 : m.domain();
  std::mt19937_64 draw(91);
  std::geometric_distribution<std::int64_t> geometric(std::min(0.5, 3.0 / static_cast<double>(count)));
  Sample s;
  s.truth.assign(m.atoms(), 0.0);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::int64_t v = first + geometric(draw) % count;
    s.values.push_back(v);
    for (const auto& [item, weight] : m.item_weights(v)) s.truth[item] += weight / n;
  }
  return s;
}

Aggregator privatize_all(const Mechanism& m, const std::vector<std::int64_t>& values, std::uint64_t seed) {
  port::InsecureTestSource source(seed);
  Rng rng(source);
  Aggregator a(m);
  std::vector<std::uint8_t> report;
  for (std::uint32_t i = 0; i < values.size(); ++i) {
    report.clear();
    const Status s = m.memoized() ? m.privatize(values[i], rng, device_key(i), {}, report)
                                  : m.privatize(values[i], rng, {}, report);
    EXPECT_EQ(s, Status::ok);
    EXPECT_EQ(a.ingest(report), ParseError::none);
  }
  return a;
}

double sum(const std::vector<double>& p) { return std::accumulate(p.begin(), p.end(), 0.0); }

// ∂ℓ/∂P(x), the gradient of the likelihood EM maximizes (bayesian_update.hpp).
std::vector<double> gradient(const ObservationModel& o, const std::vector<std::uint64_t>& support,
                             std::uint64_t reports, const std::vector<double>& p) {
  std::vector<double> g(o.atom_count(), 0.0);
  const double n = static_cast<double>(reports);
  if (o.counts == ObservationModel::Counts::supports) {
    const double keep = o.channel.p / o.trials, other = o.channel.q / o.trials, trials = n * o.trials;
    for (std::uint32_t i = 0; i < o.items; ++i) {
      const double pi = other + (keep - other) * p[i], c = static_cast<double>(support[i]);
      g[i] = (keep - other) * (c / pi - (trials - c) / (1 - pi));
    }
    return g;
  }
  const auto at = [&](std::uint32_t x, std::uint32_t y) {
    if (!o.kernel.empty()) return o.kernel[std::size_t{x} * o.items + y];
    return x == y ? o.channel.p : o.channel.q;
  };
  for (std::uint32_t y = 0; y < o.items; ++y) {
    if (support[y] == 0) continue;
    double d = 0;
    for (std::uint32_t x = 0; x < o.atom_count(); ++x) d += p[x] * at(x, y);
    for (std::uint32_t x = 0; x < o.atom_count(); ++x) g[x] += static_cast<double>(support[y]) * at(x, y) / d;
  }
  return g;
}

// Every row of one attribute the collector configures by name, at its example configuration
// (records are estimated per attribute or jointly: multi_attribute_counts.hpp, joint.hpp).
std::vector<Mechanism> every_mechanism() {
  std::vector<Mechanism> out;
  for (const MechanismRow& row : mechanism_table()) {
    if (row.configure == nullptr || row.kind == MechanismKind::record) continue;
    Mechanism m;
    const ConfigureResult r = Mechanism::configure(row.example, m);
    EXPECT_TRUE(r) << row.name << ": " << r.reason;
    if (r) out.push_back(m);
  }
  return out;
}

TEST(BayesianUpdate, EveryMechanismGivesADistributionWithinSixSigmaOfTheTruth) {
  const std::uint32_t n = 20000 / scale;
  for (const Mechanism& m : every_mechanism()) {
    SCOPED_TRACE(name_of(m.config().id));
    const Sample s = skewed_sample(m, n);
    const Aggregator a = privatize_all(m, s.values, 7);
    if (m.mean_only()) {  // pm: no distribution, said so
      EXPECT_THROW(bayesian_update(a), std::invalid_argument);
      EXPECT_THROW(estimate(a, Postprocess::none), std::invalid_argument);
      continue;
    }
    if (m.config().id == MechanismId::hh || m.config().id == MechanismId::haar_hrr) {  // a level's node: no EM
      EXPECT_THROW(bayesian_update(a), std::invalid_argument);
      continue;  // their leaves: tests/collector/test_hierarchy.cpp, test_wavelet.cpp
    }
    BayesianUpdateOptions options;
    options.track_likelihood = true;
    const BayesianUpdateResult em = bayesian_update(a, options);
    ASSERT_EQ(em.p.size(), m.atoms());
    EXPECT_NEAR(sum(em.p), 1.0, 1e-12);
    const auto unbiased = estimate(a, Postprocess::none);
    for (std::uint32_t i = 0; i < m.atoms(); ++i) {
      EXPECT_GE(em.p[i], 0.0);
      EXPECT_LE(std::fabs(em.p[i] - s.truth[i]), 6 * unbiased[i].standard_error) << "item " << i;
    }
    ASSERT_EQ(em.log_likelihood.size(), em.iterations + 1u);
    for (std::size_t k = 1; k < em.log_likelihood.size(); ++k)
      ASSERT_GE(em.log_likelihood[k], em.log_likelihood[k - 1] - 1e-9 * std::fabs(em.log_likelihood[k - 1]))
          << "step " << k;
    EXPECT_GT(em.log_likelihood.back(), em.log_likelihood.front());
  }
}

TEST(BayesianUpdate, TheAnswerIsTheConstrainedMaximum) {
  // Karush–Kuhn–Tucker: at the maximum over the simplex every item with P > 0 has the same
  // gradient λ (= Σ P·∇ℓ), and no item at 0 has a larger one.
  const std::uint32_t n = 20000 / scale;
  for (const Mechanism& m : every_mechanism()) {
    SCOPED_TRACE(name_of(m.config().id));
    const Aggregator a = privatize_all(m, skewed_sample(m, n).values, 11);
    // No observation model (the test above checks the refusals).
    if (m.mean_only() || m.config().id == MechanismId::hh || m.config().id == MechanismId::haar_hrr) continue;
    const ObservationModel o = observation_model(m);
    BayesianUpdateOptions options;
    options.tolerance = 1e-13;
    options.max_iterations = 200000;
    const BayesianUpdateResult em = bayesian_update(o, a.support(), a.reports(), options);
    const std::vector<double> g = gradient(o, a.support(), a.reports(), em.p);
    double lambda = 0, scale_of_g = 0;
    for (std::uint32_t i = 0; i < o.atom_count(); ++i) {
      lambda += em.p[i] * g[i];
      scale_of_g = std::max(scale_of_g, std::fabs(g[i]));
    }
    for (std::uint32_t i = 0; i < o.atom_count(); ++i) {
      if (em.p[i] > 1e-4)
        EXPECT_NEAR(g[i], lambda, 1e-4 * scale_of_g) << "item " << i << " P = " << em.p[i];
      else
        EXPECT_LE(g[i], lambda + 1e-3 * scale_of_g) << "item " << i << " P = " << em.p[i];
    }
  }
}

TEST(BayesianUpdate, IsTheUnbiasedEstimateWhenThatIsInteriorAndTheChannelInvertible) {
  // k-RR (and sd's levels, a k-RR): the likelihood's unconstrained maximum is the unbiased
  // estimate, which sums to 1; when it is positive, it is EM's answer.
  MechanismConfig krr;
  krr.id = MechanismId::krr;
  krr.epsilon = Epsilon::from_ratio(2, 1);
  krr.domain = 8;
  Mechanism k_rr;
  ASSERT_TRUE(Mechanism::configure(krr, k_rr));
  for (const Mechanism& m : {k_rr, numeric(MechanismId::sd, 0, 70, 2, 8)}) {
    SCOPED_TRACE(name_of(m.config().id));
    std::vector<std::int64_t> values;
    for (std::uint32_t i = 0; i < 200000 / scale; ++i) {
      const std::uint32_t item = (i % 11 + i % 3) % m.domain();  // every item held, unequally
      values.push_back(m.numeric() ? static_cast<std::int64_t>(m.item_value(item)) : item);
    }
    const Aggregator a = privatize_all(m, values, 5);
    const auto unbiased = estimate(a, Postprocess::none);
    BayesianUpdateOptions options;
    options.tolerance = 1e-14;
    options.max_iterations = 100000;
    const BayesianUpdateResult em = bayesian_update(a, options);
    EXPECT_TRUE(em.converged);
    for (std::uint32_t i = 0; i < m.domain(); ++i) {
      ASSERT_GT(unbiased[i].unbiased_frequency, 0.01) << "the case needs an interior unbiased estimate";
      EXPECT_NEAR(em.p[i], unbiased[i].unbiased_frequency, 1e-9) << "item " << i;
    }
  }
}

TEST(BayesianUpdate, DiscreteLaplaceDistributionIsBoundedWhereTheUnbiasedOneIsNot) {
  // Ages 17 … 90 at ε = 2 with Δ = W (local DP): the unbiased per-value estimate swings far
  // outside [0, 1]; EM's (Postprocess::em) stays a distribution, with intervals inside [0, 1],
  // and is closer to the truth.
  const Mechanism m = numeric(MechanismId::dlaplace, 17, 90, 2);
  std::mt19937_64 draw(3);
  std::normal_distribution<double> age(38, 13);
  std::vector<std::int64_t> values;
  std::vector<double> truth(m.domain(), 0.0);
  const std::uint32_t n = 32561 / scale;
  for (std::uint32_t i = 0; i < n; ++i) {
    values.push_back(std::clamp<std::int64_t>(std::llround(age(draw)), 17, 90));
    truth[static_cast<std::size_t>(values.back() - 17)] += 1.0 / n;
  }
  const Aggregator a = privatize_all(m, values, 13);
  const auto raw = estimate(a, Postprocess::none);
  const BayesianUpdateResult run = bayesian_update(a);
  const auto em = estimate(a, Postprocess::em, 0.95, &run);
  double widest = 0, raw_distance = 0, em_distance = 0, total = 0;
  for (std::uint32_t i = 0; i < m.domain(); ++i) {
    widest = std::max({widest, -raw[i].ci_low, raw[i].ci_high});
    EXPECT_EQ(em[i].unbiased_frequency, raw[i].unbiased_frequency);
    EXPECT_GE(em[i].frequency, 0.0);
    EXPECT_LE(em[i].frequency, 1.0);
    EXPECT_GE(em[i].ci_low, 0.0);
    EXPECT_LE(em[i].ci_high, 1.0);
    EXPECT_LE(em[i].ci_low, em[i].frequency);
    EXPECT_GE(em[i].ci_high, em[i].frequency);
    EXPECT_DOUBLE_EQ(em[i].count, em[i].frequency * n);
    raw_distance += std::fabs(raw[i].unbiased_frequency - truth[i]) / 2;
    em_distance += std::fabs(em[i].frequency - truth[i]) / 2;
    total += em[i].frequency;
  }
  EXPECT_GT(widest, 1.0) << "the unbiased intervals of this case reach past ±1";
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_LT(em_distance, raw_distance / 4);
}

TEST(BayesianUpdate, PostprocessEmIsEmsAnswerInEveryEstimator) {
  const Mechanism m = numeric(MechanismId::dlaplace, 0, 40, 1);
  std::vector<std::int64_t> values;
  for (std::int64_t i = 0; i < 4000; ++i) values.push_back((i * i) % 41 / 2);
  const Aggregator a = privatize_all(m, values, 17);
  const NumericModel model = numeric_model(m);
  BayesianUpdateOptions options;
  options.tolerance = 1e-9;
  const BayesianUpdateResult em = bayesian_update(a, options);
  const auto items = estimate_distribution(a, model, Postprocess::em, 0.95, &em);
  for (std::uint32_t i = 0; i < m.domain(); ++i) EXPECT_EQ(items[i].frequency, em.p[i]);
  const std::vector<std::uint32_t> bins = {0, 10, 20, 30};
  const auto binned = estimate_bins(a, model, bins, Postprocess::em, 0.95, &em);
  for (std::size_t b = 0; b < bins.size(); ++b) {
    double expected = 0;
    for (std::uint32_t x = bins[b]; x < (b + 1 < bins.size() ? bins[b + 1] : m.domain()); ++x) expected += em.p[x];
    EXPECT_NEAR(binned[b].frequency, expected, 1e-12);
    EXPECT_LE(binned[b].ci_low, binned[b].frequency);
    EXPECT_GE(binned[b].ci_high, binned[b].frequency);
  }
  EXPECT_EQ(postprocess_from_name("em"), Postprocess::em);
  EXPECT_STREQ(name_of(Postprocess::em), "em");
  EXPECT_THROW(apply_postprocess({0.5, 0.5}, Postprocess::em), std::invalid_argument);
  // The estimators read the run they are given and never run EM themselves.
  const std::uint64_t runs = bayesian_update_runs();
  EXPECT_THROW(estimate_distribution(a, model, Postprocess::em), std::invalid_argument);
  EXPECT_THROW(estimate_bins(a, model, bins, Postprocess::em), std::invalid_argument);
  BayesianUpdateResult short_run = em;
  short_run.p.pop_back();
  EXPECT_THROW(estimate_distribution(a, model, Postprocess::em, 0.95, &short_run), std::invalid_argument);
  EXPECT_EQ(bayesian_update_runs(), runs);
  EXPECT_EQ(estimate_distribution(a, model, Postprocess::em, 0.95, &em)[0].frequency, em.p[0]);
  EXPECT_EQ(bayesian_update_runs(), runs);
}

TEST(BayesianUpdate, StopsAtTheCapAndRefusesMismatchedCounts) {
  ObservationModel o;
  o.items = 3;
  o.channel = {0.6, 0.2};
  const std::vector<std::uint64_t> support = {500, 300, 200};
  BayesianUpdateOptions options;
  options.max_iterations = 2;
  options.tolerance = 0;
  const BayesianUpdateResult capped = bayesian_update(o, support, 1000, options);
  EXPECT_EQ(capped.iterations, 2u);
  EXPECT_FALSE(capped.converged);
  const BayesianUpdateResult none = bayesian_update(o, std::vector<std::uint64_t>(3, 0), 0);
  EXPECT_TRUE(none.converged);
  for (double x : none.p) EXPECT_DOUBLE_EQ(x, 1.0 / 3);
  EXPECT_THROW(bayesian_update(o, std::vector<std::uint64_t>{1, 2}, 3), std::invalid_argument);
  o.kernel = {1, 0};
  EXPECT_THROW(bayesian_update(o, support, 1000), std::invalid_argument);
}

}  // namespace
}  // namespace tinyldp::collector
