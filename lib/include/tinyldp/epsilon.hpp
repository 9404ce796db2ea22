// SPDX-License-Identifier: Apache-2.0
// tinyldp/epsilon.hpp — privacy budgets as exact fixed-point numbers, and the arithmetic that
// turns them into probabilities and back without floating point.
//
// An Epsilon is ε·2^32 in a uint64_t (resolution 2.3e-10), in (0, 20]. Run-time code builds
// one from integers (from_q32, from_ratio); compile-time code may also write from_double(1.0),
// which is consteval and leaves no floating point in the binary.
//
// exp_lower_bound(ε) is a rigorous lower bound on e^ε with 128 fraction bits (a truncated
// Taylor series, every term rounded down); mechanisms choose their integer probabilities so
// that their likelihood ratio is ≤ that bound, hence ≤ e^ε exactly. ln_upper_bound(a/b) is
// the smallest ε on the 2^-32 grid with exp_lower_bound(ε) ≥ a/b, hence ≥ ln(a/b): the
// realized ε the library reports is never below the true privacy loss.
// Cost: configuration time only — an exp bound is ≤ 150 series terms on 384-bit integers;
// ln_upper_bound bisects over ~37 of them. Nothing here runs per report.
#ifndef TINYLDP_EPSILON_HPP
#define TINYLDP_EPSILON_HPP

#include <stdint.h>

#include "tinyldp/wide_uint.hpp"

namespace tinyldp {

struct Epsilon {
  static constexpr int fraction_bits = 32;
  uint64_t q32 = 0;  // ε · 2^32

  static constexpr Epsilon from_q32(uint64_t value) { return Epsilon{value}; }
  // ⌊num/den · 2^32⌋ / 2^32: rounding down never asks for more privacy loss. den = 0 gives 0
  // and a quotient beyond the 64-bit grid gives the largest Epsilon: both invalid, so every
  // configure refuses them (bad_epsilon) instead of using a wrapped value.
  static constexpr Epsilon from_ratio(uint64_t num, uint64_t den) {
    using W = UInt<4>;
    if (den == 0) return Epsilon{0};
    const W q = floor_div(W::from(num).shl(32), W::from(den));
    return Epsilon{q.fits_u64() ? q.low64() : ~uint64_t{0}};
  }
  // Compile time only; rounds down.
  static consteval Epsilon from_double(double e) {
    return Epsilon{static_cast<uint64_t>(e * 4294967296.0)};
  }
  friend constexpr bool operator==(Epsilon a, Epsilon b) { return a.q32 == b.q32; }
  friend constexpr bool operator<(Epsilon a, Epsilon b) { return a.q32 < b.q32; }
  friend constexpr bool operator<=(Epsilon a, Epsilon b) { return a.q32 <= b.q32; }
};

// The largest ε a mechanism accepts (e^20 ≈ 4.9e8; no useful LDP budget is near it).
inline constexpr Epsilon max_epsilon = Epsilon{uint64_t{20} << 32};

constexpr bool is_valid_epsilon(Epsilon e) { return e.q32 > 0 && e.q32 <= max_epsilon.q32; }

// The smallest ε a mechanism accepts, 2^-16 ≈ 1.5e-5 (no useful budget is near it): every
// mechanism configures at it with the default precision. Below it, configure answers
// epsilon_too_small — also when the share of ε one component gets (an attribute of SPL, a bit
// of dBitFlip, a hash of a Bloom chain) falls below it.
inline constexpr Epsilon min_epsilon = Epsilon{uint64_t{1} << 16};

// count · e exactly: false (e unchanged) when the product does not fit the 64-bit grid — a
// configuration that multiplies a realized ε (h hashes, two buckets) refuses it.
constexpr bool multiply_epsilon(Epsilon& e, uint32_t count) {
  if (count != 0 && e.q32 > ~uint64_t{0} / count) return false;
  e.q32 *= count;
  return true;
}
// count · e, saturating at the largest Epsilon (an ε no budget admits): lifetime budgets.
constexpr Epsilon saturating_times(Epsilon e, uint32_t count) {
  return multiply_epsilon(e, count) ? e : Epsilon{~uint64_t{0}};
}

namespace detail {
// Configuration-time integers: 384 bits hold exp bounds (≤ 2^157 with 128 fraction bits)
// times 128-bit probability products.
using Wide = UInt<12>;
inline constexpr int exp_fraction_bits = 128;

// Bisection for a yes(n) that is false up to some n and true from there on: narrows lo < hi to
// hi = lo + 1, hi the first yes (lo and hi themselves are never asked: the caller knows them).
template <class Yes>
constexpr void bisect(uint64_t& lo, uint64_t& hi, const Yes& yes) {
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (yes(mid))
      hi = mid;
    else
      lo = mid;
  }
}
}  // namespace detail

// ⌊e^ε⌋ to 128 fraction bits, from below: Σ_n t_n with t_n = ⌊t_{n-1}·ε/n⌋ ≤ ε^n/n!.
// Valid for ε ≤ max_epsilon.
constexpr detail::Wide exp_lower_bound(Epsilon e) {
  using detail::Wide;
  Wide term = Wide::power_of_two(detail::exp_fraction_bits);
  Wide sum = term;
  for (uint32_t n = 1; n < 512; ++n) {
    term = term.times(e.q32).shr(Epsilon::fraction_bits).div_small(n);
    if (term.is_zero()) break;
    sum = sum + term;
  }
  return sum;
}

// Smallest grid ε with exp_lower_bound(ε) ≥ a/b (so ε ≥ ln(a/b)); 0 when a ≤ b.
// Requires b > 0 and a < 2^250; returns false when a/b > e^max_epsilon.
constexpr bool ln_upper_bound(const detail::Wide& a, const detail::Wide& b, Epsilon& out) {
  if (a <= b) {
    out = Epsilon{0};
    return true;
  }
  const detail::Wide target = a.shl(detail::exp_fraction_bits);
  auto enough = [&](uint64_t q) { return exp_lower_bound(Epsilon{q}) * b >= target; };
  uint64_t lo = 0, hi = max_epsilon.q32;
  if (!enough(hi)) return false;
  detail::bisect(lo, hi, enough);
  out = Epsilon{hi};
  return true;
}

}  // namespace tinyldp

#endif
