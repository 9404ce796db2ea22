// SPDX-License-Identifier: Apache-2.0
// Vertical counters agree with counting bit by bit, across flushes (both levels) and odd widths;
// built twice by CMake: with the run-time-dispatched SIMD clones and with the portable loops.
#include "tinyldp/collector/bit_column_counter.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace tinyldp::collector {
namespace {

TEST(BitColumnCounter, MatchesBitByBitCounting) {
  for (std::size_t columns : {1u, 7u, 64u, 65u, 200u, 1024u, 1031u}) {
    std::mt19937_64 gen(columns);
    tinyldp::collector::BitColumnCounter counter(columns);
    std::vector<std::uint64_t> fast(columns, 0), slow(columns, 0);
    const std::size_t bytes = (columns + 7) / 8;
    // 7 and 1031 columns: cross the automatic 65535-report flush twice.
    const int reports = columns == 7 || columns == 1031 ? 140000 : 1000;
    for (int r = 0; r < reports; ++r) {
      std::vector<std::uint8_t> bits(bytes);
      for (auto& b : bits) b = static_cast<std::uint8_t>(gen());
      if (columns % 8 != 0) bits.back() &= static_cast<std::uint8_t>((1u << (columns % 8)) - 1);
      counter.add(bits);
      for (std::size_t i = 0; i < columns; ++i) slow[i] += (bits[i / 8] >> (i % 8)) & 1u;
      if (r == 500 || r == 503 || r == 70000) counter.flush_into(fast);  // mid-level-1 flushes
      if (columns == 1031 && r % 9973 == 0) {  // all-ones reports: every carry path
        std::vector<std::uint8_t> ones(bytes, 0xFF);
        ones.back() = 0x7F;  // 1031 = 128·8 + 7
        counter.add(ones);
        for (std::size_t i = 0; i < columns; ++i) slow[i] += 1;
      }
    }
    counter.flush_into(fast);
    EXPECT_EQ(fast, slow) << columns << " columns";
    EXPECT_TRUE(counter.empty());
  }
}

TEST(BitColumnCounter, AllOnesCountsUpToTheFlushExactly) {
  // 65535 + 31 all-ones reports: level 2 full to the last count, then flushed, then level 1 again.
  tinyldp::collector::BitColumnCounter counter(130);
  std::vector<std::uint8_t> ones(17, 0xFF);
  ones.back() = 0x03;
  const std::uint64_t n = 65535 + 31;
  for (std::uint64_t r = 0; r < n; ++r) counter.add(ones);
  std::vector<std::uint64_t> counts(130, 0);
  counter.flush_into(counts);
  EXPECT_EQ(counts, std::vector<std::uint64_t>(130, n));
}

}  // namespace
}  // namespace tinyldp::collector
