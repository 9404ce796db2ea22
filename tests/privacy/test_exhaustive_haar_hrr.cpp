// SPDX-License-Identifier: Apache-2.0
// Exhaustive privacy verification of HaarHRR: a device of each level (a key whose level it is),
// every value of a small range and every random string (the row's ℓ − 1 bits and the binary RR's),
// the report's exact law against the realized ε: every row equally likely, the bit sign·H[row][node]
// kept with the RR's p — so each level is private and tight at the RR's ε. The RR's probability is
// cut to 4 bits so that the strings are few. Plus two planted mutants, a level and a row chosen by
// the value.
#include "check.hpp"
#include "exhaustive.hpp"
#include "test_memo_key.hpp"
#include "tinyldp/haar_hrr.hpp"

namespace tinyldp::test {
namespace {

uint32_t counts[16 * 64];  // values × outputs

HaarHrr configured(Epsilon eps, int32_t hi, uint8_t bits) {
  HaarHrr m;
  CHECK_EQ(HaarHrr::configure(eps, 0, hi, m, Precision{bits, uint64_t{1} << 31}), Status::ok);
  return m;
}

TestMemoKey device_at(const HaarHrr& m, uint32_t level) {
  uint64_t seed = 1;
  while (m.level_of(TestMemoKey{seed}) != level) ++seed;
  return TestMemoKey{seed};
}

// The output of a report: its row and bit as row·2 + bit.
uint32_t output_of(const HaarReport& r) { return r.row * 2 + r.bit; }

void expect_every_level_exact(const HaarHrr& m) {
  const uint32_t d = m.domain(), h = m.levels();
  const Dyadic keep = m.randomizer().keep_probability();
  for (uint32_t level = 1; level <= h; ++level) {
    const TestMemoKey key = device_at(m, level);
    const uint32_t outputs = 2 * m.nodes(level);
    bool formed = true;
    const auto v = verify_exhaustively(d, outputs, m.realized_epsilon(), counts, [&](uint32_t x, CountingRng& rng) {
      HaarReport r{};
      static_cast<void>(m.privatize(static_cast<int32_t>(x), key, rng, r));
      formed = formed && r.level == level && r.row < m.nodes(level);
      return output_of(r);
    });
    CHECK(formed);
    expect_private_and_tight(v, m.realized_epsilon());
    CHECK_EQ(v.random_bits, m.random_bits_at(level));
    // Each (row, bit): one string per row for the row, the RR's p or 1 − p for the bit.
    uint32_t wrong = 0;
    for (uint32_t x = 0; x < d; ++x) {
      const unsigned below = h - level;
      const uint32_t node = x >> (below + 1), sign = (x >> below) & 1u;
      for (uint32_t row = 0; row < m.nodes(level); ++row)
        for (uint32_t bit = 0; bit < 2; ++bit) {
          const uint64_t want = bit == (sign ^ hadamard_bit(row, node)) ? keep.num : (uint64_t{1} << keep.bits) - keep.num;
          wrong += counts[x * outputs + row * 2 + bit] != want;
        }
    }
    CHECK_EQ(wrong, 0u);
  }
}

TEST(every_level_of_eight_values_is_exact_and_tight) {
  // D = 8: levels of 1, 2 and 4 nodes; ε = 1 at 4 bits.
  expect_every_level_exact(configured(Epsilon::from_ratio(1, 1), 7, 4));
}

TEST(every_level_of_an_uneven_range_is_exact_and_tight) {
  // 13 values (D = 16, the leaves 13 … 15 no value): 4 levels; ε = 2 at 4 bits.
  expect_every_level_exact(configured(Epsilon::from_ratio(2, 1), 12, 4));
}

TEST(catches_a_level_chosen_by_the_value) {
  // The level from the value's parity: level 1 (row 0) for even values, level 2 for odd ones; the
  // output carries the level, so each level's outputs follow some values and never the others.
  const HaarHrr m = configured(Epsilon::from_ratio(1, 1), 7, 4);
  const auto v = verify_exhaustively(8, 2 * 8, m.realized_epsilon(), counts, [&](uint32_t x, CountingRng& rng) {
    HaarReport r{};
    static_cast<void>(m.privatize_at_level(static_cast<int32_t>(x), 1 + (x & 1u), rng, r));
    return r.level * 4 + output_of(r);
  });
  CHECK(!v.within_claim);
  CHECK_EQ(v.observed.q32, ~uint64_t{0});
}

TEST(catches_a_row_chosen_by_the_value) {
  // The row as the value's node instead of a fresh draw: the row names the node.
  const HaarHrr m = configured(Epsilon::from_ratio(1, 1), 7, 4);
  const auto v = verify_exhaustively(8, 2 * 4, m.realized_epsilon(), counts, [&](uint32_t x, CountingRng& rng) {
    HaarReport r{};
    static_cast<void>(m.privatize_at_level(static_cast<int32_t>(x), 3, rng, r));
    const uint32_t node = x >> 1, sign = x & 1u;
    const uint8_t bit = m.randomizer().randomize(sign ^ hadamard_bit(node, node), rng);
    return node * 2 + bit;
  });
  CHECK(!v.within_claim);
  CHECK_EQ(v.observed.q32, ~uint64_t{0});
}

}  // namespace
}  // namespace tinyldp::test
