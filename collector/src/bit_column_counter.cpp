#include "tinyldp/collector/bit_column_counter.hpp"

#include <bit>
#include <cstring>

static_assert(std::endian::native == std::endian::little, "BitColumnCounter loads words little-endian");

namespace tinyldp::collector {

BitColumnCounter::BitColumnCounter(std::size_t columns)
    : columns_(columns),
      words_((columns + 63) / 64),
      plane_(words_ * planes, 0),
      overflow_(columns, 0) {}

void BitColumnCounter::add(std::span<const std::uint8_t> bits) {
  if (pending_ == (1u << planes) - 1) flush_into(overflow_);
  const std::size_t full = bits.size() / 8 < words_ ? bits.size() / 8 : words_;
  std::uint64_t* p = plane_.data();
  for (std::size_t w = 0; w < full; ++w, p += planes) {
    std::uint64_t x;
    std::memcpy(&x, bits.data() + 8 * w, 8);  // little-endian host
    // Ripple-carry add of x into the planes: two steps inline, then a loop that rarely runs
    // long (a carry reaches plane k for about 2^-k of the bits).
    std::uint64_t carry = p[0] & x;
    p[0] ^= x;
    x = carry;
    carry = p[1] & x;
    p[1] ^= x;
    x = carry;
    for (unsigned k = 2; x != 0 && k < planes; ++k) {
      carry = p[k] & x;
      p[k] ^= x;
      x = carry;
    }
  }
  for (std::size_t w = full; w < words_; ++w, p += planes) {  // the partial last word
    std::uint64_t x = 0;
    for (std::size_t b = 8 * w; b < bits.size() && b < 8 * w + 8; ++b)
      x |= std::uint64_t{bits[b]} << (8 * (b - 8 * w));
    for (unsigned k = 0; x != 0 && k < planes; ++k) {
      const std::uint64_t carry = p[k] & x;
      p[k] ^= x;
      x = carry;
    }
  }
  ++pending_;
}

void BitColumnCounter::flush_into(std::span<std::uint64_t> counts) {
  if (&counts[0] != overflow_.data()) {
    for (std::size_t i = 0; i < columns_; ++i) {
      counts[i] += overflow_[i];
      overflow_[i] = 0;
    }
  }
  for (std::size_t w = 0; w < words_; ++w) {
    std::uint64_t* p = &plane_[w * planes];
    const std::size_t lanes = columns_ - 64 * w < 64 ? columns_ - 64 * w : 64;
    for (std::size_t lane = 0; lane < lanes; ++lane) {
      std::uint64_t v = 0;
      for (unsigned k = 0; k < planes; ++k) v |= ((p[k] >> lane) & 1u) << k;
      counts[64 * w + lane] += v;
    }
    for (unsigned k = 0; k < planes; ++k) p[k] = 0;
  }
  pending_ = 0;
}

}  // namespace tinyldp::collector
