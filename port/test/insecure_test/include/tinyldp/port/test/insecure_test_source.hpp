// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/test/insecure_test_source.hpp — DETERMINISTIC, NOT RANDOM entropy for tests and
// simulations. Reports made with it protect nobody: anyone with the seed can undo the noise.
//
// InsecureTestSource: xoshiro256** seeded through splitmix64 from a 64-bit seed; fast
//   (docs/benchmarks.md) and bit-identical on every architecture. It claims full entropy
//   (min_entropy_q8() = 2048, settable) so tests can seed a DRBG from it. Fault injection:
//   fail_on_call(n) (with failed, not_ready or not_supported), stuck-at output, short reads
//   (a buggy driver that answers ok but writes only part of the buffer), biased bits (each
//   bit 1 with a chosen probability).
// CountingSource: serves the bytes of a counter (little-endian) then zeros, so a test can
//   drive a mechanism through *every* random string of up to 64 bits.
// Selecting these in a release build (NDEBUG) requires defining
// TINYLDP_ALLOW_INSECURE_TEST_ENTROPY, which the CMake option of the same name does.
// Cost: 72 bytes of state; no allocation.
#ifndef TINYLDP_PORT_INSECURE_TEST_SOURCE_HPP
#define TINYLDP_PORT_INSECURE_TEST_SOURCE_HPP

#if defined(NDEBUG) && !defined(TINYLDP_ALLOW_INSECURE_TEST_ENTROPY)
#error "tinyldp: the insecure test entropy source is not allowed in a release build (NDEBUG). \
Define TINYLDP_ALLOW_INSECURE_TEST_ENTROPY (CMake option of the same name) only for tests \
and simulations."
#endif

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/endian.hpp"
#include "tinyldp/entropy.hpp"

namespace tinyldp::port {

class InsecureTestSource {
 public:
  explicit constexpr InsecureTestSource(uint64_t seed) { reseed(seed); }

  constexpr void reseed(uint64_t seed) {
    for (auto& word : state_) {
      seed += 0x9E3779B97F4A7C15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      word = z ^ (z >> 31);
    }
    calls_ = 0;
  }

  uint16_t min_entropy_q8() const { return estimate_; }
  void set_min_entropy_q8(uint16_t estimate) { estimate_ = estimate; }

  // Fault injection: the n-th call from now (1 = the next) and all later ones answer `result`.
  void fail_on_call(uint64_t n, EntropyResult result = EntropyResult::failed) {
    fail_at_ = calls_ + n;
    failure_ = result;
  }
  // Fault injection: every byte from now on is `byte` (a stuck-at source).
  void stick_at(uint8_t byte) {
    stuck_ = true;
    stuck_byte_ = byte;
  }

  // Fault injection: from now on each call writes at most `max_bytes` bytes, leaves the rest
  // of the buffer untouched and still answers ok (the bug the conformance suite must catch).
  void short_reads(size_t max_bytes) {
    short_ = true;
    short_max_ = max_bytes;
  }
  // Fault injection: from now on each output bit is 1 with probability p_q16 / 65536
  // (independently, drawn from the same deterministic stream).
  void bias_ones(uint16_t p_q16) {
    biased_ = true;
    ones_q16_ = p_q16;
  }

  EntropyResult fill(uint8_t* out, size_t length, uint32_t /*flags*/) {
    ++calls_;
    if (fail_at_ != 0 && calls_ >= fail_at_) return failure_;
    if (short_ && length > short_max_) length = short_max_;
    size_t i = 0;
    if (!biased_ && !stuck_) {
      for (; i + 8 <= length; i += 8) store_le<uint64_t>(out + i, next());  // the fast path
    }
    while (i < length) {
      if (biased_) {
        out[i++] = biased_byte();
        continue;
      }
      uint64_t w = next();
      for (int b = 0; b < 8 && i < length; ++b, ++i) {
        out[i] = stuck_ ? stuck_byte_ : static_cast<uint8_t>(w);
        w >>= 8;
      }
    }
    bytes_served_ += length;
    return EntropyResult::ok;
  }

  uint64_t next() {
    const uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  uint64_t calls() const { return calls_; }
  uint64_t bytes_served() const { return bytes_served_; }

 private:
  static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint8_t biased_byte() {
    uint8_t byte = 0;
    for (int half = 0; half < 2; ++half) {
      uint64_t w = next();
      for (int b = 0; b < 4; ++b, w >>= 16) {
        const uint8_t bit = (w & 0xFFFFu) < ones_q16_ ? 1 : 0;
        byte = static_cast<uint8_t>(byte | bit << (4 * half + b));
      }
    }
    return byte;
  }

  uint64_t state_[4] = {};
  uint64_t calls_ = 0;
  uint64_t fail_at_ = 0;
  uint64_t bytes_served_ = 0;
  EntropyResult failure_ = EntropyResult::failed;
  size_t short_max_ = 0;
  uint16_t estimate_ = TINYLDP_ENTROPY_ESTIMATE_FULL;
  uint16_t ones_q16_ = 0;
  bool stuck_ = false;
  bool short_ = false;
  bool biased_ = false;
  uint8_t stuck_byte_ = 0;
};

// Serves `counter` as 8 little-endian bytes, then zeros. Driving a mechanism once per counter
// value 0 … 2^T − 1 (T = bits it consumes, ≤ 64) visits every random string exactly once.
class CountingSource {
 public:
  explicit constexpr CountingSource(uint64_t counter) : counter_(counter) {}
  EntropyResult fill(uint8_t* out, size_t length, uint32_t /*flags*/) {
    for (size_t i = 0; i < length; ++i) {
      const size_t byte = served_ + i;
      out[i] = static_cast<uint8_t>(byte < 8 ? counter_ >> (8 * byte) : 0);
    }
    served_ += length;
    return EntropyResult::ok;
  }

 private:
  uint64_t counter_;
  size_t served_ = 0;
};

// Every port is checked against its contract where it is declared.
static_assert(EntropySource<InsecureTestSource> && EntropySource<CountingSource>);

}  // namespace tinyldp::port

#endif
