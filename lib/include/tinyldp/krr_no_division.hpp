// tinyldp/krr_two_way.hpp — k-RR for mechanisms that privatize an internal value (a hash, a
// level) with a KaryRr: for k = 2 the very same draw, distribution and report as
// KaryRr::privatize, without its 64-bit division.
//
// KaryRr finds the reported "other" value with ⌊(u − T)/m⌋, a libgcc call on 32-bit cores
// whose running time follows u — and u together with the report reveals the value. For k = 2
// there is one other value, so the report is value XOR ¬(u < T): one draw of the same
// q.bits bits, one branch-free comparison. For k > 2 this defers to KaryRr::privatize.
// Used by BLH (g = 2) and two-level stochastic discretization. Stack: none of its own.
#ifndef TINYLDP_KRR_TWO_WAY_HPP
#define TINYLDP_KRR_TWO_WAY_HPP

#include <stdint.h>

#include "tinyldp/constant_time.hpp"
#include "tinyldp/krr.hpp"

namespace tinyldp::detail {

// value < krr.domain() (callers pass an internal, in-range value). The Rng's status tells
// whether the draw succeeded; the result is meaningless (but drawn the same way) if not.
template <class Rng>
uint32_t randomize_over(const KaryRr& krr, uint32_t value, Rng& rng) {
  if (krr.domain() == 2) {  // configuration, not data
    const uint64_t u = rng.draw(krr.random_bits_per_report());
    return value ^ 1u ^ static_cast<uint32_t>(ct::less64(u, krr.keep_numerator()));
  }
  uint32_t y = 0;
  krr.privatize(value, rng, y);
  return y;
}

}  // namespace tinyldp::detail

#endif
