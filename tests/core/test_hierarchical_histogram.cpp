// SPDX-License-Identifier: Apache-2.0
// The hierarchical histogram (hierarchical_histogram.hpp): the tree (levels, nodes, OUE or OLH
// per level by the smaller report, the payload), every refusal, the realized ε as the larger
// oracle's that a level uses, the device's level from its memo key (fixed, uniform, independent
// per attribute), fail-closed ends, the same bits for every value, each level's output law by
// statistics, golden reports. Exhaustive ε: tests/privacy/test_exhaustive_hierarchical_histogram.cpp.
#include "check.hpp"
#include "leveled_reports.hpp"
#include "frequency_check.hpp"
#include "mechanism_checks.hpp"
#include "test_memo_key.hpp"
#include "tinyldp/hierarchical_histogram.hpp"

namespace tinyldp::test {
namespace {

constexpr Epsilon one = Epsilon::from_ratio(1, 1);
// [0, 1000] in a 4-ary tree: 5 levels of 4, 16, 63, 251 and 1001 nodes. OLH's report is 34 bits
// (a 32-bit seed, g = 4): levels 1–2 report through OUE, 3–5 through OLH; 6-byte reports.
constexpr auto hh = HierarchicalHistogram::make(one, 0, 1000);
constexpr size_t hh_bytes = 6;
static_assert(hh.report_bytes() == hh_bytes);

// The shared checks' shapes for this mechanism (leveled_reports.hpp).
template <size_t Bytes>
using Report = LeveledReport<Bytes>;
template <size_t Bytes>
using AtLevel = test::AtLevel<HierarchicalHistogram, Bytes>;
template <size_t Bytes>
using Fleet = test::Fleet<HierarchicalHistogram, Bytes>;

// A report's level is a level, and its bits past the level's oracle report are zero.
bool well_formed(const HierarchicalHistogram& m, const uint8_t* r) {
  const uint32_t level = r[0];
  if (level < 1 || level > m.levels()) return false;
  const uint32_t used = 8 + m.oracle_bits(level);
  for (uint32_t bit = used; bit < 8 * m.report_bytes(); ++bit)
    if ((static_cast<uint32_t>(r[bit / 8]) >> (bit % 8)) & 1u) return false;
  return true;
}

TEST(the_tree_its_oracles_and_the_payload) {
  static_assert(hh.configured() && hh.levels() == 5 && hh.branching() == 4 && hh.domain() == 1001);
  static_assert(hh.low() == 0 && hh.high() == 1000 && hh.attribute() == 0);
  static_assert(hh.hashing().range() == 4 && hh.hashing().payload_bits() == 34);
  const uint32_t nodes[] = {4, 16, 63, 251, 1001};
  for (uint32_t level = 1; level <= 5; ++level) {
    CHECK_EQ(hh.nodes(level), nodes[level - 1]);
    CHECK_EQ(hh.leaf_shift(level), 2 * (5 - level));
    CHECK_EQ(hh.hashed(level), level >= 3);
    CHECK_EQ(hh.oracle_bits(level), level >= 3 ? 34u : nodes[level - 1]);
    CHECK_EQ(hh.unary_at(level).domain(), nodes[level - 1]);
    CHECK_EQ(hh.hashing_at(level).domain(), nodes[level - 1]);
  }
  // The level byte and the smaller of the leaves' OUE and OLH's report.
  static_assert(hh.payload_bits() == 8 + 34);
  static_assert(hh.description().id == wire::MechanismId::hh && hh.description().payload_bits == 42);
  // A binary tree over 8 values: 2, 4 and 8 nodes, all OUE (8 bits are fewer than OLH's 34).
  constexpr auto binary = HierarchicalHistogram::make(one, -4, 3, 2);
  static_assert(binary.levels() == 3 && binary.nodes(1) == 2 && binary.nodes(2) == 4 && binary.nodes(3) == 8);
  static_assert(!binary.hashed(3) && binary.payload_bits() == 16 && binary.report_bytes() == 2);
  // 16-ary over 256 values: 16 nodes (OUE), then the 256 leaves (OLH).
  constexpr auto wide = HierarchicalHistogram::make(one, 0, 255, 16);
  static_assert(wide.levels() == 2 && wide.nodes(1) == 16 && !wide.hashed(1) && wide.hashed(2));
  // A range that is no power of B: [0, 4] in a 4-ary tree, 2 then 5 nodes.
  constexpr auto uneven = HierarchicalHistogram::make(one, 10, 14);
  static_assert(uneven.levels() == 2 && uneven.nodes(1) == 2 && uneven.nodes(2) == 5 && uneven.payload_bits() == 13);
  // d ≤ B: one level, the leaves.
  static_assert(HierarchicalHistogram::make(one, 0, 1, 16).levels() == 1);
  // The largest range, 2^24 values from INT32_MIN, in a 16-ary tree: 6 levels.
  HierarchicalHistogram largest;
  CHECK_EQ(HierarchicalHistogram::configure(one, INT32_MIN, INT32_MIN + (1 << 24) - 1, 16, largest), Status::ok);
  CHECK_EQ(largest.levels(), 6u);
  CHECK_EQ(largest.nodes(1), 16u);
  CHECK_EQ(largest.nodes(6), 1u << 24);
  CHECK_EQ(largest.high(), INT32_MIN + (1 << 24) - 1);
  // The header's bound: at ε = 8 OLH's g = 2982 (12 bits): 1 + 6 bytes.
  static_assert(HierarchicalHistogram::make(Epsilon::from_ratio(8, 1), 0, 1 << 20).report_bytes() == 7);
  // The digest tells configurations apart: B, the range, the attribute, OLH's seed bits.
  const uint32_t digest = hh.description().digest;
  CHECK_NE(HierarchicalHistogram::make(one, 0, 1000, 2).description().digest, digest);
  CHECK_NE(HierarchicalHistogram::make(one, 1, 1001).description().digest, digest);
  CHECK_NE(HierarchicalHistogram::make(one, 0, 1000, 4, {}, 1).description().digest, digest);
  HierarchicalHistogram short_seed;
  CHECK_EQ(HierarchicalHistogram::configure(one, 0, 1000, 4, short_seed, {}, 0, 16), Status::ok);
  CHECK_NE(short_seed.description().digest, digest);
  CHECK_EQ(short_seed.hashing().payload_bits(), 18u);
  CHECK(short_seed.hashed(3) && !short_seed.hashed(2));
}

TEST(refuses_bad_configurations) {
  HierarchicalHistogram x;
  const uint32_t bad_branching[] = {0, 1, 3, 6, 12, 17, 32};
  for (uint32_t b : bad_branching) CHECK_EQ(HierarchicalHistogram::configure(one, 0, 100, b, x), Status::bad_parameter);
  CHECK_EQ(HierarchicalHistogram::configure(one, 5, 5, 4, x), Status::bad_parameter);   // d = 1
  CHECK_EQ(HierarchicalHistogram::configure(one, 5, 4, 4, x), Status::bad_parameter);   // hi < lo
  CHECK_EQ(HierarchicalHistogram::configure(one, 0, 1 << 24, 4, x), Status::bad_parameter);  // d = 2^24 + 1
  CHECK_EQ(HierarchicalHistogram::configure(one, INT32_MIN, INT32_MAX, 4, x), Status::bad_parameter);
  CHECK_EQ(HierarchicalHistogram::configure(Epsilon::from_q32(0), 0, 100, 4, x), Status::bad_epsilon);
  CHECK_EQ(HierarchicalHistogram::configure(Epsilon{max_epsilon.q32 + 1}, 0, 100, 4, x), Status::bad_epsilon);
  CHECK_EQ(HierarchicalHistogram::configure(Epsilon::from_q32(1), 0, 100, 4, x), Status::epsilon_too_small);
  CHECK_EQ(HierarchicalHistogram::configure(one, 0, 100, 4, x, {}, max_memo_attribute + 1), Status::bad_parameter);
  CHECK_EQ(HierarchicalHistogram::configure(one, 0, 100, 4, x, Precision{0, 0}), Status::bad_parameter);
  CHECK_EQ(HierarchicalHistogram::configure(one, 0, 100, 4, x, Precision{3, 1u << 11}), Status::precision_too_low);
  CHECK_EQ(HierarchicalHistogram::configure(one, 0, 100, 4, x, {}, 0, 0), Status::bad_parameter);   // OLH's seed
  CHECK_EQ(HierarchicalHistogram::configure(one, 0, 100, 4, x, {}, 0, 33), Status::bad_parameter);
  CHECK(!x.configured());  // a refused configure leaves it as it was
  CHECK(!HierarchicalHistogram{}.configured());
  // The edges that are allowed.
  CHECK_EQ(HierarchicalHistogram::configure(one, 0, 1, 2, x, {}, max_memo_attribute), Status::ok);
  CHECK_EQ(x.attribute(), max_memo_attribute);
  CHECK_EQ(x.memo_attribute_word(), memo_attribute(wire::MechanismId::hh, max_memo_attribute));
}

// The larger realized ε of OUE and OLH over the levels that use each, from the parts.
Epsilon larger_used(const HierarchicalHistogram& m) {
  Epsilon most{};
  for (uint32_t level = 1; level <= m.levels(); ++level) {
    const Epsilon e = m.hashed(level) ? m.hashing().realized_epsilon() : m.unary().realized_epsilon();
    if (most < e) most = e;
  }
  return most;
}

TEST(realized_epsilon_is_the_larger_oracle_a_level_uses) {
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 10), Epsilon::from_ratio(1, 2), one, Epsilon::from_ratio(2, 1),
                              Epsilon::from_ratio(4, 1),  Epsilon::from_ratio(8, 1)};
  const uint32_t branchings[] = {2, 4, 16};
  for (Epsilon eps : epsilons) {
    for (uint32_t b : branchings) {
      HierarchicalHistogram m;
      CHECK_EQ(HierarchicalHistogram::configure(eps, -500, 99999, b, m), Status::ok);
      CHECK(m.hashed(m.levels()) && !m.hashed(1));  // both oracles in use
      CHECK(m.realized_epsilon() == larger_used(m));
      // Tight to ε: both oracles are, within the default tolerance.
      CHECK(m.realized_epsilon() <= eps);
      CHECK_GE(m.realized_epsilon().q32 + Precision{}.tolerance_q32, eps.q32);
      uint64_t most = 0;
      for (uint32_t level = 1; level <= m.levels(); ++level)
        most = m.random_bits_at(level) > most ? m.random_bits_at(level) : most;
      CHECK_EQ(m.random_bits_per_report(), most);
    }
  }
  // With OLH's seed cut short (the exhaustive tests') the oracles' ε differ, and only the used
  // ones count: ε = 2 at 5 bits gives OUE 1.95, OLH 1.30. Over 8 values in a binary tree both
  // are used (OUE's); over 16 in a 16-ary tree with a 1-bit seed every level hashes (OLH's).
  const Precision coarse{5, 1u << 31};
  const Epsilon two = Epsilon::from_ratio(2, 1);
  HierarchicalHistogram mixed, hashed_only;
  CHECK_EQ(HierarchicalHistogram::configure(two, 0, 7, 2, mixed, coarse, 0, 2), Status::ok);
  CHECK_EQ(HierarchicalHistogram::configure(two, 0, 15, 16, hashed_only, coarse, 0, 1), Status::ok);
  CHECK(mixed.hashing().realized_epsilon() < mixed.unary().realized_epsilon());
  CHECK(mixed.hashed(3) && !mixed.hashed(2));
  CHECK(mixed.realized_epsilon() == mixed.unary().realized_epsilon());
  CHECK(hashed_only.hashed(1));
  CHECK(hashed_only.realized_epsilon() == hashed_only.hashing().realized_epsilon());
  CHECK(hashed_only.realized_epsilon() < hashed_only.unary().realized_epsilon());
}

TEST(a_device_keeps_one_uniform_level_per_attribute) {
  // Attribute 1 of the same tree: its own level, drawn independently from the same key.
  constexpr auto other = HierarchicalHistogram::make(one, 0, 1000, 4, {}, 1);
  const uint32_t devices = fleet_size(25000);
  uint32_t by_level[5] = {}, joint[5][5] = {};
  bool in_range = true, stable = true;
  for (uint32_t i = 0; i < devices; ++i) {
    const TestMemoKey key{i + 1};
    const uint32_t a = hh.level_of(key), b = other.level_of(key);
    in_range = in_range && a >= 1 && a <= 5 && b >= 1 && b <= 5;
    if (!in_range) break;
    stable = stable && hh.level_of(key) == a && other.level_of(key) == b;
    ++by_level[a - 1];
    ++joint[a - 1][b - 1];
  }
  CHECK(in_range);
  CHECK(stable);
  // Uniform over 1 … h, and the pair uniform over the h² cells (independent), each count within
  // 6σ of its binomial mean.
  for (uint32_t a = 0; a < 5; ++a) {
    CHECK(within_six_sigma(by_level[a], devices, 1.0 / 5, false));
    for (uint32_t b = 0; b < 5; ++b) CHECK(within_six_sigma(joint[a][b], devices, 1.0 / 25, false));
  }
  // A new key generation draws the level again: 4 in 5 devices move (σ = 4 of 100).
  uint32_t moved = 0;
  for (uint64_t i = 1; i <= 100; ++i) moved += hh.level_of(TestMemoKey{i, 0}) != hh.level_of(TestMemoKey{i, 1});
  CHECK(moved >= 56 && moved <= 100);
  // Every report carries the device's level, whatever the value and the noise.
  port::InsecureTestSource src(12);
  Rng rng(src);
  bool carried = true;
  for (uint64_t i = 1; i <= 40; ++i) {
    const TestMemoKey key{i};
    const int32_t values[] = {0, 377, 1000};
    for (int32_t v : values) {
      uint8_t report[hh_bytes];
      carried = carried && hh.privatize(v, key, rng, report, sizeof report) == Status::ok &&
                report[0] == hh.level_of(key) && well_formed(hh, report);
    }
  }
  CHECK(carried);
}

TEST(out_of_range_entropy_failure_and_refusals_emit_nothing) {
  check_leveled_refusals<hh_bytes>(hh);  // leveled_reports.hpp
}

TEST(consumes_the_same_bits_for_every_value) {
  const int32_t values[] = {0, 1, 499, 999, 1000};
  for (uint32_t level = 1; level <= 5; ++level) {
    check_same_bits(AtLevel<hh_bytes>{hh, level}, values, 7 + level, 12);
    // A value out of range draws them too (and its report is zero).
    port::InsecureTestSource src(3);
    Rng rng(src);
    uint8_t report[hh_bytes];
    CHECK_EQ(hh.privatize_at_level(-3, level, rng, report, sizeof report), Status::value_out_of_domain);
    CHECK_EQ(rng.bits_drawn(), hh.random_bits_at(level));
  }
  // Through the key: the device's level's bits.
  for (uint64_t device = 1; device <= 10; ++device) {
    port::InsecureTestSource src(device);
    Rng rng(src);
    uint8_t report[hh_bytes];
    CHECK_EQ(hh.privatize(250, TestMemoKey{device}, rng, report, sizeof report), Status::ok);
    CHECK_EQ(rng.bits_drawn(), hh.random_bits_at(hh.level_of(TestMemoKey{device})));
  }
}

TEST(each_level_reports_its_node_through_its_oracle) {
  // Value 999: node 15 of level 2's 16 (OUE: its bit with p = 1/2, the others with q) and node
  // 249 of level 4's 251 (OLH: the hashed value is the node's hash with the k-RR's p).
  const Sample sample = powered_sample(0.5, 4000);
  const uint32_t n = sample.n;
  port::InsecureTestSource src(99);
  Rng rng(src);
  uint64_t true_bit = 0, other_bits = 0, hashed_true = 0;
  bool formed = true;
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t report[hh_bytes];
    CHECK_EQ(hh.privatize_at_level(999, 2, rng, report, sizeof report), Status::ok);
    formed = formed && report[0] == 2 && well_formed(hh, report);
    const uint32_t bits = uint32_t{report[1]} | uint32_t{report[2]} << 8;
    true_bit += (bits >> 15) & 1u;
    other_bits += static_cast<uint64_t>(__builtin_popcount(bits & 0x7FFFu));
    CHECK_EQ(hh.privatize_at_level(999, 4, rng, report, sizeof report), Status::ok);
    formed = formed && report[0] == 4 && well_formed(hh, report);
    const LocalHashingReport r = LocalHashingReport::unpack(report + 1, 32, 4);
    formed = formed && r.value < 4;
    hashed_true += r.value == local_hash(r.seed, 249, 4);
  }
  CHECK(formed);
  CHECK(within_six_sigma(true_bit, n, as_double(hh.unary().p()), sample.power));
  CHECK(within_six_sigma(other_bits, uint64_t{n} * 15, as_double(hh.unary().q()), false));
  const KaryRr& krr = hh.hashing().randomizer();
  const double keep = as_double(Dyadic{krr.keep_numerator(), krr.other_probability().bits});
  CHECK(within_six_sigma(hashed_true, n, keep, false));
}

TEST(golden_reports_are_identical_everywhere) {
  // 300 devices, one report each at its own level (every level and both oracles).
  const auto valid = [](const Report<hh_bytes>& r) { return well_formed(hh, r.bytes); };
  CHECK_EQ(golden_digest(Fleet<hh_bytes>{hh}, 300, [](uint32_t i) { return static_cast<int32_t>(i * 337 % 1001); },
                         valid),
           15224189345040174904ull);
  constexpr auto binary = HierarchicalHistogram::make(Epsilon::from_ratio(2, 1), -4, 3, 2);
  CHECK_EQ(golden_digest(Fleet<2>{binary}, 200, [](uint32_t i) { return static_cast<int32_t>(i % 8) - 4; },
                         [&](const Report<2>& r) { return well_formed(binary, r.bytes); }),
           2983241802127449024ull);
}

}  // namespace
}  // namespace tinyldp::test
