// SPDX-License-Identifier: Apache-2.0
// The errors `tinyldp plan --for quantiles|distribution` ranks numeric mechanisms by, before any
// report (numeric_estimate.hpp: cdf_standard_errors, median_cdf_standard_error,
// expected_distribution_w1), against the errors of many simulated fleets: values drawn evenly
// over the rows, the unbiased CDF's spread at every row and its mean W1 distance from the truth.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/numeric_estimate.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::collector {
namespace {

// Under ASan + UBSan (several times slower) fewer runs, the bounds widened by their own σ.
#ifdef TINYLDP_TEST_SANITIZED
constexpr int runs = 1000;
#else
constexpr int runs = 6000;
#endif

MechanismConfig config(MechanismId id, double eps, std::int32_t lo, std::int32_t hi) {
  MechanismConfig c{id, Epsilon::from_q32(static_cast<std::uint64_t>(eps * 4294967296.0)), 0, {}};
  c.lo = lo;
  c.hi = hi;
  return c;
}

struct Measured {
  std::vector<double> variance;  // of F̂(t) − F(t), per row t < atoms − 1
  double w1_mean = 0, w1_sd = 0;
};

// `runs` fleets of n devices whose values are drawn independently and evenly over lo … hi (the
// distribution the planned figures assume), each fleet's unbiased CDF against F(t) = (t + 1)/atoms.
Measured measure(const Mechanism& m, int n, std::uint64_t seed) {
  const NumericModel model = numeric_model(m);
  const std::uint32_t atoms = model.atom_count();
  const auto lo = static_cast<std::uint32_t>(m.config().lo), values = static_cast<std::uint32_t>(m.config().hi - m.config().lo + 1);
  EXPECT_EQ(atoms, values) << "one row per value";
  Measured out;
  out.variance.assign(atoms - 1, 0.0);
  std::vector<double> w1(runs);
  port::InsecureTestSource src(seed);
  RandomBits<port::InsecureTestSource> rng(src);
  std::vector<std::uint8_t> r;
  for (int run = 0; run < runs; ++run) {
    Aggregator a(m);
    for (int i = 0; i < n; ++i) {
      r.clear();
      EXPECT_EQ(m.privatize(static_cast<std::int32_t>(lo + static_cast<std::uint32_t>(i) % values), rng, {}, r), Status::ok);
      EXPECT_EQ(a.ingest(r), ParseError::none);
    }
    const std::vector<CdfPoint> cdf = estimate_cdf(a, model, Postprocess::none);
    double distance = 0;
    for (std::uint32_t t = 0; t + 1 < atoms; ++t) {
      const double error = cdf[t].unbiased - static_cast<double>(t + 1) / atoms;
      out.variance[t] += error * error / runs;
      distance += std::fabs(error) * (model.atom_value[t + 1] - model.atom_value[t]);
    }
    w1[static_cast<std::size_t>(run)] = distance;
    out.w1_mean += distance / runs;
  }
  for (double d : w1) out.w1_sd += (d - out.w1_mean) * (d - out.w1_mean) / (runs - 1);
  out.w1_sd = std::sqrt(out.w1_sd);
  return out;
}

struct Case {
  std::string name;
  MechanismConfig config;
  // The planned variance is exact (0), or an upper bound that may exceed the truth by up to this
  // share (haar-hrr: its errors drop each node's share of its level, at most (2p − 1)² of it).
  double slack = 0;
};

// hh's errors are its model's scaled by the largest ratio, over the nodes, of a node's variance
// at its share f (its reports' and its level's sampling of the fleet) to its variance when no
// one holds it (hierarchy_estimate.hpp): at an even spread over `atoms` leaves, a level's nodes
// each hold their leaves' share, and each level has 1/h of the reports. The truth lies between
// the model and the scaled model: the slack is 1 − 1/ratio.
double hh_slack(const NumericModel& model) {
  const TreeLevels& t = model.tree;
  double ratio = 1;
  for (std::uint32_t l = 0; l < t.levels(); ++l) {
    const unsigned below = t.branching_bits * (t.levels() - 1 - l);
    const double f = std::min(1.0, std::ldexp(1.0, static_cast<int>(below)) / model.atom_count());
    const double p = t.channel[l].p, q = t.channel[l].q, sampled = (p - q) * (p - q) * (1 - 1.0 / t.levels());
    ratio = std::max(ratio, (f * p * (1 - p) + (1 - f) * q * (1 - q) + f * (1 - f) * sampled) / (q * (1 - q)));
  }
  return 1 - 1 / ratio;
}

TEST(PlannedErrors, CdfStandardErrorsAndW1AreTheSimulatedFleetsOwn) {
  // Each mechanism over 32 values, 1500 devices a fleet, `runs` fleets. A row's measured variance
  // has relative spread √(2/runs) (0.018 at 6000 runs): within 5 of it of the plan's (per row; the
  // sum over rows too), or, where the plan's is an upper bound, between it and the bound's slack.
  // The W1 the plan quotes, √(2/π)·Σ SE(t) (each error normal), within 5σ of the runs' mean plus
  // 3 % for the normal approximation.
  std::vector<Case> cases;
  MechanismConfig sd = config(MechanismId::sd, 2.0, 0, 31);
  sd.levels = 32;
  cases.push_back({"sd", sd});
  cases.push_back({"dlaplace", config(MechanismId::dlaplace, 2.0, 0, 31)});
  cases.push_back({"sw", config(MechanismId::sw, 2.0, 0, 31)});
  MechanismConfig hh = config(MechanismId::hh, 4.0, 0, 31);  // where sampling the fleet by level weighs most
  hh.branching = 4;
  cases.push_back({"hh", hh});
  cases.push_back({"haar-hrr", config(MechanismId::haar_hrr, 1.0, 0, 31), 0.22});  // (2p − 1)² = 0.21 at ε = 1
  const int n = 1504;  // 47 devices per value
  const double spread = 5 * std::sqrt(2.0 / runs);
  std::uint64_t seed = 1;
  for (const Case& c : cases) {
    Mechanism m;
    ASSERT_EQ(Mechanism::configure(c.config, m), Status::ok) << c.name;
    const NumericModel model = numeric_model(m);
    const double slack = c.name == "hh" ? hh_slack(model) : c.slack;
    const std::vector<double> se = cdf_standard_errors(model, n);
    ASSERT_EQ(se.size(), model.atom_count() - 1) << c.name;
    EXPECT_EQ(median_cdf_standard_error(model, n), se[model.atom_count() / 2 - 1]) << c.name;
    const Measured got = measure(m, n, seed++);
    double planned_sum = 0, measured_sum = 0, w1 = 0;
    for (std::size_t t = 0; t < se.size(); ++t) {
      const double planned = se[t] * se[t], ratio = got.variance[t] / planned;
      EXPECT_LE(ratio, 1 + spread) << c.name << " row " << t << ": measured " << got.variance[t] << ", planned " << planned;
      EXPECT_GE(ratio, (1 - slack) * (1 - spread)) << c.name << " row " << t << ": measured " << got.variance[t]
                                                      << ", planned " << planned;
      planned_sum += planned;
      measured_sum += got.variance[t];
      w1 += se[t] * (model.atom_value[t + 1] - model.atom_value[t]);
    }
    EXPECT_LE(measured_sum / planned_sum, 1 + spread) << c.name;
    EXPECT_GE(measured_sum / planned_sum, (1 - slack) * (1 - spread)) << c.name;
    w1 *= std::sqrt(2 / std::numbers::pi);
    const double planned_w1 = expected_distribution_w1(model, n), sigma = got.w1_sd / std::sqrt(double{runs});
    EXPECT_NEAR(planned_w1, w1, 1e-12 * w1) << c.name;
    EXPECT_LE(got.w1_mean, planned_w1 * 1.03 + 5 * sigma) << c.name << ": planned W1 " << planned_w1;
    EXPECT_GE(got.w1_mean, planned_w1 * std::sqrt(1 - slack) * 0.97 - 5 * sigma)
        << c.name << ": planned W1 " << planned_w1;
  }
}

TEST(PlannedErrors, RefusedWhereThereIsNoDistribution) {
  // pm gives the mean only; a mechanism of one row has no CDF to rank.
  Mechanism pm;
  MechanismConfig c = config(MechanismId::pm, 1.0, 0, 31);
  ASSERT_EQ(Mechanism::configure(c, pm), Status::ok);
  EXPECT_THROW(cdf_standard_errors(numeric_model(pm), 100), std::invalid_argument);
  EXPECT_THROW(expected_distribution_w1(numeric_model(pm), 100), std::invalid_argument);
  EXPECT_THROW(median_cdf_standard_error(numeric_model(pm), 100), std::invalid_argument);
}

}  // namespace
}  // namespace tinyldp::collector
