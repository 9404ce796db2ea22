// SPDX-License-Identifier: Apache-2.0
// Exhaustive privacy verification of the hierarchical histogram: a device of each level (a key
// whose level it is), every value of a small range and every random string of the level's
// oracle, the report's exact law against the realized ε. Each level is exactly its oracle
// (OUE's or OLH's probabilities around the value's node) and tight at that oracle's ε; the
// realized ε is attained at a level of the larger oracle — with OUE's ε the larger, with OLH's,
// and with every level hashed (OLH's alone, though OUE's is larger). OLH's seed is cut to 1–2
// bits and the probabilities to 4–5 bits so that the strings are few. Plus a planted mutant whose
// level depends on the value. Runs ignore the Status (every value is in the range and the
// counting source never fails: tests/core/test_hierarchical_histogram.cpp checks statuses).
#include "check.hpp"
#include "exhaustive.hpp"
#include "test_memo_key.hpp"
#include "tinyldp/hierarchical_histogram.hpp"

namespace tinyldp::test {
namespace {

uint32_t counts[16 * 64];  // values × outputs

HierarchicalHistogram configured(Epsilon eps, int32_t hi, uint32_t branching, uint8_t bits, unsigned seed_bits) {
  HierarchicalHistogram m;
  CHECK_EQ(HierarchicalHistogram::configure(eps, 0, hi, branching, m, Precision{bits, uint64_t{1} << 31}, 0, seed_bits),
           Status::ok);
  return m;
}

// A device whose level is `level`.
TestMemoKey device_at(const HierarchicalHistogram& m, uint32_t level) {
  uint64_t seed = 1;
  while (m.level_of(TestMemoKey{seed}) != level) ++seed;
  return TestMemoKey{seed};
}

uint64_t pow2(unsigned b) { return uint64_t{1} << b; }

// The exact count of oracle output y for value x at `level`, over all 2^T strings.
uint64_t expected_count(const HierarchicalHistogram& m, uint32_t level, uint32_t x, uint32_t y) {
  const uint32_t node = x >> m.leaf_shift(level);
  if (m.hashed(level)) {
    const LocalHashing olh = m.hashing_at(level);
    const uint32_t seed_mask = static_cast<uint32_t>(pow2(olh.seed_bits()) - 1);
    const LocalHashingReport r{y & seed_mask, y >> olh.seed_bits()};
    const KaryRr& krr = olh.randomizer();
    if (r.value >= olh.range()) return 0;
    return r.value == local_hash(r.seed, node, olh.range()) ? krr.keep_numerator() : krr.other_probability().num;
  }
  const UnaryEncoding ue = m.unary_at(level);
  if ((y >> ue.domain()) != 0) return 0;  // the bits past the level's nodes stay zero
  const Dyadic p = ue.p(), q = ue.q();
  uint64_t c = ((y >> node) & 1u) ? p.num : pow2(p.bits) - p.num;
  c *= pow2(q.bits);  // the node's own q draw is overwritten
  for (uint32_t i = 0; i < ue.domain(); ++i)
    if (i != node) c *= ((y >> i) & 1u) ? q.num : pow2(q.bits) - q.num;
  return c;
}

// Every level of `m` (values 0 … d − 1, reports ≤ 2 bytes, ≤ 6 bits after the level byte):
// exactly its oracle, private and tight at the oracle's ε, within the realized ε; the realized ε
// attained at some level.
void expect_every_level_exact(const HierarchicalHistogram& m) {
  const uint32_t d = m.domain();
  const unsigned report_bits = m.payload_bits() - 8;
  const uint32_t outputs = 1u << report_bits;
  CHECK(d <= 16 && outputs <= 64 && m.report_bytes() == 2);
  bool attained = false;
  for (uint32_t level = 1; level <= m.levels(); ++level) {
    const TestMemoKey key = device_at(m, level);
    const Epsilon oracle = m.hashed(level) ? m.hashing().realized_epsilon() : m.unary().realized_epsilon();
    bool formed = true;
    const auto v = verify_exhaustively(d, outputs, oracle, counts, [&](uint32_t x, CountingRng& rng) {
      uint8_t report[2] = {};
      static_cast<void>(m.privatize(static_cast<int32_t>(x), key, rng, report, sizeof report));
      formed = formed && report[0] == level && (report[1] >> report_bits) == 0;
      return uint32_t{report[1]};
    });
    CHECK(formed);
    expect_private_and_tight(v, oracle);
    CHECK_EQ(v.random_bits, m.random_bits_at(level));
    CHECK(oracle <= m.realized_epsilon());
    attained = attained || v.observed == m.realized_epsilon();
    uint32_t wrong = 0;
    for (uint32_t x = 0; x < d; ++x)
      for (uint32_t y = 0; y < outputs; ++y) wrong += counts[x * outputs + y] != expected_count(m, level, x, y);
    CHECK_EQ(wrong, 0u);
  }
  CHECK(attained);
}

TEST(a_binary_tree_where_olh_has_the_larger_epsilon) {
  // ε = 1 at 4 bits: OUE q = 3/8 (ε 0.51) on levels 1–2 (2 and 4 nodes), OLH g = 4 with a 2-bit
  // seed (4 bits, ε 0.85) on level 3 (8 leaves).
  const HierarchicalHistogram m = configured(Epsilon::from_ratio(1, 1), 7, 2, 4, 2);
  CHECK(!m.hashed(2) && m.hashed(3));
  CHECK(m.unary().realized_epsilon() < m.hashing().realized_epsilon());
  expect_every_level_exact(m);
}

TEST(a_binary_tree_where_oue_has_the_larger_epsilon) {
  // ε = 2 at 5 bits: OUE q = 1/8 (ε 1.95), OLH g = 8, k-RR q = 3/32 (ε 1.30).
  const HierarchicalHistogram m = configured(Epsilon::from_ratio(2, 1), 7, 2, 5, 2);
  CHECK(!m.hashed(2) && m.hashed(3));
  CHECK(m.hashing().realized_epsilon() < m.unary().realized_epsilon());
  expect_every_level_exact(m);
}

TEST(a_four_ary_tree_over_sixteen_values) {
  // Level 1: 4 nodes (OUE, 4 bits = OLH's 4); level 2: the 16 leaves (OLH).
  const HierarchicalHistogram m = configured(Epsilon::from_ratio(1, 1), 15, 4, 4, 2);
  CHECK(m.levels() == 2 && !m.hashed(1) && m.hashed(2));
  expect_every_level_exact(m);
}

TEST(when_every_level_hashes_only_olh_counts) {
  // A 1-bit seed: OLH's report (4 bits) is shorter than the 16 leaves' OUE, so the one level
  // hashes and OUE's larger ε occurs nowhere: the claim is OLH's, and tight.
  const HierarchicalHistogram m = configured(Epsilon::from_ratio(2, 1), 15, 16, 5, 1);
  CHECK(m.levels() == 1 && m.hashed(1));
  CHECK(m.realized_epsilon() == m.hashing().realized_epsilon());
  CHECK(m.hashing().realized_epsilon() < m.unary().realized_epsilon());
  expect_every_level_exact(m);
}

TEST(catches_a_level_chosen_by_the_value) {
  // The bug: the level from the value's parity instead of the key. Even values report only at
  // level 1, odd ones only at level 2: each level byte follows some values and never the others.
  const HierarchicalHistogram m = configured(Epsilon::from_ratio(1, 1), 7, 2, 4, 2);
  const auto v = verify_exhaustively(8, 4 * 16, m.realized_epsilon(), counts, [&](uint32_t x, CountingRng& rng) {
    uint8_t report[2] = {};
    static_cast<void>(m.privatize_at_level(static_cast<int32_t>(x), 1 + (x & 1u), rng, report, sizeof report));
    return uint32_t{report[0]} * 16 + report[1];
  });
  CHECK(!v.within_claim);
  CHECK_EQ(v.observed.q32, ~uint64_t{0});  // an unbounded ratio
}

}  // namespace
}  // namespace tinyldp::test
