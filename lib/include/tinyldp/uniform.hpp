// SPDX-License-Identifier: Apache-2.0
// tinyldp/uniform.hpp — uniform integers in [0, n) without modulo bias.
//
// Mask-and-reject: draw ⌈log2 n⌉ bits, retry while the draw is ≥ n. Exact; expected draws
// < 2 (≤ 2·⌈log2 n⌉ random bits); the retry loop depends only on random bits, never on a
// private value. If the source fails the loop ends at once (draws read 0) and the caller
// sees the failure in rng.status().
#ifndef TINYLDP_UNIFORM_HPP
#define TINYLDP_UNIFORM_HPP

#include <stdint.h>

namespace tinyldp {

constexpr unsigned bits_to_represent(uint64_t max_value) {
  unsigned b = 0;
  while (b < 64 && (max_value >> b) != 0) ++b;
  return b;
}

template <class Rng>
uint64_t uniform_below(uint64_t n, Rng& rng) {
  if (n <= 1) return 0;
  const unsigned bits = bits_to_represent(n - 1);
  for (;;) {
    const uint64_t u = rng.draw(bits);
    if (u < n) return u;
  }
}

}  // namespace tinyldp

#endif
