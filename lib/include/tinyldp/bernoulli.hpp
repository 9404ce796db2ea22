// SPDX-License-Identifier: Apache-2.0
// tinyldp/bernoulli.hpp — Bernoulli samples that hit a Dyadic probability exactly.
//
// bernoulli(p): draws p.bits uniform bits u and returns u < p.num — exact, branch-free, and
// always p.bits random bits (p.bits ≤ 64).
// Many Bernoulli bits with one probability at once, bit-sliced: bernoulli_bits.hpp.
#ifndef TINYLDP_BERNOULLI_HPP
#define TINYLDP_BERNOULLI_HPP

#include <stdint.h>

#include "tinyldp/constant_time.hpp"
#include "tinyldp/probability.hpp"

namespace tinyldp {

template <class Rng>
uint32_t bernoulli(Dyadic p, Rng& rng) {
  if (p.bits == 0) return p.num != 0 ? 1u : 0u;  // exactly 0 or 1: no randomness needed
  return static_cast<uint32_t>(ct::less64(rng.draw(p.bits), p.num));
}

}  // namespace tinyldp

#endif
