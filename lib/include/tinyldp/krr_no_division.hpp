// tinyldp/krr_no_division.hpp — k-RR for mechanisms that privatize an internal value (a hash,
// a level) with a KaryRr: the very same draw, distribution and report as KaryRr::privatize,
// without its 64-bit division.
//
// KaryRr finds the reported "other" value as ⌊(u − T)/m⌋, a libgcc call on 32-bit cores whose
// running time depends on its operands — and u together with the report reveals the value.
// Here the quotient comes from a restoring division with a fixed trip count: one branch-free
// 64-bit compare-and-subtract per bit of k − 2 (none for k = 2, ≤ 30 in all), a number set by
// the configuration alone. With u ≥ T the remainder u − T < (k − 1)·m, so every shifted
// divisor m·2^i (2^i ≤ k − 2) stays below 2^64 and the quotient is ≤ k − 2: the same index
// KaryRr computes. Used by local hashing and stochastic discretization. Stack: a few words.
#ifndef TINYLDP_KRR_NO_DIVISION_HPP
#define TINYLDP_KRR_NO_DIVISION_HPP

#include <stdint.h>

#include "tinyldp/constant_time.hpp"
#include "tinyldp/krr.hpp"

namespace tinyldp::detail {

// value < krr.domain() (callers pass an internal, in-range value). The Rng's status tells
// whether the draw succeeded; the result is meaningless (but drawn the same way) if not.
template <class Rng>
uint32_t randomize_over(const KaryRr& krr, uint32_t value, Rng& rng) {
  const uint32_t k = krr.domain();
  const uint64_t m = krr.other_probability().num;
  const uint64_t threshold = krr.keep_numerator();
  const uint64_t u = rng.draw(krr.random_bits_per_report());
  const uint32_t keep = static_cast<uint32_t>(ct::less64(u, threshold));
  uint64_t rest = (u - threshold) & ct::mask64(keep ^ 1u);  // 0 when kept
  unsigned index_bits = 0;  // bit length of k − 2: public
  for (uint32_t x = k - 2; x != 0; x >>= 1) ++index_bits;
  uint32_t index = 0;
  for (unsigned i = index_bits; i-- > 0;) {
    const uint64_t step = m << i;
    const uint32_t fits = static_cast<uint32_t>(ct::less64(rest, step)) ^ 1u;
    rest -= step & ct::mask64(fits);
    index |= fits << i;
  }
  const uint32_t offset = (index + 1u) & ct::mask(keep ^ 1u);
  uint32_t y = value + offset;               // < 2k
  y -= k & ct::mask(ct::less(y, k) ^ 1u);    // y mod k
  return y;
}

}  // namespace tinyldp::detail

#endif
