// SPDX-License-Identifier: Apache-2.0
// tinyldp/wide_uint.hpp — fixed-width unsigned integers for configuration-time arithmetic.
//
// Turning ε into exact fixed-point probabilities needs products and quotients of 200-300
// bits (a 64-bit probability numerator times a 128-fraction-bit bound on e^ε). UInt<N> is
// N 32-bit limbs, constexpr throughout, with no 128-bit compiler types so it builds the same
// on 32-bit MCUs. It is never used per report. Cost: 4·N bytes per value; division is
// bit-serial (about 40·N operations per quotient bit).
#ifndef TINYLDP_WIDE_UINT_HPP
#define TINYLDP_WIDE_UINT_HPP

#include <stdint.h>

namespace tinyldp {

template <int N>
struct UInt {
  static_assert(N >= 2, "at least 64 bits");
  uint32_t limb[static_cast<unsigned>(N)] = {};  // least significant first

  static constexpr UInt from(uint64_t v) {
    UInt r;
    r.limb[0] = static_cast<uint32_t>(v);
    r.limb[1] = static_cast<uint32_t>(v >> 32);
    return r;
  }
  // 2^k, for k < 32·N.
  static constexpr UInt power_of_two(int k) {
    UInt r;
    r.limb[k / 32] = uint32_t{1} << (k % 32);
    return r;
  }

  constexpr uint64_t low64() const { return uint64_t{limb[0]} | (uint64_t{limb[1]} << 32); }
  constexpr bool is_zero() const {
    for (int i = 0; i < N; ++i)
      if (limb[i] != 0) return false;
    return true;
  }
  constexpr bool fits_u64() const {
    for (int i = 2; i < N; ++i)
      if (limb[i] != 0) return false;
    return true;
  }
  constexpr int bit_length() const {
    for (int i = N - 1; i >= 0; --i) {
      if (limb[i] != 0) {
        int b = 32;
        while (((limb[i] >> (b - 1)) & 1u) == 0) --b;
        return 32 * i + b;
      }
    }
    return 0;
  }
  constexpr bool bit(int k) const { return ((limb[k / 32] >> (k % 32)) & 1u) != 0; }

  friend constexpr int compare(const UInt& a, const UInt& b) {
    for (int i = N - 1; i >= 0; --i) {
      if (a.limb[i] != b.limb[i]) return a.limb[i] < b.limb[i] ? -1 : 1;
    }
    return 0;
  }
  friend constexpr bool operator==(const UInt& a, const UInt& b) { return compare(a, b) == 0; }
  friend constexpr bool operator<(const UInt& a, const UInt& b) { return compare(a, b) < 0; }
  friend constexpr bool operator<=(const UInt& a, const UInt& b) { return compare(a, b) <= 0; }
  friend constexpr bool operator>(const UInt& a, const UInt& b) { return compare(a, b) > 0; }
  friend constexpr bool operator>=(const UInt& a, const UInt& b) { return compare(a, b) >= 0; }

  friend constexpr UInt operator+(UInt a, const UInt& b) {
    uint64_t carry = 0;
    for (int i = 0; i < N; ++i) {
      const uint64_t s = uint64_t{a.limb[i]} + b.limb[i] + carry;
      a.limb[i] = static_cast<uint32_t>(s);
      carry = s >> 32;
    }
    return a;
  }
  // a − b for a ≥ b.
  friend constexpr UInt operator-(UInt a, const UInt& b) {
    uint64_t borrow = 0;
    for (int i = 0; i < N; ++i) {
      const uint64_t d = uint64_t{a.limb[i]} - b.limb[i] - borrow;
      a.limb[i] = static_cast<uint32_t>(d);
      borrow = (d >> 32) & 1u;
    }
    return a;
  }
  // Product truncated to N limbs (callers size N so nothing is lost).
  friend constexpr UInt operator*(const UInt& a, const UInt& b) {
    UInt r;
    for (int i = 0; i < N; ++i) {
      if (a.limb[i] == 0) continue;
      uint64_t carry = 0;
      for (int j = 0; i + j < N; ++j) {
        const uint64_t t = uint64_t{a.limb[i]} * b.limb[j] + r.limb[i + j] + carry;
        r.limb[i + j] = static_cast<uint32_t>(t);
        carry = t >> 32;
      }
    }
    return r;
  }
  // Product with a 64-bit factor, truncated to N limbs.
  constexpr UInt times(uint64_t f) const {
    UInt r;
    const uint32_t f0 = static_cast<uint32_t>(f), f1 = static_cast<uint32_t>(f >> 32);
    uint64_t carry = 0;
    for (int i = 0; i < N; ++i) {
      const uint64_t t = uint64_t{limb[i]} * f0 + carry;
      r.limb[i] = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    if (f1 != 0) {
      carry = 0;
      for (int i = 0; i + 1 < N; ++i) {
        const uint64_t t = uint64_t{limb[i]} * f1 + r.limb[i + 1] + carry;
        r.limb[i + 1] = static_cast<uint32_t>(t);
        carry = t >> 32;
      }
    }
    return r;
  }
  constexpr UInt shl(int k) const {
    UInt r;
    const int w = k / 32, s = k % 32;
    for (int i = N - 1; i >= w; --i) {
      uint32_t v = limb[i - w] << s;
      if (s != 0 && i - w - 1 >= 0) v |= limb[i - w - 1] >> (32 - s);
      r.limb[i] = v;
    }
    return r;
  }
  constexpr UInt shr(int k) const {
    UInt r;
    const int w = k / 32, s = k % 32;
    for (int i = 0; i + w < N; ++i) {
      uint32_t v = limb[i + w] >> s;
      if (s != 0 && i + w + 1 < N) v |= limb[i + w + 1] << (32 - s);
      r.limb[i] = v;
    }
    return r;
  }
  // Quotient by a small divisor (d > 0), rounded down.
  constexpr UInt div_small(uint32_t d) const {
    UInt q;
    uint64_t rem = 0;
    for (int i = N - 1; i >= 0; --i) {
      const uint64_t cur = (rem << 32) | limb[i];
      q.limb[i] = static_cast<uint32_t>(cur / d);
      rem = cur % d;
    }
    return q;
  }
  // Quotient and remainder, b > 0.
  static constexpr void divide(const UInt& a, const UInt& b, UInt& quotient, UInt& remainder) {
    quotient = UInt{};
    remainder = UInt{};
    for (int k = a.bit_length() - 1; k >= 0; --k) {
      remainder = remainder.shl(1);
      if (a.bit(k)) remainder.limb[0] |= 1u;
      if (remainder >= b) {
        remainder = remainder - b;
        quotient.limb[k / 32] |= uint32_t{1} << (k % 32);
      }
    }
  }
  friend constexpr UInt floor_div(const UInt& a, const UInt& b) {
    UInt q, r;
    divide(a, b, q, r);
    return q;
  }
  friend constexpr UInt ceil_div(const UInt& a, const UInt& b) {
    UInt q, r;
    divide(a, b, q, r);
    return r.is_zero() ? q : q + UInt::from(1);
  }
};

}  // namespace tinyldp

#endif
