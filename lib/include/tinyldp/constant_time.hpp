// SPDX-License-Identifier: Apache-2.0
// tinyldp/constant_time.hpp — comparisons, selections and wide products without branches or
// variable-latency instructions.
//
// Mechanisms handle the private value (and the noise) only through these helpers and plain
// 32-bit arithmetic, so neither decides a branch, a memory address or an instruction's time;
// tests/privacy/test_constant_time checks the host build under valgrind, and
// tests/constant_time_on_target the code each target runs (docs/privacy-model.md, "Timing and
// memory"). Each helper is a handful of ALU instructions; mul_wide is four 32-bit multiplies.
#ifndef TINYLDP_CONSTANT_TIME_HPP
#define TINYLDP_CONSTANT_TIME_HPP

#include <stdint.h>

namespace tinyldp::ct {

// 1 if a < b else 0.
constexpr uint32_t less(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>((uint64_t{a} - uint64_t{b}) >> 63);
}
// 1 if x == 0 else 0.
__attribute__((always_inline)) constexpr uint32_t is_zero(uint32_t x) { return 1u ^ ((x | (0u - x)) >> 31); }
// 1 if a < b else 0, for 64-bit operands.
constexpr uint64_t less64(uint64_t a, uint64_t b) {
  // The borrow out of a − b, computed without a comparison.
  return ((~a & b) | (~(a ^ b) & (a - b))) >> 63;
}
// All ones if bit == 1, zero if bit == 0.
constexpr uint32_t mask(uint32_t bit) { return 0u - bit; }
constexpr uint64_t mask64(uint64_t bit) { return uint64_t{0} - bit; }
// a if bit == 1, b if bit == 0.
constexpr uint32_t select(uint32_t bit, uint32_t a, uint32_t b) {
  return b ^ (mask(bit) & (a ^ b));
}

// The 64-bit product of two 32-bit words from four 16 × 16 → 32-bit multiplies. A plain
// uint64_t product is a long multiply — UMULL, which terminates early on small operands on
// Cortex-M3 — or on Cortex-M0 a call to libgcc's __aeabi_lmul, whose carry branch depends on
// the operands (issue #14, F1); a 32-bit MUL has a fixed latency on every core tinyldp targets.
// On 64-bit hosts the plain product, which is a single fixed-latency multiply there.
constexpr uint64_t mul_wide(uint32_t a, uint32_t b) {
#if defined(__x86_64__) || defined(__aarch64__)
  // 64-bit cores multiply 64-bit words in one fixed-latency instruction (x86-64 MUL/IMUL,
  // AArch64 MUL): the plain product is constant time there, and faster.
  return uint64_t{a} * b;
#else
  const uint32_t al = a & 0xFFFFu, ah = a >> 16, bl = b & 0xFFFFu, bh = b >> 16;
  const uint32_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
  const uint32_t mid = (ll >> 16) + (lh & 0xFFFFu) + (hl & 0xFFFFu);  // < 3 · 2^16
  const uint32_t high = hh + (lh >> 16) + (hl >> 16) + (mid >> 16);
  const uint32_t low = (mid << 16) | (ll & 0xFFFFu);
  return (uint64_t{high} << 32) | low;
#endif
}
// ⌊rest/divisor⌋ for a quotient below 2^bits: a restoring division of `bits` branch-free
// compare-and-subtract steps, a trip count the caller's configuration fixes (a 64-bit `/` is a
// libgcc call on 32-bit cores whose time depends on its operands). divisor·2^(bits − 1) must
// fit in 64 bits; a larger quotient gives a meaningless result in the same time.
constexpr uint32_t quotient(uint64_t rest, uint64_t divisor, unsigned bits) {
  uint32_t q = 0;
  for (unsigned i = bits; i-- > 0;) {
    const uint64_t step = divisor << i;
    const uint32_t fits = static_cast<uint32_t>(less64(rest, step)) ^ 1u;
    rest -= step & mask64(fits);
    q |= fits << i;
  }
  return q;
}

// The high word of a · b (the product's upper 32 bits).
constexpr uint32_t mul_high(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>(mul_wide(a, b) >> 32);
}

}  // namespace tinyldp::ct

#endif
