// SPDX-License-Identifier: Apache-2.0
// The fast simulation source: each lane is exactly xoshiro256++ (checked against a plain
// one-lane reference and the generator's defining recurrence), the byte stream does not depend
// on request sizes, and it passes the entropy conformance suite.
#include <string.h>

#include "check.hpp"
#include "tinyldp/port/test/entropy_conformance.hpp"
#include "tinyldp/port/test/simulation_source.hpp"

namespace tinyldp::test {
namespace {

// One xoshiro256++ generator, written out plainly.
struct Xoshiro256pp {
  uint64_t s[4];
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t next() {
    const uint64_t result = rotl(s[0] + s[3], 23) + s[0];
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
  }
};

uint64_t splitmix64(uint64_t& x) {
  x += 0x9E3779B97F4A7C15ull;
  uint64_t z = x;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t le64(const uint8_t* p) {
  uint64_t w = 0;
  for (int i = 7; i >= 0; --i) w = (w << 8) | p[i];
  return w;
}

TEST(reference_generator_is_xoshiro256pp) {
  // From state {1, 2, 3, 4}: first output rotl(1 + 4, 23) + 1; second from the updated state
  // {7, 0, 262146, 211106232532992} (worked by hand from the recurrence).
  Xoshiro256pp g{{1, 2, 3, 4}};
  CHECK_EQ(g.next(), (uint64_t{5} << 23) + 1);
  CHECK_EQ(g.s[0], 7u);
  CHECK_EQ(g.s[1], 0u);
  CHECK_EQ(g.s[2], 262146u);
  CHECK_EQ(g.s[3], uint64_t{6} << 45);
}

TEST(every_lane_is_xoshiro256pp_seeded_by_splitmix64) {
  constexpr uint64_t seed = 42;
  Xoshiro256pp lanes[port::SimulationSource::lanes];
  uint64_t x = seed;
  for (auto& lane : lanes)
    for (auto& word : lane.s) word = splitmix64(x);
  port::SimulationSource source(seed);
  static uint8_t stream[64 * 1000 + 24];
  CHECK(source.fill(stream, sizeof stream, TINYLDP_ENTROPY_BLOCKING) == EntropyResult::ok);
  uint32_t mismatches = 0;
  for (size_t w = 0; w + 1 <= sizeof stream / 8; ++w)
    mismatches += le64(stream + 8 * w) != lanes[w % port::SimulationSource::lanes].next();
  CHECK_EQ(mismatches, 0u);
}

TEST(stream_does_not_depend_on_request_sizes) {
  static uint8_t whole[20000], pieces[20000];
  port::SimulationSource a(7), b(7);
  CHECK(a.fill(whole, sizeof whole, 0) == EntropyResult::ok);
  size_t at = 0, step = 1;
  while (at < sizeof pieces) {
    const size_t n = step < sizeof pieces - at ? step : sizeof pieces - at;
    CHECK(b.fill(pieces + at, n, 0) == EntropyResult::ok);
    at += n;
    step = step * 7 % 131 + 1;  // 1..131 bytes: inside, across and over whole rounds
  }
  CHECK(memcmp(whole, pieces, sizeof whole) == 0);
  CHECK_EQ(b.bytes_served(), uint64_t{sizeof pieces});
}

TEST(conforms_to_the_entropy_contract) {
  port::SimulationSource source(3);
  conformance::EntropyConformanceOptions o;
  o.output = write;
  o.name = "simulation";
  o.isr_supported = true;
  CHECK_EQ(conformance::entropy_conformance(source, o), 0u);
}

}  // namespace
}  // namespace tinyldp::test
