// SPDX-License-Identifier: Apache-2.0
// Eight xoshiro256++ lanes side by side; see simulation_source.hpp.
#include "tinyldp/port/test/simulation_source.hpp"

#include <string.h>


namespace tinyldp::port {
namespace {

constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// `rounds` rounds of all lanes into out (rounds·64 bytes). The lane loops have a fixed trip
// count of 8 and no dependence between lanes, so the compiler maps them onto vector registers;
// each clone below is the same C++ compiled for one instruction set.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void generate(uint64_t (&__restrict s)[4][SimulationSource::lanes], uint8_t* __restrict out,
              size_t rounds) {
  constexpr unsigned n = SimulationSource::lanes;
  for (size_t r = 0; r < rounds; ++r, out += 8 * n) {
    uint64_t result[n];
    for (unsigned j = 0; j < n; ++j) {
      result[j] = rotl(s[0][j] + s[3][j], 23) + s[0][j];
      const uint64_t t = s[1][j] << 17;
      s[2][j] ^= s[0][j];
      s[3][j] ^= s[1][j];
      s[1][j] ^= s[2][j];
      s[0][j] ^= s[3][j];
      s[2][j] ^= t;
      s[3][j] = rotl(s[3][j], 45);
    }
    memcpy(out, result, sizeof result);  // little-endian hosts: the stream's byte order
  }
}

}  // namespace

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "host builds are little-endian");

SimulationSource::SimulationSource(uint64_t seed) {
  for (unsigned j = 0; j < lanes; ++j) {
    for (unsigned w = 0; w < 4; ++w) {
      seed += 0x9E3779B97F4A7C15ull;  // splitmix64
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      state_[w][j] = z ^ (z >> 31);
    }
  }
}

void SimulationSource::next_round(uint8_t* out) { generate(state_, out, 1); }

EntropyResult SimulationSource::fill(uint8_t* out, size_t length, uint32_t /*flags*/) {
  if (length == 0) return EntropyResult::ok;  // out may be null
  bytes_served_ += length;
  // The rest of the last round first, then whole rounds straight into the caller's buffer,
  // then a partial round whose unread bytes wait for the next call.
  const size_t from_pending = length < round_bytes - pending_at_ ? length : round_bytes - pending_at_;
  memcpy(out, pending_ + pending_at_, from_pending);
  pending_at_ += from_pending;
  out += from_pending;
  length -= from_pending;
  const size_t rounds = length / round_bytes;
  generate(state_, out, rounds);
  out += rounds * round_bytes;
  length -= rounds * round_bytes;
  if (length != 0) {
    next_round(pending_);
    memcpy(out, pending_, length);
    pending_at_ = length;
  }
  return EntropyResult::ok;
}

}  // namespace tinyldp::port
