// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/test/simulation_source.hpp — DETERMINISTIC, NOT RANDOM entropy for simulations on the
// host: evaluating accuracy, benchmarking clients, generating test workloads at scale. Reports
// made with it protect nobody: anyone with the seed can undo the noise.
//
// SimulationSource: eight interleaved xoshiro256++ generators (byte 8·(8r + j) … of the stream
// is round r of generator j), each seeded through splitmix64 from one 64-bit seed. The eight
// lanes run in SIMD registers (AVX-512 or AVX2 when the CPU has them, chosen at run time;
// plain C++ otherwise, with the same output), so it fills at several GB/s — the source for
// simulations whose bottleneck would otherwise be the generator. Its byte stream does not
// depend on how requests are sized. It is not InsecureTestSource (whose stream the golden test
// vectors are defined with) and has no fault injection. Host builds only.
// Selecting it in a release build (NDEBUG) requires TINYLDP_ALLOW_INSECURE_TEST_ENTROPY, as for
// InsecureTestSource.
// Cost: 320 bytes of state; no allocation.
#ifndef TINYLDP_PORT_SIMULATION_SOURCE_HPP
#define TINYLDP_PORT_SIMULATION_SOURCE_HPP

#if defined(NDEBUG) && !defined(TINYLDP_ALLOW_INSECURE_TEST_ENTROPY)
#error "tinyldp: the deterministic simulation source is not allowed in a release build (NDEBUG). \
Define TINYLDP_ALLOW_INSECURE_TEST_ENTROPY (CMake option of the same name) only for tests \
and simulations."
#endif

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/entropy.hpp"

namespace tinyldp::port {

class SimulationSource {
 public:
  static constexpr unsigned lanes = 8;
  static constexpr size_t round_bytes = 8 * lanes;

  explicit SimulationSource(uint64_t seed);

  // Always ok: a simulation never runs out of pseudo-randomness.
  EntropyResult fill(uint8_t* out, size_t length, uint32_t flags);
  // Claims full entropy so it can stand in for a real source in simulations.
  uint16_t min_entropy_q8() const { return 2048; }

  uint64_t bytes_served() const { return bytes_served_; }

 private:
  void next_round(uint8_t* out);  // round_bytes bytes

  uint64_t state_[4][lanes] = {};
  uint8_t pending_[round_bytes] = {};  // the unread rest of the last round
  size_t pending_at_ = round_bytes;
  uint64_t bytes_served_ = 0;
};

// Every port is checked against its contract where it is declared.
static_assert(EntropySource<SimulationSource>);

}  // namespace tinyldp::port

#endif
