// SPDX-License-Identifier: Apache-2.0
// tinyldp/probability.hpp — probabilities exactly as the samplers realise them.
//
// A Dyadic is num/2^bits with num odd (bits ≤ 64): the value a sampler hits *exactly* from
// `bits` uniform random bits. Every mechanism stores its probabilities as Dyadics and computes
// its realized ε from these integers, never from the real numbers they approximate.
//
// Precision chooses how ε becomes a Dyadic. Each probability is first bounded on the safe
// side (likelihood ratio ≤ e^ε, see epsilon.hpp); any value between that bound and the one
// for ε − tolerance is acceptable, and the library takes the one with the fewest significant
// bits — fewer random bits per sample at no cost in privacy and at most `tolerance` below the
// requested ε (default 2^-21 ≈ 4.8e-7). max_bits caps the bits (tests use 2–8 bits so that
// every random string can be enumerated).
#ifndef TINYLDP_PROBABILITY_HPP
#define TINYLDP_PROBABILITY_HPP

#include <stdint.h>

#include "tinyldp/epsilon.hpp"
#include "tinyldp/status.hpp"

namespace tinyldp {

struct Dyadic {
  uint64_t num = 0;  // odd, or 0 for the probability 0
  uint8_t bits = 0;  // denominator 2^bits, 0..64

  friend constexpr bool operator==(Dyadic a, Dyadic b) {
    return a.num == b.num && a.bits == b.bits;
  }
};

// num/2^bits reduced to lowest terms.
constexpr Dyadic make_dyadic(uint64_t num, unsigned bits) {
  if (num == 0) return Dyadic{0, 0};
  while ((num & 1u) == 0 && bits > 0) {
    num >>= 1;
    --bits;
  }
  return Dyadic{num, static_cast<uint8_t>(bits)};
}

struct Precision {
  uint8_t max_bits = 64;                     // 1..64
  uint64_t tolerance_q32 = uint64_t{1} << 11;  // how far below ε the realized ε may fall (2^-21)
};

constexpr bool is_valid_precision(Precision p) { return p.max_bits >= 1 && p.max_bits <= 64; }

namespace detail {

// A configure's first refusals, in this order: an ε off the grid (bad_epsilon), below
// min_epsilon (epsilon_too_small), a precision out of range (bad_parameter); else ok.
constexpr Status check_epsilon(Epsilon eps, Precision precision = {}) {
  if (!is_valid_epsilon(eps)) return Status::bad_epsilon;
  if (eps < min_epsilon) return Status::epsilon_too_small;
  if (!is_valid_precision(precision)) return Status::bad_parameter;
  return Status::ok;
}

// The memoized chains' ε∞ and ε₁ (ε₁ < ε∞), refused in the same order.
constexpr Status check_chain_epsilons(Epsilon eps_inf, Epsilon eps_one) {
  if (!is_valid_epsilon(eps_inf) || !is_valid_epsilon(eps_one) || !(eps_one < eps_inf)) return Status::bad_epsilon;
  if (eps_one < min_epsilon) return Status::epsilon_too_small;
  return Status::ok;
}

// The value in [lo, hi] (lo ≥ 1) with the most trailing zero bits.
constexpr uint64_t fewest_bits_in(uint64_t lo, uint64_t hi) {
  if (lo >= hi) return lo;
  int k = 63;
  while ((((lo ^ hi) >> k) & 1u) == 0) --k;
  const uint64_t below_k = (uint64_t{1} << k) - 1;
  if ((lo & ((below_k << 1) | 1u)) == 0) return lo;  // lo is a multiple of 2^(k+1)
  return hi & ~below_k;
}

// Pick a numerator (scale 2^bits) between the bound that keeps ε (`safe`) and the one for
// ε − tolerance (`loose`). When rounding to 2^-bits leaves no room between them, the safe
// bound alone is taken. For probabilities that must not go below `safe`:
constexpr uint64_t pick_at_least(uint64_t safe, uint64_t loose) {
  return safe < loose ? fewest_bits_in(safe, loose) : safe;
}
// …and for those that must not go above it:
constexpr uint64_t pick_at_most(uint64_t safe, uint64_t loose) {
  return loose < safe ? fewest_bits_in(loose, safe) : safe;
}

// A tolerance coarser than the default. Two choices differ there from plain rounding (OUE's
// fitted p, unary_encoding.hpp; PM's m taking bits one at a time, piecewise.hpp); at and below
// the default they keep the rule of earlier releases, so the probabilities a collector derives
// for their reports — and the parameter digests — are unchanged.
constexpr bool is_coarse(Precision p) { return p.tolerance_q32 > Precision{}.tolerance_q32; }

constexpr Epsilon loosened(Epsilon e, Precision p) {
  return Epsilon{e.q32 > p.tolerance_q32 ? e.q32 - p.tolerance_q32 : 0};
}

constexpr Wide scale(unsigned bits) { return Wide::power_of_two(static_cast<int>(bits)); }
constexpr Wide one_fixed() { return Wide::power_of_two(exp_fraction_bits); }

// 2^bits · L/(L + c) rounded down, with L = exp_lower_bound(e) (fixed point) and c integer:
// the largest keep-numerator whose ratio num/(2^bits − num)·… stays ≤ e^ε.
constexpr uint64_t floor_scaled_ratio(Epsilon e, unsigned bits, uint64_t c) {
  const Wide L = exp_lower_bound(e);
  return floor_div(scale(bits) * L, L + one_fixed().times(c)).low64();
}
// ⌈2^bits / (L + c)⌉ (fixed point L): the smallest numerator q with (1 − c·q)/q ≤ L.
constexpr uint64_t ceil_scaled_inverse(Epsilon e, unsigned bits, uint64_t c) {
  const Wide L = exp_lower_bound(e);
  return ceil_div(scale(bits) * one_fixed(), L + one_fixed().times(c)).low64();
}
constexpr uint64_t floor_scaled_inverse(Epsilon e, unsigned bits, uint64_t c) {
  const Wide L = exp_lower_bound(e);
  return floor_div(scale(bits) * one_fixed(), L + one_fixed().times(c)).low64();
}

// e^ε/(e^ε + 1) over 2^bits, rounded down (binary RR's p; SUE's p at ε/2): the fewest bits
// between the bound at `eps` and the one at `loose` (ε less the tolerance). These two are
// always inlined: a device that configures at run time (the C API) configures one mechanism,
// and a call of their own would add to its flash.
__attribute__((always_inline)) constexpr Dyadic keep_at_most(Epsilon eps, Epsilon loose, unsigned bits) {
  return make_dyadic(pick_at_most(floor_scaled_ratio(eps, bits, 1), floor_scaled_ratio(loose, bits, 1)), bits);
}
// 1/(e^ε + c) over 2^bits, rounded up (k-RR's q with c = k − 1; OUE's q with c = 1), likewise.
__attribute__((always_inline)) constexpr Dyadic other_at_least(Epsilon eps, Epsilon loose, unsigned bits,
                                                               uint64_t c) {
  return make_dyadic(pick_at_least(ceil_scaled_inverse(eps, bits, c), floor_scaled_inverse(loose, bits, c)), bits);
}

// The realized ε of a likelihood ratio a/b given as integers; false if it exceeds max_epsilon.
constexpr bool realized_epsilon_of(const Wide& a, const Wide& b, Epsilon& out) {
  return ln_upper_bound(a, b, out);
}

}  // namespace detail
}  // namespace tinyldp

#endif
