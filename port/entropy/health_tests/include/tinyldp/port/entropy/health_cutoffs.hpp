// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/entropy/health_cutoffs.hpp — cutoffs of the NIST SP 800-90B continuous health tests
// (§4.4.1 repetition count, §4.4.2 adaptive proportion) from the claimed min-entropy H per
// sample and the false-alarm rate α = 2^-k, with integer arithmetic only. constexpr: a fixed
// configuration costs nothing at run time, and the tests check the standard's values at
// compile time.
//
// - RCT: C = 1 + ceil(k / H).
// - APT: C = 1 + CRITBINOM(W, 2^-H, 1 - α), i.e. the smallest c with P(B >= c) <= α for
//   B ~ Binomial(W, 2^-H). The tail is summed with 32-bit-mantissa interval arithmetic
//   (every operation rounded outwards), so the returned cutoff always satisfies the bound, and
//   `exact` says whether the interval also proves c - 1 fails it (then c is the standard's
//   value exactly; for every configuration tested it is).
// H is given in 1/256 bit per sample (256 = 1 bit), up to 8 bits (2048).
// Cost: RCT a division; APT ~ 30 integer operations per window sample (about 1 ms for W = 1024
// on a 64 MHz Cortex-M0 if computed at run time), < 200 bytes of stack.
#ifndef TINYLDP_PORT_HEALTH_CUTOFFS_HPP
#define TINYLDP_PORT_HEALTH_CUTOFFS_HPP

#include <stddef.h>
#include <stdint.h>

namespace tinyldp::port {

inline constexpr uint32_t max_h_q8 = 2048;  // 8 bits per sample
inline constexpr uint32_t max_alpha_log2 = 64;

// 1 + ceil(k / H); 0 for parameters out of range (H = 0 or > 8 bits, k = 0 or > 64).
constexpr uint32_t rct_cutoff(uint32_t h_q8, uint32_t alpha_log2) {
  if (h_q8 == 0 || h_q8 > max_h_q8 || alpha_log2 == 0 || alpha_log2 > max_alpha_log2) return 0;
  return 1 + (alpha_log2 * 256 + h_q8 - 1) / h_q8;
}

namespace health_detail {

// A non-negative number m * 2^e, m normalised to [2^31, 2^32) (or m = 0 for zero).
struct Soft {
  uint32_t m;
  int32_t e;
};

constexpr Soft normalise(uint64_t v, int32_t e, bool sticky, bool up) {
  if (v == 0) return {sticky && up ? 1u : 0u, sticky && up ? e : 0};
  while (v < (uint64_t{1} << 31)) {
    v <<= 1;
    --e;
  }
  while (v >= (uint64_t{1} << 32)) {
    sticky = sticky || (v & 1) != 0;
    v >>= 1;
    ++e;
  }
  if (up && sticky) {
    ++v;
    if (v == (uint64_t{1} << 32)) {
      v >>= 1;
      ++e;
    }
  }
  return {static_cast<uint32_t>(v), e};
}

constexpr Soft from_int(uint64_t v) { return normalise(v, 0, false, false); }

constexpr Soft mul(Soft a, Soft b, bool up) {
  if (a.m == 0 || b.m == 0) return {0, 0};
  return normalise(uint64_t{a.m} * b.m, a.e + b.e, false, up);
}

constexpr Soft div(Soft a, Soft b, bool up) {
  if (a.m == 0) return {0, 0};
  const uint64_t n = uint64_t{a.m} << 32;
  return normalise(n / b.m, a.e - b.e - 32, n % b.m != 0, up);
}

constexpr Soft add(Soft a, Soft b, bool up) {
  if (a.m == 0) return b;
  if (b.m == 0) return a;
  if (a.e < b.e) {
    const Soft t = a;
    a = b;
    b = t;
  }
  // 31 guard bits below the larger operand's mantissa.
  const uint64_t big = uint64_t{a.m} << 31;
  const int32_t shift = a.e - b.e;
  uint64_t small = 0;
  bool sticky = false;
  if (shift < 63) {
    const uint64_t wide = uint64_t{b.m} << 31;
    const uint32_t s = static_cast<uint32_t>(shift);
    small = wide >> s;
    sticky = s > 0 && (wide & ((uint64_t{1} << s) - 1)) != 0;
  } else {
    sticky = true;
  }
  return normalise(big + small, a.e - 31, sticky, up);
}

// 1 - x for 0 < x < 1 with e >= -62, exactly then rounded.
constexpr Soft one_minus(Soft x, bool up) {
  const uint32_t shift = static_cast<uint32_t>(-x.e);
  return normalise((uint64_t{1} << shift) - x.m, x.e, false, up);
}

constexpr uint64_t isqrt(uint64_t x) {
  uint64_t r = 0;
  for (uint64_t bit = uint64_t{1} << 62; bit != 0; bit >>= 2) {
    if (x >= r + bit) {
      x -= r + bit;
      r = (r >> 1) + bit;
    } else {
      r >>= 1;
    }
  }
  return r;
}

constexpr Soft sqrt(Soft x, bool up) {
  const uint32_t s = (x.e % 2 == 0) ? 32u : 31u;
  const uint64_t wide = uint64_t{x.m} << s;
  uint64_t r = isqrt(wide);
  const bool inexact = r * r != wide;
  return normalise(r, (x.e - static_cast<int32_t>(s)) / 2, inexact, up);
}

constexpr Soft power(Soft x, uint32_t n, bool up) {
  Soft result = from_int(1);
  while (n != 0) {
    if ((n & 1) != 0) result = mul(result, x, up);
    x = mul(x, x, up);
    n >>= 1;
  }
  return result;
}

// 2^-(h_q8 / 256), rounded down or up.
constexpr Soft two_to_minus(uint32_t h_q8, bool up) {
  Soft root = {0x80000000u, -32};  // 1/2
  for (int i = 0; i < 8; ++i) root = sqrt(root, up);  // 2^(-1/256)
  Soft p = power(root, h_q8 & 255u, up);
  p.e -= static_cast<int32_t>(h_q8 >> 8);
  return p;
}

// x <= 2^-k ?
constexpr bool at_most_power(Soft x, uint32_t k) {
  if (x.m == 0) return true;
  const int32_t lead = x.e + 31;
  const int32_t limit = -static_cast<int32_t>(k);
  if (lead != limit) return lead < limit;
  return x.m == 0x80000000u;
}

// Scans i = W, W-1, ... summing the Binomial(W, p) tail with probabilities rounded one way;
// returns 1 + the first i whose tail exceeds 2^-k.
constexpr uint32_t tail_cutoff(uint32_t window, Soft p, Soft ratio, uint32_t alpha_log2,
                               bool up) {
  Soft pmf = power(p, window, up);  // P(B = W)
  Soft tail = {0, 0};
  for (uint32_t i = window;; --i) {
    tail = add(tail, pmf, up);
    if (!at_most_power(tail, alpha_log2)) return i + 1;
    if (i == 0) return 0;  // unreachable: the whole tail is 1
    // P(B = i-1) = P(B = i) * i / (W - i + 1) * (1 - p) / p
    pmf = div(mul(mul(pmf, from_int(i), up), ratio, up), from_int(window - i + 1), up);
  }
}

}  // namespace health_detail

struct AptCutoff {
  uint32_t cutoff;  // 0: parameters out of range
  bool exact;       // the interval proves this is the smallest admissible cutoff
};

// APT cutoff for window W (2..65536), H in 1/256 bit per sample, α = 2^-alpha_log2.
constexpr AptCutoff apt_cutoff(uint32_t window, uint32_t h_q8, uint32_t alpha_log2) {
  using namespace health_detail;
  if (window < 2 || window > 65536 || h_q8 == 0 || h_q8 > max_h_q8 || alpha_log2 == 0 ||
      alpha_log2 > max_alpha_log2)
    return {0, false};
  const Soft p_lo = two_to_minus(h_q8, false);
  const Soft p_hi = two_to_minus(h_q8, true);
  // (1 - p) / p falls as p rises.
  const Soft ratio_hi = div(one_minus(p_lo, true), p_lo, true);
  const Soft ratio_lo = div(one_minus(p_hi, false), p_hi, false);
  // Upper bounds everywhere give a cutoff whose true tail is surely <= α (the one returned);
  // lower bounds give the smallest cutoff the true value could be.
  const uint32_t conservative = tail_cutoff(window, p_hi, ratio_hi, alpha_log2, true);
  const uint32_t optimistic = tail_cutoff(window, p_lo, ratio_lo, alpha_log2, false);
  return {conservative, conservative == optimistic};
}

}  // namespace tinyldp::port

#endif
