// SPDX-License-Identifier: Apache-2.0
// Joint distributions from record reports (joint.hpp, record_counts.hpp), on synthetic data
// with a known joint and fixed seeds: the record-counts state (serialize, merge, refusals);
// records privatized by the core (record_rr.hpp) estimated end to end; AVD shrinking like
// 1/√n; the estimators agreeing within sampling error at small f; EM's likelihood never
// decreasing; LREMH equal to EM when LASSO prunes nothing; map (EM with a prior) at the
// posterior mode a grid search finds, one optimum from every start; the simplex projection.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tinyldp/collector/estimates.hpp"
#include "tinyldp/collector/joint.hpp"
#include "tinyldp/collector/record_counts.hpp"
#include "tinyldp/endian.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "test_memo_key.hpp"

namespace tinyldp::collector {
namespace {

constexpr Dyadic three_quarters{3, 2};

// A correlated joint over sizes (2, 3, 2): P ∝ 1 + 3·[ω0 = ω2] + 2·[ω1 = 2ω0].
std::vector<double> known_joint() {
  std::vector<double> p;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 2; ++c) p.push_back(1.0 + 3.0 * (a == c) + 2.0 * (b == 2 * a));
  double s = 0;
  for (double x : p) s += x;
  for (double& x : p) x /= s;
  return p;
}

// f given, p = 1/4, q = 3/4 (a stronger IRR than the paper's: sampling error, not the prior,
// dominates at these n).
RecordSchema schema(Dyadic f) {
  std::string error;
  auto s = RecordSchema::make({{"a", 2, {}}, {"b", 3, {"x", "y", "z"}}, {"c", 2, {}}}, f, Dyadic{1, 2},
                              three_quarters, error);
  EXPECT_TRUE(s) << error;
  return *s;
}

// n records drawn from `joint`, each privatized by the core with its device's memo key.
RecordCounts privatized(const std::vector<double>& joint, std::uint64_t n, Dyadic f, std::uint64_t seed) {
  RecordCounts counts(schema(f));
  std::mt19937_64 gen(seed);
  std::discrete_distribution<int> cell(joint.begin(), joint.end());
  port::InsecureTestSource source(seed);
  RandomBits<port::InsecureTestSource> rng(source);
  std::vector<std::uint8_t> report(counts.schema().mechanism().report_bytes());
  for (std::uint64_t i = 0; i < n; ++i) {
    const int c = cell(gen);
    const std::uint32_t values[3] = {static_cast<std::uint32_t>(c / 6), static_cast<std::uint32_t>(c / 2 % 3),
                                     static_cast<std::uint32_t>(c % 2)};
    EXPECT_EQ(counts.schema().mechanism().privatize(values, test::TestMemoKey{seed * 1000003 + i}, rng, report.data(),
                                                    report.size()),
              Status::ok);
    EXPECT_TRUE(counts.add(report));
  }
  return counts;
}

// n reports straight from the composed per-bit channel (one report per record: the same law).
JointProblem sampled(const std::vector<std::uint32_t>& sizes, const std::vector<double>& joint, double qs, double ps,
                     std::uint64_t n, std::uint64_t seed) {
  JointProblem pr = empty_joint_problem(sizes, std::vector<double>(sizes.size(), qs),
                                        std::vector<double>(sizes.size(), ps));
  std::mt19937_64 gen(seed);
  std::discrete_distribution<std::uint64_t> cell(joint.begin(), joint.end());
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::uint8_t> bits(pr.width);
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t c = cell(gen);
    for (std::size_t j = sizes.size(); j-- > 0;) {
      const std::uint32_t v = static_cast<std::uint32_t>(c % sizes[j]);
      c /= sizes[j];
      for (std::uint32_t b = 0; b < sizes[j]; ++b) bits[pr.offsets[j] + b] = u(gen) < (b == v ? qs : ps);
    }
    add_pattern(pr, bits.data());
  }
  finish_patterns(pr);
  return pr;
}

// RAPPOR's composed channel at f (p = 1/2, q = 3/4).
double q_star(double f) { return 0.75 * (1 - f / 2) + 0.5 * f / 2; }
double p_star(double f) { return 0.5 * (1 - f / 2) + 0.75 * f / 2; }

TEST(RecordCounts, SerializesMergesAndRefuses) {
  const auto joint = known_joint();
  RecordCounts a = privatized(joint, 3000, Dyadic{1, 2}, 1), b = privatized(joint, 2000, Dyadic{1, 2}, 2);
  RecordCounts both = a;
  ASSERT_TRUE(both.merge(b));
  EXPECT_EQ(both.reports(), 5000u);
  std::string error;
  const auto again = RecordCounts::deserialize(both.serialize(), error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(again->patterns(), both.patterns());
  EXPECT_EQ(again->schema().attributes()[1].labels[2], "z");
  // Merge order does not matter.
  RecordCounts other = b;
  ASSERT_TRUE(other.merge(a));
  EXPECT_EQ(other.patterns(), both.patterns());
  // Another f is another schema.
  RecordCounts c = privatized(joint, 10, Dyadic{1, 1}, 3);
  EXPECT_FALSE(both.merge(c));
  EXPECT_EQ(both.reports(), 5000u);
  // Bits past the record (7 bits: the top bit of the byte) are refused.
  EXPECT_FALSE(both.add(std::vector<std::uint8_t>{0x80}));
  EXPECT_FALSE(both.add(std::vector<std::uint8_t>{0x01, 0x00}));
  // A damaged file is refused with a reason.
  auto bytes = both.serialize();
  bytes.pop_back();
  EXPECT_FALSE(RecordCounts::deserialize(bytes, error));
  EXPECT_NE(error.find("patterns announced"), std::string::npos) << error;
  bytes = both.serialize();
  bytes[5] = 'X';
  EXPECT_FALSE(RecordCounts::deserialize(bytes, error));
}

TEST(Joint, CoreReportsEstimatedEndToEnd) {
  // 40 000 records at f = 1/16 through the core; EM and the co-occurrence estimator recover
  // the joint. Bound: cell c's co-occurrence score has E[s²] ≤ Π_j (1/4 + (q* − p*)²)/(q* − p*)²,
  // so its error is within 6 sd with overwhelming probability and AVD ≤ ½ Σ_c 6 sd; EM, the
  // efficient estimator, does at least as well.
  const auto joint = known_joint();
  const RecordCounts counts = privatized(joint, 40000, Dyadic{1, 4}, 7);
  std::string error;
  const auto pr = make_joint_problem(counts, {0, 1, 2}, error);
  ASSERT_TRUE(pr) << error;
  EXPECT_LE(pr->patterns(), 128u);
  const auto em = estimate_em(*pr, {StopRule::max_change, 1e-7, 5000});
  const auto co = estimate_cooccurrence(*pr);
  const double delta = counts.schema().q_star(0) - counts.schema().p_star(0);
  const double sd = std::sqrt(std::pow((0.25 + delta * delta) / (delta * delta), 3) / 40000);
  EXPECT_LT(average_variation_distance(em.p, joint), 0.5 * 12 * 6 * sd);
  EXPECT_LT(average_variation_distance(co.p, joint), 0.5 * 12 * 6 * sd);
  // Choosing (c, a): the marginal joint of c and a.
  const auto sub = make_joint_problem(counts, {2, 0}, error);
  ASSERT_TRUE(sub);
  std::vector<double> ca(4, 0.0);
  for (int c = 0; c < 12; ++c) ca[(c % 2) * 2 + c / 6] += joint[c];
  EXPECT_LT(average_variation_distance(estimate_em(*sub, {StopRule::max_change, 1e-7, 5000}).p, ca),
            0.5 * 4 * 6 * std::sqrt(std::pow((0.25 + delta * delta) / (delta * delta), 2) / 40000));
  EXPECT_FALSE(make_joint_problem(counts, {0, 0}, error));
  EXPECT_FALSE(make_joint_problem(counts, {3}, error));
}

TEST(Joint, AvdShrinksLikeOneOverRootN) {
  // 16× the reports: AVD ÷ 4 in expectation. Mean over 8 runs each; bounds 2.8 … 5.7. A
  // strong channel (q* = 0.85, p* = 0.15) keeps both sizes in the sampling-error regime (with
  // the paper's weak one, n ≈ 10^5 is needed before the prior stops dominating).
  const auto joint = known_joint();
  for (int estimator = 0; estimator < 2; ++estimator) {
    double small = 0, large = 0;
    for (std::uint64_t run = 0; run < 8; ++run) {
      const auto a = sampled({2, 3, 2}, joint, 0.85, 0.15, 1000, 100 + run);
      const auto b = sampled({2, 3, 2}, joint, 0.85, 0.15, 16000, 200 + run);
      const EmOptions tight{StopRule::max_change, 1e-8, 20000};
      small += average_variation_distance(estimator ? estimate_cooccurrence(a).p : estimate_em(a, tight).p, joint);
      large += average_variation_distance(estimator ? estimate_cooccurrence(b).p : estimate_em(b, tight).p, joint);
    }
    EXPECT_GT(small / large, 2.8) << estimator;
    EXPECT_LT(small / large, 5.7) << estimator;
  }
}

TEST(Joint, EstimatorsAgreeWithinSamplingErrorAtSmallF) {
  // f = 1/16, N = 50 000, sizes (3, 2): EM, the co-occurrence estimator and LREMH agree with
  // the truth cell by cell within 6 standard errors of the co-occurrence estimate (its per-
  // report score's sd, measured); LASSO agrees in its marginals (it cannot see the joint).
  std::vector<double> joint = {0.30, 0.05, 0.05, 0.25, 0.15, 0.20};
  const double f = 1.0 / 16, qs = q_star(f), ps = p_star(f);
  const auto pr = sampled({3, 2}, joint, qs, ps, 50000, 5);
  // Each cell's score sd: E[s²] over the patterns, s = Π_j (y − p*)/(q* − p*).
  std::vector<double> second(6, 0.0);
  for (std::size_t g = 0; g < pr.patterns(); ++g)
    for (int c = 0; c < 6; ++c) {
      const double s0 = (pr.bits[g * pr.width + c / 2] - ps) / (qs - ps);
      const double s1 = (pr.bits[g * pr.width + 3 + c % 2] - ps) / (qs - ps);
      second[c] += pr.counts[g] * s0 * s0 * s1 * s1;
    }
  const auto em = estimate_em(pr, {StopRule::max_change, 1e-9, 20000});
  const auto co = estimate_cooccurrence(pr);
  const auto lremh = estimate_lremh(pr, 1e-4, {StopRule::max_change, 1e-9, 20000});
  for (int c = 0; c < 6; ++c) {
    const double se = std::sqrt(second[c] / pr.reports / pr.reports);
    EXPECT_NEAR(em.p[c], joint[c], 6 * se) << c;
    EXPECT_NEAR(co.p[c], joint[c], 6 * se) << c;
    EXPECT_NEAR(lremh.p[c], joint[c], 6 * se) << c;
  }
  const auto lasso = estimate_lasso(pr, 1e-4);
  for (int v = 0; v < 3; ++v) {
    const double truth = joint[2 * v] + joint[2 * v + 1], got = lasso.p[2 * v] + lasso.p[2 * v + 1];
    EXPECT_NEAR(got, truth, 6 * std::sqrt(qs * (1 - qs) / pr.reports) / (qs - ps)) << v;
  }
}

TEST(Joint, EmLikelihoodNeverDecreases) {
  // Plain EM and SQUAREM (its safeguard keeps the accepted iterates monotone), from the uniform
  // start and from the marginals'.
  const auto joint = known_joint();
  for (double f : {0.25, 0.75})
    for (bool accelerate : {false, true})
      for (EmStart start : {EmStart::uniform, EmStart::marginals}) {
        const auto pr = sampled({2, 3, 2}, joint, q_star(f), p_star(f), 3000, 11);
        EmOptions o{StopRule::max_change, 1e-12, 3000};
        o.track_likelihood = true;
        o.accelerate = accelerate;
        o.start = start;
        const auto em = estimate_em(pr, o);
        ASSERT_GT(em.log_likelihood.size(), 10u) << f << accelerate;
        for (std::size_t i = 1; i < em.log_likelihood.size(); ++i)
          EXPECT_GE(em.log_likelihood[i], em.log_likelihood[i - 1] - 1e-9 * std::abs(em.log_likelihood[i - 1]))
              << f << " " << accelerate << " " << i;
        // The tracked value is the likelihood of the iterate (checked against the direct sum).
        const auto first = start == EmStart::uniform ? uniform_joint(pr) : product_of_marginals(pr);
        EXPECT_NEAR(em.log_likelihood[0], log_likelihood(pr, first), 1e-6 * std::abs(em.log_likelihood[0]));
        EXPECT_NEAR(em.log_likelihood.back(), log_likelihood(pr, em.p), 1e-3);
      }
}

TEST(Joint, SquaremReachesEmsMaximumInFewerSteps) {
  const auto pr = sampled({2, 3, 2}, known_joint(), q_star(0.5), p_star(0.5), 4000, 29);
  EmOptions plain{StopRule::max_change, 1e-8, 200000};
  plain.accelerate = false;
  plain.prune_below = 0;
  EmOptions fast = plain;
  fast.accelerate = true;
  const auto a = estimate_em(pr, plain), b = estimate_em(pr, fast);
  ASSERT_TRUE(a.converged && b.converged);
  EXPECT_LT(b.iterations * 5, a.iterations);
  EXPECT_GE(log_likelihood(pr, b.p), log_likelihood(pr, a.p) - 1e-6);
  // Where the likelihood is flat the maximizer is not unique: compare where it is curved.
  EXPECT_LT(average_variation_distance(a.p, b.p), 0.02);
}

// A random joint problem: sizes in [2, max_size], channel from f, random patterns.
JointProblem random_problem(std::mt19937_64& gen, std::size_t k, std::uint32_t max_size, std::uint64_t n) {
  std::uniform_int_distribution<std::uint32_t> size(2, max_size);
  std::vector<std::uint32_t> sizes(k);
  for (auto& s : sizes) s = size(gen);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> joint(empty_joint_problem(sizes, {}, {}).cells());
  for (double& x : joint) x = u(gen) < 0.3 ? 0 : u(gen);
  const double f = 0.1 + 0.8 * u(gen);
  return sampled(sizes, joint, q_star(f), p_star(f), n, gen());
}

TEST(Joint, PopcountKernelEqualsThePerCellProduct) {
  // Random small cases, one and several 64-bit words per pattern (widths up to 120 bits): the
  // same iterates and likelihoods as the reference kernel, to rounding.
  std::mt19937_64 gen(31);
  for (int round = 0; round < 12; ++round) {
    const bool wide = round >= 6;
    const auto pr = random_problem(gen, wide ? 1 + round % 2 : 1 + round % 4, wide ? 60 : 6, 500);
    for (bool accelerate : {false, true}) {
      EmOptions o{StopRule::max_change, 0, 6};
      o.accelerate = accelerate;
      o.track_likelihood = true;
      o.start = EmStart::uniform;
      EmOptions ref = o;
      ref.reference_kernel = true;
      const auto a = estimate_em(pr, o), b = estimate_em(pr, ref);
      ASSERT_EQ(a.iterations, b.iterations);
      ASSERT_EQ(a.log_likelihood.size(), b.log_likelihood.size());
      for (std::size_t i = 0; i < a.log_likelihood.size(); ++i)
        EXPECT_NEAR(a.log_likelihood[i], b.log_likelihood[i], 1e-9 * std::abs(b.log_likelihood[i])) << round;
      for (std::size_t c = 0; c < a.p.size(); ++c) EXPECT_NEAR(a.p[c], b.p[c], 1e-12) << round << " " << c;
      EXPECT_NEAR(a.log_likelihood[0], log_likelihood(pr, uniform_joint(pr)), 1e-9 * std::abs(b.log_likelihood[0]));
    }
  }
}

TEST(Joint, OneAndTwoThreadsGiveIdenticalIterates) {
  // 512 cells × ~1 900 patterns: large enough for the second thread to be used.
  const std::vector<std::uint32_t> sizes = {8, 8, 4, 2};
  std::vector<double> joint(512);
  for (std::size_t c = 0; c < joint.size(); ++c) joint[c] = 1.0 + static_cast<double>((c * 7919) % 13);
  const auto pr = sampled(sizes, joint, q_star(0.3), p_star(0.3), 3000, 37);
  ASSERT_GE(pr.patterns() * 512, std::size_t{1} << 17);
  EmOptions one{StopRule::max_change, 1e-9, 40};
  one.threads = 1;
  one.track_likelihood = true;
  EmOptions two = one;
  two.threads = 2;
  const auto a = estimate_em(pr, one), b = estimate_em(pr, two);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.p, b.p);
  EXPECT_EQ(a.log_likelihood, b.log_likelihood);
}

TEST(Joint, LremhEqualsEmWhenLassoPrunesNothing) {
  // One attribute: the design is the identity and LASSO's estimate is max(0, y − λ), all
  // positive for these frequencies — nothing pruned; EM from there reaches EM's maximum.
  const std::vector<double> joint = {0.4, 0.3, 0.2, 0.1};
  const double f = 0.25;
  const auto pr = sampled({4}, joint, q_star(f), p_star(f), 20000, 13);
  const auto lasso = estimate_lasso(pr, 1e-4);
  ASSERT_EQ(lasso.alive, 4u);
  const EmOptions o{StopRule::max_change, 1e-13, 100000};
  const auto em = estimate_em(pr, o), lremh = estimate_lremh(pr, 1e-4, o);
  ASSERT_TRUE(em.converged && lremh.converged);
  EXPECT_EQ(lremh.alive, 4u);
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(lremh.p[c], em.p[c], 1e-8) << c;
  // When LASSO does prune, LREMH keeps its zeros. (On the marginal design Σβ is nearly the
  // same for every fit, so the L1 term prunes little: here value 2 of the middle attribute
  // never occurs, its debiased marginal is near 0, and the cells holding it go.)
  std::vector<double> no_z = known_joint();
  for (int c = 0; c < 12; ++c)
    if (c / 2 % 3 == 2) no_z[c] = 0;
  const auto pr2 = sampled({2, 3, 2}, no_z, 0.85, 0.15, 5000, 17);
  const auto lasso2 = estimate_lasso(pr2, 0.05);
  const auto lremh2 = estimate_lremh(pr2, 0.05);
  ASSERT_LT(lasso2.alive, 12u);
  for (int c = 0; c < 12; ++c)
    if (lasso2.p[c] == 0) {
      EXPECT_EQ(lremh2.p[c], 0.0) << c;
    }
  EXPECT_EQ(lremh2.alive, lasso2.alive);
}

TEST(Joint, StopRulesAndTheIterationCap) {
  const auto pr = sampled({2, 3, 2}, known_joint(), q_star(0.5), p_star(0.5), 4000, 19);
  const auto capped = estimate_em(pr, {StopRule::max_change, 1e-15, 7});
  EXPECT_FALSE(capped.converged);
  EXPECT_EQ(capped.iterations, 7u);
  const auto paper = estimate_em(pr, {StopRule::largest_cell, 0.001, 10000});
  const auto strict = estimate_em(pr, {StopRule::max_change, 1e-9, 100000});
  EXPECT_TRUE(paper.converged && strict.converged);
  EXPECT_LT(paper.iterations, strict.iterations);
  // Within a memory limit too small for SQUAREM's vectors EM runs unaccelerated: the same
  // iterates as asking for no acceleration.
  EmOptions small{StopRule::max_change, 1e-9, 100000};
  small.memory_limit = 0;
  EmOptions plain{StopRule::max_change, 1e-9, 100000};
  plain.accelerate = false;
  const auto a = estimate_em(pr, small), b = estimate_em(pr, plain);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.p, b.p);
  EXPECT_GT(a.iterations, strict.iterations);
  // The start: uniform, the marginals' product, or a given one whose zeros stay zero.
  EmOptions once{StopRule::max_change, 0, 1};
  once.start = EmStart::uniform;
  EXPECT_EQ(estimate_em(pr, once).alive, 12u);
  std::vector<double> given(12, 0.1);
  given[3] = given[7] = 0;
  const auto from_given = estimate_em(pr, {StopRule::max_change, 1e-9, 1000}, &given);
  EXPECT_EQ(from_given.p[3], 0.0);
  EXPECT_EQ(from_given.p[7], 0.0);
  EXPECT_LE(from_given.alive, 10u);
}

// map's objective: the log-likelihood plus Σ α·M(ω) ln P(ω), M the product of the marginals.
double map_objective(const JointProblem& pr, const std::vector<double>& p, double alpha) {
  const auto centre = product_of_marginals(pr);
  double v = log_likelihood(pr, p);
  for (std::size_t c = 0; c < p.size(); ++c)
    if (centre[c] > 0) v += alpha * centre[c] * std::log(p[c]);
  return v;
}

TEST(Joint, MapIsThePosteriorModeAGridSearchFinds) {
  // One binary attribute, few reports, a prior as heavy as the reports: the objective over
  // P(0) ∈ (0, 1) searched on a grid of 10^-6; EM with the prior lands on its maximum, and plain
  // EM (the planted violation: the prior left out) does not.
  const auto pr = sampled({2}, {0.8, 0.2}, q_star(0.5), p_star(0.5), 300, 41);
  const double alpha = 300;
  double best = -INFINITY, at = 0;
  for (int i = 1; i < 1000000; ++i) {
    const double p0 = i * 1e-6, v = map_objective(pr, {p0, 1 - p0}, alpha);
    if (v > best) best = v, at = p0;
  }
  EmOptions o{StopRule::max_change, 1e-12, 100000};
  o.prior_strength = alpha;
  const auto map = estimate_em(pr, o);
  ASSERT_TRUE(map.converged);
  EXPECT_NEAR(map.p[0], at, 2e-6);
  o.prior_strength = 0;
  const auto ml = estimate_em(pr, o);
  EXPECT_GT(std::abs(ml.p[0] - at), 1e-3);  // 0.009 here: far beyond the grid's 10^-6
  EXPECT_GE(map_objective(pr, map.p, alpha), map_objective(pr, ml.p, alpha));
}

TEST(Joint, MapObjectiveNeverDecreasesAndItsOptimumIsOne) {
  const auto joint = known_joint();
  const auto pr = sampled({2, 3, 2}, joint, q_star(0.75), p_star(0.75), 2000, 43);
  const double alpha = 12;  // one report per cell
  std::vector<std::vector<double>> ends;
  for (bool accelerate : {false, true})
    for (EmStart start : {EmStart::uniform, EmStart::marginals}) {
      EmOptions o{StopRule::max_change, 1e-13, 200000};
      o.prior_strength = alpha;
      o.track_likelihood = true;
      o.accelerate = accelerate;
      o.start = start;
      o.prune_below = 0;
      const auto map = estimate_em(pr, o);
      ASSERT_TRUE(map.converged) << accelerate << " " << static_cast<int>(start);
      ASSERT_GT(map.log_likelihood.size(), 3u);
      for (std::size_t i = 1; i < map.log_likelihood.size(); ++i)
        EXPECT_GE(map.log_likelihood[i], map.log_likelihood[i - 1] - 1e-9 * std::abs(map.log_likelihood[i - 1]))
            << accelerate << " " << i;
      // What is tracked is the objective (not the bare likelihood).
      EXPECT_NEAR(map.log_likelihood.back(), map_objective(pr, map.p, alpha), 1e-6);
      ends.push_back(map.p);
    }
  // Strictly concave: from either start, with or without SQUAREM, the same point.
  for (std::size_t e = 1; e < ends.size(); ++e)
    for (std::size_t c = 0; c < ends[0].size(); ++c) EXPECT_NEAR(ends[e][c], ends[0][c], 1e-7) << e << " " << c;
  // Plain EM's maximum is elsewhere: the prior moved it towards the marginals' product.
  const auto ml = estimate_em(pr, {StopRule::max_change, 1e-13, 200000});
  const auto centre = product_of_marginals(pr);
  EXPECT_LT(average_variation_distance(ends[0], centre), average_variation_distance(ml.p, centre));
  // A prior of 10^12 reports is the marginals' product.
  EmOptions heavy{StopRule::max_change, 1e-13, 1000};
  heavy.prior_strength = 1e12;
  EXPECT_LT(average_variation_distance(estimate_em(pr, heavy).p, centre), 1e-6);
}

TEST(Joint, SimplexProjectionAndBaselines) {
  EXPECT_EQ(project_onto_simplex({0.5, 0.5}), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(project_onto_simplex({2.0, 0.0}), (std::vector<double>{1.0, 0.0}));
  const auto p = project_onto_simplex({0.6, 0.6, -0.2});
  EXPECT_NEAR(p[0], 0.5, 1e-15);
  EXPECT_NEAR(p[1], 0.5, 1e-15);
  EXPECT_EQ(p[2], 0.0);
  const auto pr = sampled({2, 3}, {0.1, 0.2, 0.2, 0.2, 0.2, 0.1}, q_star(0.1), p_star(0.1), 20000, 23);
  const auto u = uniform_joint(pr);
  EXPECT_NEAR(u[4], 1.0 / 6, 1e-15);
  const auto prod = product_of_marginals(pr);
  double s = 0;
  for (double x : prod) s += x;
  EXPECT_NEAR(s, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(average_variation_distance({1, 0}, {0, 1}), 1.0);
}

}  // namespace
}  // namespace tinyldp::collector
