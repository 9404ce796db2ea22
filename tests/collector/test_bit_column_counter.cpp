// Vertical counters agree with counting bit by bit, across flushes and odd widths.
#include "tinyldp/collector/bit_column_counter.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {

TEST(BitColumnCounter, MatchesBitByBitCounting) {
  for (std::size_t columns : {1u, 7u, 64u, 65u, 200u, 1024u}) {
    std::mt19937_64 gen(columns);
    tinyldp::collector::BitColumnCounter counter(columns);
    std::vector<std::uint64_t> fast(columns, 0), slow(columns, 0);
    const std::size_t bytes = (columns + 7) / 8;
    const int reports = columns == 7 ? 140000 : 1000;  // 7 columns: crosses the automatic flush twice
    for (int r = 0; r < reports; ++r) {
      std::vector<std::uint8_t> bits(bytes);
      for (auto& b : bits) b = static_cast<std::uint8_t>(gen());
      if (columns % 8 != 0) bits.back() &= static_cast<std::uint8_t>((1u << (columns % 8)) - 1);
      counter.add(bits);
      for (std::size_t i = 0; i < columns; ++i) slow[i] += (bits[i / 8] >> (i % 8)) & 1u;
      if (r == 500) counter.flush_into(fast);
    }
    counter.flush_into(fast);
    EXPECT_EQ(fast, slow) << columns << " columns";
    EXPECT_TRUE(counter.empty());
  }
}

}  // namespace
