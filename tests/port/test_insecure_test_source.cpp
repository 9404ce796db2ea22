// SPDX-License-Identifier: Apache-2.0
// The deterministic test source's fault injection: fail on call N (each result), short reads,
// stuck-at output, biased bits (statistical check with a fixed seed), and its determinism.
#include "tinyldp/port/test/insecure_test_source.hpp"

#include "check.hpp"
#include "test_util.hpp"

namespace tinyldp::test {
namespace {

TEST(same_seed_same_bytes_on_every_target) {
  port::InsecureTestSource a(42), b(42);
  uint8_t x[16], y[16];
  CHECK(a.fill(x, sizeof x, 0) == EntropyResult::ok);
  CHECK(b.fill(y, sizeof y, 0) == EntropyResult::ok);
  CHECK(bytes_equal(x, y, sizeof x));
  // xoshiro256** seeded through splitmix64(42): first output, little-endian.
  port::InsecureTestSource c(42);
  const uint64_t first = c.next();
  uint64_t from_bytes = 0;
  for (int i = 7; i >= 0; --i) from_bytes = from_bytes << 8 | x[i];
  CHECK_EQ(first, from_bytes);
}

TEST(fail_on_call_n_with_each_result) {
  const EntropyResult results[] = {EntropyResult::failed, EntropyResult::not_ready,
                                   EntropyResult::not_supported};
  for (EntropyResult want : results) {
    port::InsecureTestSource s(1);
    s.fail_on_call(3, want);
    uint8_t out[4];
    CHECK(s.fill(out, sizeof out, 0) == EntropyResult::ok);
    CHECK(s.fill(out, sizeof out, 0) == EntropyResult::ok);
    CHECK(s.fill(out, sizeof out, 0) == want);
    CHECK(s.fill(out, sizeof out, 0) == want);
    CHECK_EQ(s.calls(), 4u);
  }
}

TEST(short_reads_answer_ok_but_leave_the_tail) {
  port::InsecureTestSource s(2);
  s.short_reads(5);
  uint8_t out[12];
  for (uint8_t& b : out) b = 0xCC;
  CHECK(s.fill(out, sizeof out, 0) == EntropyResult::ok);
  uint32_t tail_untouched = 0;
  for (size_t i = 5; i < sizeof out; ++i) tail_untouched += out[i] == 0xCC ? 1u : 0u;
  CHECK_EQ(tail_untouched, 7u);
  CHECK_EQ(s.bytes_served(), 5u);
}

TEST(stuck_at_output) {
  port::InsecureTestSource s(3);
  s.stick_at(0x3C);
  uint8_t out[9];
  CHECK(s.fill(out, sizeof out, 0) == EntropyResult::ok);
  for (uint8_t b : out) CHECK_EQ(b, 0x3Cu);
}

TEST(biased_bits_have_the_requested_proportion) {
  // P(1) = 0.2 over 2^17 bits: mean 26214.4, sigma = 144.8; accept within 6 sigma.
  port::InsecureTestSource s(4);
  s.bias_ones(13107);  // 13107 / 65536 = 0.19999...
  uint8_t out[256];
  uint64_t ones = 0;
  for (int i = 0; i < 64; ++i) {
    CHECK(s.fill(out, sizeof out, 0) == EntropyResult::ok);
    for (uint8_t b : out) ones += popcount8(b);
  }
  const int64_t diff = static_cast<int64_t>(ones) - 26214;
  CHECK_LE(diff < 0 ? -diff : diff, 869);
  // Extreme settings: never and (almost) always.
  port::InsecureTestSource never(5), always(5);
  never.bias_ones(0);
  always.bias_ones(65535);
  uint8_t a[32], b[32];
  CHECK(never.fill(a, sizeof a, 0) == EntropyResult::ok);
  CHECK(always.fill(b, sizeof b, 0) == EntropyResult::ok);
  uint32_t zeros_never = 0, ones_always = 0;
  for (size_t i = 0; i < sizeof a; ++i) {
    zeros_never += 8 - popcount8(a[i]);
    ones_always += popcount8(b[i]);
  }
  CHECK_EQ(zeros_never, 256u);
  CHECK_GE(ones_always, 250u);  // P(0) = 2^-16 per bit
}

}  // namespace
}  // namespace tinyldp::test
