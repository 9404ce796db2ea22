// SPDX-License-Identifier: Apache-2.0
// The hierarchical histogram (hh) on the collector: the aggregate's layout (each level's supports
// and report count), strict parsing, the consistent tree (exact on noiseless counts, consistent,
// and its variances equal to the estimator's exact ones under the model, computed from its
// Jacobian), unbiased leaves, ranges and means within 5σ, interval coverage of ranges and
// quantiles over many runs at fixed seeds, and its refusals (em, a level without reports).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/hierarchy_estimate.hpp"
#include "tinyldp/collector/numeric_estimate.hpp"
#include "tinyldp/collector/report_file.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "range_coverage.hpp"

namespace tinyldp::collector {
namespace {

using Rng = RandomBits<port::InsecureTestSource>;

MechanismConfig hh_config(std::int32_t lo, std::int32_t hi, std::uint32_t branching, double eps = 1.0) {
  MechanismConfig c{MechanismId::hh, Epsilon::from_q32(static_cast<std::uint64_t>(eps * 4294967296.0)), 0, {}};
  c.lo = lo;
  c.hi = hi;
  c.branching = branching;
  return c;
}
Mechanism make(const MechanismConfig& c) {
  Mechanism m;
  EXPECT_EQ(Mechanism::configure(c, m), Status::ok);
  return m;
}


// The expected support counts of n reports per level at the leaf distribution f (rounded: n
// large makes the rounding negligible).
std::vector<std::uint64_t> expected_support(const NumericModel& model, const std::vector<double>& f, double n) {
  const TreeLevels& t = model.tree;
  std::vector<std::uint64_t> support(model.size, 0);
  for (std::uint32_t l = 0; l < t.levels(); ++l) {
    const unsigned shift = t.branching_bits * (t.levels() - 1 - l);
    std::vector<double> node(t.nodes[l], 0.0);
    for (std::size_t x = 0; x < f.size(); ++x) node[x >> shift] += f[x];
    const Channel& ch = t.channel[l];
    for (std::uint32_t i = 0; i < t.nodes[l]; ++i)
      support[t.offset[l] + i] = static_cast<std::uint64_t>(std::llround(n * (ch.q + node[i] * (ch.p - ch.q))));
    support[t.offset[l] + t.nodes[l]] = static_cast<std::uint64_t>(n);
  }
  return support;
}

TEST(HierarchyModel, LevelsAreOueThenOlhAndTheAggregateHoldsEachLevelsCount) {
  // [0, 1023], B = 4, ε = 1: 5 levels of 4, 16, 64, 256, 1024 nodes; OLH's report is 32 + 2 bits,
  // so the last three hash; the aggregate: Σ(n_ℓ + 1) cells.
  const Mechanism m = make(hh_config(0, 1023, 4));
  const NumericModel model = numeric_model(m);
  ASSERT_EQ(model.tree.levels(), 5u);
  EXPECT_EQ(model.tree.nodes, (std::vector<std::uint32_t>{4, 16, 64, 256, 1024}));
  EXPECT_EQ(m.domain(), 4u + 16 + 64 + 256 + 1024 + 5);
  EXPECT_EQ(m.atoms(), 1024u);
  EXPECT_EQ(m.description().payload_bits, 8u + 34u);
  EXPECT_DOUBLE_EQ(model.tree.channel[0].p, 0.5);                 // OUE
  EXPECT_DOUBLE_EQ(model.tree.channel[4].q, 0.25);                // OLH: 1/g, g = 4
  // An uneven range: [−3, 9] has 13 values, B = 2: 4 levels of 2, 4, 7, 13 nodes.
  const NumericModel uneven = numeric_model(make(hh_config(-3, 9, 2)));
  EXPECT_EQ(uneven.tree.nodes, (std::vector<std::uint32_t>{2, 4, 7, 13}));
  // Every report counts once at its level.
  Aggregator a(m);
  feed(m, 7, 2000, [](int i) { return (i * 37) % 1024; }, a);
  std::uint64_t reports = 0;
  for (std::uint32_t l = 0; l < 5; ++l) reports += a.support()[model.tree.offset[l] + model.tree.nodes[l]];
  EXPECT_EQ(reports, 2000u);
}

TEST(HierarchyModel, ParserRefusesLevelsPaddingAndHashedValuesNoDeviceSends) {
  const Mechanism m = make(hh_config(0, 1023, 4));
  std::vector<std::uint8_t> payload(m.description().payload_bytes(), 0);
  auto parse = [&] {
    std::vector<std::uint8_t> out(m.description().report_bytes(0));
    std::size_t written = 0;
    EXPECT_EQ(wire::encode(m.description(), {}, payload.data(), out.data(), out.size(), written), Status::ok);
    Aggregator a(m);
    return a.ingest(out);
  };
  EXPECT_EQ(parse(), ParseError::value_out_of_range);  // level 0: the all-zero (failed) report
  payload[0] = 6;
  EXPECT_EQ(parse(), ParseError::value_out_of_range);  // level 6 of 5
  payload[0] = 1;
  payload[1] = 0x10;  // bit 4 of a level of 4 nodes
  EXPECT_EQ(parse(), ParseError::nonzero_padding);
  payload[1] = 0x0F;
  EXPECT_EQ(parse(), ParseError::none);
  payload[0] = 3;  // OLH over 64 nodes: seed (32 bits) then y < g = 4 in 2 bits
  payload[1] = 0x5A;
  payload[5] = 0x03;
  EXPECT_EQ(parse(), ParseError::none);
  // At ε = 1.5, g = 5: y in 3 bits, 5 … 7 no device sends.
  const Mechanism wide = make(hh_config(0, 1023, 4, 1.5));
  ASSERT_TRUE(numeric_model(wide).tree.channel[2].q == 0.2);
  std::vector<std::uint8_t> hashed(wide.description().payload_bytes(), 0);
  hashed[0] = 3;
  for (const std::uint8_t y : {4, 5}) {
    hashed[5] = y;
    std::vector<std::uint8_t> out(wide.description().report_bytes(0));
    std::size_t written = 0;
    ASSERT_EQ(wire::encode(wide.description(), {}, hashed.data(), out.data(), out.size(), written), Status::ok);
    Aggregator a(wide);
    EXPECT_EQ(a.ingest(out), y < 5 ? ParseError::none : ParseError::value_out_of_range);
  }
}

TEST(HierarchyEstimate, NoiselessCountsGiveTheDistributionAndAConsistentTree) {
  for (const std::uint32_t b : {2u, 4u, 16u}) {
    const NumericModel model = numeric_model(make(hh_config(10, 59, b)));  // 50 values
    std::vector<double> f(50);
    double total = 0;
    for (std::size_t x = 0; x < f.size(); ++x) total += f[x] = 1.0 + static_cast<double>((x * 7) % 11);
    for (double& v : f) v /= total;
    const ConsistentTree tree(model.tree, expected_support(model, f, 1e12));
    for (std::size_t x = 0; x < f.size(); ++x) EXPECT_NEAR(tree.leaves()[x], f[x], 1e-9) << "B = " << b;
    // Every node is the sum of its children, the root 1.
    const auto& nodes = tree.nodes();
    EXPECT_DOUBLE_EQ(nodes[0][0], 1.0);
    for (std::size_t l = 0; l + 1 < nodes.size(); ++l)
      for (std::size_t i = 0; i < nodes[l].size(); ++i) {
        double sum = 0;
        for (std::size_t c = i * b; c < std::min<std::size_t>((i + 1) * b, nodes[l + 1].size()); ++c) sum += nodes[l + 1][c];
        EXPECT_NEAR(nodes[l][i], sum, 1e-12);
      }
  }
}

TEST(HierarchyEstimate, VariancesAreTheEstimatorsOwnFromItsJacobian) {
  // The estimate is linear in the counts with weights that do not depend on them, so one count
  // moved by 1 moves every leaf by its column of the Jacobian, exactly. Σ_v (∂L/∂f̂_v)²σ²_ℓ(v)
  // times the inflation is then the variance the tree reports, for every range and for a
  // weighted sum — checked on an uneven tree (13 values, B = 2) and a wider one (B = 4).
  for (const auto& [hi, b] : {std::pair{12, 2u}, std::pair{40, 4u}}) {
    const NumericModel model = numeric_model(make(hh_config(0, hi, b)));
    const auto leaves = static_cast<std::uint32_t>(hi + 1);
    std::vector<double> f(leaves);
    for (std::uint32_t x = 0; x < leaves; ++x) f[x] = (1.0 + (x % 3)) / (2.0 * leaves);
    f[0] += 1 - [&] { double s = 0; for (double v : f) s += v; return s; }();
    const std::vector<std::uint64_t> support = expected_support(model, f, 10000);
    const ConsistentTree base(model.tree, support);
    // Columns: per node v, ∂leaf/∂f̂_v = (leaf(count + 1) − leaf(count))·n(p − q).
    std::vector<std::vector<double>> column;
    std::vector<double> sigma2;
    for (std::uint32_t l = 0; l < model.tree.levels(); ++l) {
      const Channel& ch = model.tree.channel[l];
      const double n = static_cast<double>(support[model.tree.offset[l] + model.tree.nodes[l]]), gap = ch.p - ch.q;
      for (std::uint32_t i = 0; i < model.tree.nodes[l]; ++i) {
        std::vector<std::uint64_t> moved = support;
        moved[model.tree.offset[l] + i] += 1;
        const ConsistentTree t(model.tree, moved);
        std::vector<double> d(leaves);
        for (std::uint32_t x = 0; x < leaves; ++x) d[x] = (t.leaves()[x] - base.leaves()[x]) * n * gap;
        column.push_back(d);
        sigma2.push_back(ch.q * (1 - ch.q) / (n * gap * gap));
      }
    }
    auto exact = [&](const std::vector<double>& w) {
      double v = 0;
      for (std::size_t j = 0; j < column.size(); ++j) {
        double dl = 0;
        for (std::uint32_t x = 0; x < leaves; ++x) dl += w[x] * column[j][x];
        v += dl * dl * sigma2[j];
      }
      return v * base.inflation();
    };
    for (std::uint32_t first = 0; first < leaves; first += 3)
      for (std::uint32_t last = first; last < leaves; last += 2) {
        std::vector<double> w(leaves, 0.0);
        std::fill(w.begin() + first, w.begin() + last + 1, 1.0);
        const double want = exact(w);
        EXPECT_NEAR(base.range_variance(first, last), want, 1e-6 * want + 1e-20) << first << " … " << last;
        EXPECT_NEAR(base.linear_variance(w), want, 1e-6 * want + 1e-20);
      }
    std::vector<double> w(leaves);
    for (std::uint32_t x = 0; x < leaves; ++x) w[x] = std::sin(x * 0.7);
    EXPECT_NEAR(base.linear_variance(w), exact(w), 1e-6 * exact(w));
    // The whole range is the root: exactly 1, no variance.
    EXPECT_NEAR(base.range_variance(0, leaves - 1), 0.0, 1e-15);
    EXPECT_GE(base.inflation(), 1.0);
  }
}


TEST(HierarchyEstimate, LeavesRangesAndMeanAreUnbiasedWithinFiveSigma) {
  // 40 000 reports at ε = 1 over [0, 255], B = 4 (OUE on 4 and 16 nodes, OLH on 64 and 256):
  // every estimate within 5 of its own standard errors of the reporters' truth.
  const Mechanism m = make(hh_config(0, 255, 4));
  const Aggregator a = expect_unbiased_within_five_sigma(m, 11);
  const NumericModel model = numeric_model(m);
  // The CDF's last point is the root: 1 with no error.
  const auto cdf = estimate_cdf(a, model, Postprocess::none);
  EXPECT_NEAR(cdf.back().unbiased, 1.0, 1e-9);
  EXPECT_NEAR(cdf.back().standard_error, 0.0, 1e-6);
}

TEST(HierarchyEstimate, RangeAndQuantileIntervalsCover) {
  // 200 runs of 20 000 skewed values over [0, 255] at ε = 2, B = 4 (40 under ASan + UBSan, tens
  // of times slower): the 95 % intervals of two ranges and of p50 and p90 cover the reporters' own
  // values at least 95 % of the runs less 5σ of the binomial (176 of 200: 5·√(200·0.95·0.05) ≈ 15;
  // these seeds give 199 and 200 for p50 and p90, 197 and 198 for the ranges: the errors' bound errs
  // on the wide side, hierarchy_estimate.hpp).
  const Coverage c = range_and_quantile_coverage(make(hh_config(0, 255, 4, 2.0)), 300, coverage_runs);
  for (std::size_t j = 0; j < c.quantiles.size(); ++j) EXPECT_GE(c.quantiles[j], c.least) << "quantile " << j;
  for (std::size_t j = 0; j < c.ranges.size(); ++j) EXPECT_GE(c.ranges[j], c.least) << "range " << j;
}

TEST(HierarchyEstimate, EmAndALevelWithoutReportsAreRefusedSayingWhy) {
  const Mechanism m = make(hh_config(0, 255, 4));
  const NumericModel model = numeric_model(m);
  Aggregator a(m);
  feed(m, 3, 3, [](int i) { return i; }, a);  // 3 reports over 4 levels: one level has none
  try {
    (void)estimate_distribution(a, model, Postprocess::none);
    FAIL() << "a level without reports was estimated";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("has no reports"), std::string::npos) << e.what();
  }
  Aggregator full(m);
  feed(m, 4, 400, [](int i) { return i % 256; }, full);
  EXPECT_THROW((void)estimate_distribution(full, model, Postprocess::em), std::invalid_argument);
  EXPECT_THROW((void)estimate_cdf(full, model, Postprocess::em), std::invalid_argument);
  EXPECT_THROW((void)observation_model(model), std::invalid_argument);
}

TEST(HierarchyReportFile, AStateWhoseLevelsDoNotAddUpIsRefused) {
  // A corrupt or forged state: each cell alone is possible (≤ the reports), but a node's support
  // above its level's reports, or levels that do not sum to the reports, no reports can make —
  // refused on reading, not estimated; a merge of two good states stays whole.
  const Mechanism m = make(hh_config(0, 255, 4));
  const NumericModel model = numeric_model(m);
  Aggregator a(m);
  feed(m, 5, 400, [](int i) { return (i * 7) % 256; }, a);
  const std::vector<std::uint8_t> good = a.serialize();
  std::string error;
  ASSERT_TRUE(Aggregator::deserialize(good, error)) << error;
  // The support counts (u64 LE each) follow "TLDPAGG4", the report-file header and the report count.
  const std::size_t counts_at = 8 + report_file_header(m, {}).size() + 8;
  auto with_cell = [&](std::uint32_t cell, std::uint64_t value) {
    std::vector<std::uint8_t> bad = good;
    for (int b = 0; b < 8; ++b) bad[counts_at + 8 * cell + static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(value >> (8 * b));
    return bad;
  };
  const std::uint32_t level1_count = model.tree.offset[0] + model.tree.nodes[0];
  const std::uint64_t n1 = a.support()[level1_count];
  for (const auto& bad : {with_cell(level1_count, n1 + 1),           // the levels sum to 401
                          with_cell(model.tree.offset[0], n1 + 1)}) {  // node 0 above its level's reports
    error.clear();
    EXPECT_FALSE(Aggregator::deserialize(bad, error));
    EXPECT_NE(error.find("do not add up"), std::string::npos) << error;
  }
  Aggregator b(m);
  feed(m, 6, 300, [](int i) { return i % 256; }, b);
  EXPECT_TRUE(a.merge(b));
  EXPECT_TRUE(m.counts_consistent(a.support(), a.reports()));
}

TEST(HierarchyReportFile, BranchingIsStoredAndAStateRoundTrips) {
  const Mechanism m = make(hh_config(-50, 205, 8));
  EXPECT_EQ(m.config().branching, 8u);
  Aggregator a(m);
  feed(m, 9, 500, [](int i) { return -50 + (i * 31) % 256; }, a);
  std::string error;
  const auto back = Aggregator::deserialize(a.serialize(), error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->mechanism().config().branching, 8u);
  EXPECT_EQ(back->support(), a.support());
  // Refusals: a branching that is not a power of two in 2 … 16, levels given.
  Mechanism x;
  EXPECT_NE(Mechanism::configure(hh_config(0, 255, 3), x), Status::ok);
  EXPECT_NE(Mechanism::configure(hh_config(0, 255, 32), x), Status::ok);
  MechanismConfig with_levels = hh_config(0, 255, 4);
  with_levels.levels = 3;
  EXPECT_NE(Mechanism::configure(with_levels, x), Status::ok);
}

}  // namespace
}  // namespace tinyldp::collector
