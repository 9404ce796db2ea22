// tinyldp/constant_time.hpp — comparisons and selections without branches.
//
// Mechanisms handle the private value only through these helpers (and plain arithmetic), so
// the value never decides a branch or a memory address; tests/privacy/test_constant_time
// checks this under valgrind. Each helper is a handful of ALU instructions.
#ifndef TINYLDP_CONSTANT_TIME_HPP
#define TINYLDP_CONSTANT_TIME_HPP

#include <stdint.h>

namespace tinyldp::ct {

// 1 if a < b else 0.
constexpr uint32_t less(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>((uint64_t{a} - uint64_t{b}) >> 63);
}
// 1 if x == 0 else 0.
constexpr uint32_t is_zero(uint32_t x) { return 1u ^ ((x | (0u - x)) >> 31); }
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

}  // namespace tinyldp::ct

#endif
