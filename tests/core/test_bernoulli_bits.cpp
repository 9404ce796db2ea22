// SPDX-License-Identifier: Apache-2.0
// The bit-sliced Bernoulli sampler (bernoulli_bits.hpp): exact output distribution by
// exhaustive enumeration of every random string on small widths, the step-major random-bit
// order against a one-bit-at-a-time reference on every word path (32-bit lanes, 64-bit lanes,
// the host's bulk path at multiples of 64, partial words), and the bit accounting. The
// frequencies at 6σ are in tests/privacy/test_conformance.cpp.
#include "tinyldp/bernoulli_bits.hpp"

#include "check.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::test {
namespace {

using CountingRng = RandomBits<port::CountingSource>;

#if defined(TINYLDP_TEST_ON_TARGET)
constexpr unsigned max_random_bits = 14;
#else
constexpr unsigned max_random_bits = 20;
#endif

const Dyadic small_probabilities[] = {{1, 1}, {1, 2}, {3, 2}, {1, 3}, {5, 3}, {7, 3}, {9, 4}};
uint32_t counts[1u << 8];

uint64_t pow2(unsigned b) { return uint64_t{1} << b; }

// The sampler's definition, one bit at a time: step s draws one bit per lane, in lane order,
// and each lane keeps "u < q" over q's low s + 1 bits.
template <class Rng>
void reference_fill(Dyadic q, uint32_t d, Rng& rng, uint8_t* out) {
  for (uint32_t i = 0; i < (d + 7) / 8; ++i) out[i] = 0;
  for (unsigned s = 0; s < q.bits; ++s) {
    const uint32_t q_bit = static_cast<uint32_t>((q.num >> s) & 1u);
    for (uint32_t i = 0; i < d; ++i) {
      const uint32_t u = static_cast<uint32_t>(rng.draw(1));
      const uint32_t r = (uint32_t{out[i / 8]} >> (i % 8)) & 1u;
      const uint32_t next = q_bit ? (r | u) : (r & u);
      out[i / 8] = static_cast<uint8_t>((uint32_t{out[i / 8]} & ~(1u << (i % 8))) | (next << (i % 8)));
    }
  }
}

TEST(every_output_pattern_has_its_exact_probability) {
  int verified = 0;
  for (uint32_t d = 1; d <= 8; ++d) {
    for (Dyadic q : small_probabilities) {
      const unsigned bits = d * q.bits;
      if (bits > max_random_bits) continue;
      const uint32_t outputs = 1u << d;
      for (uint32_t y = 0; y < outputs; ++y) counts[y] = 0;
      bool exact_consumption = true, high_bits_clear = true;
      for (uint64_t r = 0; r < pow2(bits); ++r) {
        port::CountingSource source(r);
        CountingRng rng(source);
        uint8_t out[1] = {0xA5};
        BernoulliBits::fill(q, d, rng, out);
        exact_consumption = exact_consumption && rng.bits_drawn() == bits;
        high_bits_clear = high_bits_clear && (d == 8 || (out[0] >> d) == 0);
        ++counts[out[0] & (outputs - 1)];
      }
      CHECK(exact_consumption);
      CHECK(high_bits_clear);
      for (uint32_t y = 0; y < outputs; ++y) {
        uint64_t expected = 1;  // Π over lanes of q.num or 2^bits − q.num
        for (uint32_t i = 0; i < d; ++i) expected *= ((y >> i) & 1u) ? q.num : pow2(q.bits) - q.num;
        CHECK_EQ(uint64_t{counts[y]}, expected);
      }
      ++verified;
    }
  }
#if defined(TINYLDP_TEST_ON_TARGET)
  CHECK_GE(verified, 25);
#else
  CHECK_GE(verified, 40);
#endif
}

TEST(random_bit_order_is_step_major_on_every_word_path) {
  // Partial words only, one and several 32-bit words, one and several 64-bit words (the host's
  // bulk path), and mixed; q with many bits (several bulk blocks at d = 4096 on the host).
  const uint32_t domains[] = {1, 7, 31, 32, 33, 64, 100, 128, 1000, 1024, 4096};
  const Dyadic qs[] = {{1, 1}, {0x2D413CCD, 32}, {0x12345, 20}};
  static uint8_t a[512], b[512];
  for (uint32_t d : domains) {
    for (Dyadic q : qs) {
      port::InsecureTestSource sa(d * 7 + q.bits), sb(d * 7 + q.bits);
      RandomBits<port::InsecureTestSource> ra(sa), rb(sb);
      BernoulliBits::fill(q, d, ra, a);
      reference_fill(q, d, rb, b);
      CHECK(ra.ok() && rb.ok());
      CHECK_EQ(ra.bits_drawn(), uint64_t{d} * q.bits);
      bool same = true;
      for (size_t i = 0; i < BernoulliBits::bytes_for(d); ++i) same = same && a[i] == b[i];
      CHECK(same);
      if (!same) {
        print("    d = ");
        print_u64(d);
        print(", q.bits = ");
        print_u64(q.bits);
        print("\n");
      }
      // The streams continue in step: the next draw is the same bit of the stream.
      CHECK_EQ(ra.draw(17), rb.draw(17));
    }
  }
}

}  // namespace
}  // namespace tinyldp::test
