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
// ln_upper_bound bisects over ~38 of them at run time; at compile time about 9 (an integer
// estimate of ln(a/b) narrows the bisection to ±64 grid points, both ends verified: the same
// result, a fraction of the compiler's time). Nothing here runs per report.
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

namespace detail {
// log2(x)·2^30 for x ≥ 1, an estimate: the bit length, then x's top 32 bits squared 30 times
// (each square's top bit is the next binary digit). Within about 2^-28 of log2(x).
constexpr int64_t log2_q30(const Wide& x) {
  const int length = x.bit_length();
  uint64_t m = (length > 32 ? x.shr(length - 32) : x.shl(32 - length)).low64();  // in [2^31, 2^32)
  int64_t log = int64_t{length - 1} << 30;
  for (int digit = 29; digit >= 0; --digit) {
    m = (m * m) >> 31;  // the mantissa squared, in [2^31, 2^33)
    if (m >> 32 != 0) {
      m >>= 1;
      log += int64_t{1} << digit;
    }
  }
  return log;
}

// ln(a/b)·2^32 for a > b > 0, an estimate within a few grid points (ln 2 = 2977044472·2^-32);
// at most just above max_epsilon.
constexpr uint64_t ln_estimate_q32(const Wide& a, const Wide& b) {
  constexpr uint64_t ln2_q32 = 2977044472u;
  const int64_t difference = log2_q30(a) - log2_q30(b);  // log2(a/b)·2^30
  if (difference <= 0) return 0;
  const uint64_t d = static_cast<uint64_t>(difference);
  if (d > (uint64_t{29} << 30)) return max_epsilon.q32 + 1;  // e^20 < 2^29
  return ((d >> 15) * ln2_q32 >> 15) + ((d & 0x7fff) * ln2_q32 >> 30);
}

// ln_upper_bound's search, with or without the estimate. The bisection's ends then come from
// ln_estimate_q32 ± 64 and are themselves evaluated, so the result is the same whatever the
// estimate (tests/core/test_epsilon compares both): only its cost depends on it.
template <bool Estimate>
constexpr bool ln_search(const Wide& a, const Wide& b, Epsilon& out) {
  if (a <= b) {
    out = Epsilon{0};
    return true;
  }
  const Wide target = a.shl(exp_fraction_bits);
  auto enough = [&](uint64_t q) { return exp_lower_bound(Epsilon{q}) * b >= target; };
  // enough(lo) is false (ε = 0: a > b) and enough(hi) true, kept so by every narrowing.
  uint64_t lo = 0, hi = max_epsilon.q32;
  if constexpr (Estimate) {
    constexpr uint64_t margin = 64;
    const uint64_t guess = ln_estimate_q32(a, b);
    if (guess + margin < hi) (enough(guess + margin) ? hi : lo) = guess + margin;
    if (guess > lo + margin && guess - margin < hi) (enough(guess - margin) ? hi : lo) = guess - margin;
  }
  if (hi == max_epsilon.q32 && !enough(hi)) return false;
  bisect(lo, hi, enough);
  out = Epsilon{hi};
  return true;
}
}  // namespace detail

// Smallest grid ε with exp_lower_bound(ε) ≥ a/b (so ε ≥ ln(a/b)); 0 when a ≤ b.
// Requires b > 0 and a < 2^250; returns false when a/b > e^max_epsilon. The estimate serves
// the compiler only: a device configuring itself runs the plain bisection (no code for the
// estimate in its flash).
constexpr bool ln_upper_bound(const detail::Wide& a, const detail::Wide& b, Epsilon& out) {
  if (__builtin_is_constant_evaluated()) return detail::ln_search<true>(a, b, out);
  return detail::ln_search<false>(a, b, out);
}

}  // namespace tinyldp

#endif
