// tinyldp/collector/bit_column_counter.hpp — counts, for every bit position i, how many added
// bit strings have bit i set, without looking at bits one by one.
//
// Vertical (bit-sliced) counters: each 64-bit word of a report is added to a 16-plane
// ripple-carry counter — plane k holds bit k of 64 per-column counts — with a few AND/XOR per
// word (a carry reaches plane k for about 2^-k of the bits); every 65535 reports the planes are
// flushed into ordinary 64-bit counts. Cost: 128 bytes of planes per 64 columns; a handful of
// operations per report word, plus a flush of 16 operations per column every 65535 reports.
// Host only.
#ifndef TINYLDP_COLLECTOR_BIT_COLUMN_COUNTER_HPP
#define TINYLDP_COLLECTOR_BIT_COLUMN_COUNTER_HPP

#include <cstdint>
#include <span>
#include <vector>

namespace tinyldp::collector {

class BitColumnCounter {
 public:
  explicit BitColumnCounter(std::size_t columns);

  // Adds one bit string of ⌈columns/8⌉ bytes (LSB first; bits beyond `columns` are ignored).
  void add(std::span<const std::uint8_t> bits);
  // Adds the pending counts to counts[0 … columns) and clears them.
  void flush_into(std::span<std::uint64_t> counts);
  bool empty() const { return pending_ == 0; }

 private:
  static constexpr unsigned planes = 16;  // up to 65535 pending additions
  std::size_t columns_;
  std::size_t words_;
  std::vector<std::uint64_t> plane_;  // words_ × planes
  unsigned pending_ = 0;
  std::vector<std::uint64_t> overflow_;  // counts flushed while the caller was not asking
};

}  // namespace tinyldp::collector

#endif
