// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/bit_column_counter.hpp"

#include <bit>
#include <cstring>

static_assert(std::endian::native == std::endian::little, "BitColumnCounter loads words little-endian");

namespace tinyldp::collector {

namespace {

// The word loops, cloned for AVX-512 / AVX2 / baseline x86-64 (chosen at run time); plain
// loops elsewhere (and with TINYLDP_COUNTER_PORTABLE, which tests/collector uses to check the
// portable build against bit-by-bit counting too). All clones compute the same integers: only
// the vector width differs.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(TINYLDP_COUNTER_PORTABLE)
#define TINYLDP_COUNTER_CLONES __attribute__((target_clones("avx512f", "avx2", "default"), optimize("O3")))
#else
#define TINYLDP_COUNTER_CLONES
#endif

// Adds `count` report words (read little-endian from bytes) into the 4-plane level-1 counter:
// a branch-free ripple; the level holds ≤ 14 before, so no carry leaves plane 3.
TINYLDP_COUNTER_CLONES
void add_small(std::uint64_t* __restrict p0, std::uint64_t* __restrict p1,
               std::uint64_t* __restrict p2, std::uint64_t* __restrict p3,
               const std::uint8_t* __restrict bytes, std::size_t count) {
  for (std::size_t w = 0; w < count; ++w) {
    std::uint64_t x;
    std::memcpy(&x, bytes + 8 * w, 8);
    std::uint64_t c = p0[w] & x;
    p0[w] ^= x;
    x = c;
    c = p1[w] & x;
    p1[w] ^= x;
    x = c;
    c = p2[w] & x;
    p2[w] ^= x;
    p3[w] ^= c;
  }
}

// plane[0..16) += small[0..4) per column (bit-sliced), then small = 0. The caller guarantees
// the sum fits 16 bits, so the last carry is 0.
TINYLDP_COUNTER_CLONES
void fold(std::uint64_t* __restrict plane, std::uint64_t* __restrict small, std::size_t words) {
  for (std::size_t w = 0; w < words; ++w) {
    std::uint64_t carry = 0;
    for (unsigned k = 0; k < 4; ++k) {  // full adders
      const std::uint64_t a = plane[k * words + w], b = small[k * words + w];
      const std::uint64_t t = a ^ b;
      plane[k * words + w] = t ^ carry;
      carry = (a & b) | (carry & t);
      small[k * words + w] = 0;
    }
    for (unsigned k = 4; k < 16; ++k) {  // half adders
      const std::uint64_t a = plane[k * words + w];
      plane[k * words + w] = a ^ carry;
      carry &= a;
    }
  }
}

}  // namespace

BitColumnCounter::BitColumnCounter(std::size_t columns)
    : columns_(columns),
      words_((columns + 63) / 64),
      small_(words_ * small_planes, 0),
      plane_(words_ * planes, 0),
      overflow_(columns, 0) {}

void BitColumnCounter::add(std::span<const std::uint8_t> bits) {
  if (small_pending_ == small_limit) fold_small();
  const std::size_t full = bits.size() / 8 < words_ ? bits.size() / 8 : words_;
  std::uint64_t* s = small_.data();
  add_small(s, s + words_, s + 2 * words_, s + 3 * words_, bits.data(), full);
  for (std::size_t w = full; w < words_; ++w) {  // the partial last word, zero-padded
    std::uint64_t x = 0;
    for (std::size_t b = 8 * w; b < bits.size() && b < 8 * w + 8; ++b)
      x |= std::uint64_t{bits[b]} << (8 * (b - 8 * w));
    for (unsigned k = 0; k < small_planes; ++k) {
      const std::uint64_t carry = s[k * words_ + w] & x;
      s[k * words_ + w] ^= x;
      x = carry;
    }
  }
  ++small_pending_;
}

void BitColumnCounter::fold_small() {
  if (small_pending_ == 0) return;
  if (pending_ + small_pending_ > limit) flush_planes(overflow_);
  fold(plane_.data(), small_.data(), words_);
  pending_ += small_pending_;
  small_pending_ = 0;
}

void BitColumnCounter::flush_planes(std::span<std::uint64_t> counts) {
  for (std::size_t w = 0; w < words_; ++w) {
    const std::size_t lanes = columns_ - 64 * w < 64 ? columns_ - 64 * w : 64;
    for (std::size_t lane = 0; lane < lanes; ++lane) {
      std::uint64_t v = 0;
      for (unsigned k = 0; k < planes; ++k) v |= ((plane_[k * words_ + w] >> lane) & 1u) << k;
      counts[64 * w + lane] += v;
    }
    for (unsigned k = 0; k < planes; ++k) plane_[k * words_ + w] = 0;
  }
  pending_ = 0;
}

void BitColumnCounter::flush_into(std::span<std::uint64_t> counts) {
  fold_small();
  flush_planes(counts);
  for (std::size_t i = 0; i < columns_; ++i) {
    counts[i] += overflow_[i];
    overflow_[i] = 0;
  }
}

}  // namespace tinyldp::collector
