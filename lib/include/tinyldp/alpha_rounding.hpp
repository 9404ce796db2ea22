// SPDX-License-Identifier: Apache-2.0
// tinyldp/alpha_rounding.hpp — α-point rounding (Ding, Kulkarni, Yekhanin 2017) of a counter
// x ∈ {0, …, m} to the grid points 0, s, 2s, …, m (grid step s dividing m, J = m/s cells):
// what 1BitMean (one_bit_mean.hpp) and dBitFlip (dbitflip.hpp) share.
//
// Why: a memoized mechanism spends ε∞ per memoized value. Rounding first — with an offset α
// drawn once per device, so that the same x always rounds the same way — makes small drifts of
// the counter keep their memo, and stays unbiased over devices: x = L·s + r goes to grid index
// j = ⌊(x + α)/s⌋, which is L + 1 iff r + α ≥ s, with probability r/s over α uniform in
// {0, …, s − 1}, so E[j·s] = x.
// Branch-free in x: the index is a restoring division by s with a fixed trip count
// (⌈log2(J + 1)⌉ compare-and-subtract steps, counted without a division); α is drawn by mask-and-reject (uniform.hpp) from
// the device's memo stream, which does not depend on x. Cost: m, s and J = m/s, the quotient
// computed once at configuration (the mechanisms store it): m/s on the report path would be a
// division instruction (a libgcc call on Cortex-M0, UDIV on M3/M4, DIVU on RV32: variable time,
// even if of public operands), and a context configured at run time cannot fold it.
#ifndef TINYLDP_ALPHA_ROUNDING_HPP
#define TINYLDP_ALPHA_ROUNDING_HPP

#include <stdint.h>

#include "tinyldp/constant_time.hpp"
#include "tinyldp/uniform.hpp"

namespace tinyldp {

class AlphaRounding {
 public:
  static constexpr uint32_t max_value = uint32_t{1} << 30;

  // At configuration (divides): J from m and s.
  constexpr AlphaRounding(uint32_t m, uint32_t s) : m_(m), s_(s), cells_(s == 0 ? 0 : m / s) {}
  // On the report path: J as the context stored it.
  constexpr AlphaRounding(uint32_t m, uint32_t s, uint32_t cells) : m_(m), s_(s), cells_(cells) {}
  // 1 ≤ m ≤ 2^30, 1 ≤ s ≤ m, s divides m.
  static constexpr bool valid(uint32_t m, uint32_t s) {
    return m >= 1 && m <= max_value && s >= 1 && s <= m && m % s == 0;
  }

  constexpr uint32_t cells() const { return cells_; }  // J; the grid points are 0 … J

  // α, uniform in {0, …, s − 1}, from `draws` (a memo stream: the same for every report).
  template <class Rng>
  uint32_t offset(Rng& draws) const {
    return static_cast<uint32_t>(uniform_below(s_, draws));
  }
  // The grid index j = ⌊(x + α)/s⌋ (x ≤ m, α < s), without a division instruction.
  constexpr uint32_t index(uint32_t x, uint32_t alpha) const {
    uint64_t rest = uint64_t{x} + alpha;
    uint32_t j = 0;
    for (unsigned i = index_steps(); i-- > 0;) {  // fixed trip count
      const uint64_t step = uint64_t{s_} << i;
      const uint32_t fits = static_cast<uint32_t>(ct::less64(rest, step)) ^ 1u;
      rest -= step & ct::mask64(fits);
      j |= fits << i;
    }
    return j;
  }
  // The division's steps, bits_to_represent(J): the least b with s·2^b > m (J < 2^b ⟺ m <
  // s·2^b). A loop over the public m and s rather than m/s, which is a division on the report
  // path (a libgcc call on Cortex-M0, UDIV on M3/M4, DIVU on RV32: variable time, even if of
  // public operands).
  // (32 bits suffice: s·2^(b−1) ≤ m ≤ 2^30, so s·2^b ≤ 2^31.)
  constexpr unsigned index_steps() const {
    unsigned b = 0;
    while ((s_ << b) <= m_) ++b;
    return b;
  }
  // 1 if x ≤ m, else 0; and x, or 0 when x > m (its report is discarded; 0 keeps the
  // rounding in range).
  constexpr uint32_t in_range(uint32_t x) const { return ct::less(x, m_ + 1u); }
  constexpr uint32_t clamped(uint32_t x) const { return x & ct::mask(in_range(x)); }

 private:
  uint32_t m_, s_, cells_;
};

}  // namespace tinyldp

#endif
