// SPDX-License-Identifier: Apache-2.0
// Randomness consumed per report must not depend on the private value: for each mechanism,
// every value of the domain is privatized from the same seed, and the bits drawn and the
// bytes pulled from the source must be identical across all values, report after report.
#include "check.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace tinyldp::test {
namespace {

using Rng = RandomBits<port::InsecureTestSource>;

constexpr int reports = 50;

// Privatizes `reports` times with value v from seed 77; returns bytes taken from the source
// and checks the per-report bit count.
template <class Privatize>
uint64_t bytes_used(uint32_t v, uint64_t bits_per_report, Privatize privatize) {
  port::InsecureTestSource source(77);
  Rng rng(source);
  for (int i = 0; i < reports; ++i) {
    const uint64_t before = rng.bits_drawn();
    CHECK(privatize(v, rng) == Status::ok);
    CHECK_EQ(rng.bits_drawn() - before, bits_per_report);
  }
  return source.bytes_served();
}

TEST(binary_rr_uses_the_same_entropy_for_both_bits) {
  constexpr auto rr = BinaryRr::make(Epsilon::from_double(0.3));
  auto run = [&](uint32_t v, Rng& rng) {
    uint8_t out;
    return rr.privatize(v, rng, out);
  };
  CHECK_EQ(bytes_used(0, rr.random_bits_per_report(), run),
           bytes_used(1, rr.random_bits_per_report(), run));
}

TEST(kary_rr_uses_the_same_entropy_for_every_value) {
  constexpr auto krr = KaryRr::make(Epsilon::from_double(2.0), 100);
  auto run = [&](uint32_t v, Rng& rng) {
    uint32_t out;
    return krr.privatize(v, rng, out);
  };
  const uint64_t reference = bytes_used(0, krr.random_bits_per_report(), run);
  for (uint32_t v = 1; v < 100; ++v) CHECK_EQ(bytes_used(v, krr.random_bits_per_report(), run), reference);
}

TEST(unary_encodings_use_the_same_entropy_for_every_value) {
  constexpr auto oue = UnaryEncoding::make_oue(Epsilon::from_double(1.0), 45);
  constexpr auto sue = UnaryEncoding::make_sue(Epsilon::from_double(4.0), 45);
  const UnaryEncoding* mechanisms[] = {&oue, &sue};
  for (const auto* ue : mechanisms) {
    auto run = [&](uint32_t v, Rng& rng) {
      uint8_t out[6];
      return ue->privatize(v, rng, out, sizeof out);
    };
    const uint64_t reference = bytes_used(0, ue->random_bits_per_report(), run);
    for (uint32_t v = 1; v < 45; ++v)
      CHECK_EQ(bytes_used(v, ue->random_bits_per_report(), run), reference);
  }
}

}  // namespace
}  // namespace tinyldp::test
