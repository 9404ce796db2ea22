// SPDX-License-Identifier: Apache-2.0
// The SP 800-90B health-test wrapper: a stuck source trips the repetition count at exactly its
// cutoff, a low-entropy source trips the adaptive proportion test, a good source runs clean,
// a trip fails closed until reinit, and raw-source failures pass through; the estimate is the
// claim, never more than the raw source's, and none for a raw source that states none.
#include "tinyldp/port/entropy/health_tests.hpp"

#include "check.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"

namespace tinyldp::test {
namespace {

constexpr uint32_t blocking = TINYLDP_ENTROPY_BLOCKING;

port::HealthConfig bytes_full() {  // byte samples claimed at 8 bits: RCT cutoff 4, APT 13 of 512
  port::HealthConfig c;
  c.h_q8 = 2048;
  c.sample_bits = 8;
  c.apt_window = 512;
  return c;
}

port::HealthConfig bits_h1(uint8_t alpha_log2) {  // binary samples, H = 1: RCT 21/41, APT 589/625
  port::HealthConfig c;
  c.h_q8 = 256;
  c.alpha_log2 = alpha_log2;
  c.sample_bits = 1;
  c.apt_window = 1024;
  return c;
}

// Serves bytes from a fixed 16-value alphabet in a shuffled order: H = 4 bits per byte, and
// no value repeats back to back (so only the APT can see it).
class SixteenValues {
 public:
  EntropyResult fill(uint8_t* out, size_t n, uint32_t) {
    for (size_t i = 0; i < n; ++i) {
      uint8_t v;
      do {
        v = static_cast<uint8_t>(rng_.next() & 0x0F);
      } while (v == last_);
      last_ = v;
      out[i] = static_cast<uint8_t>(v * 17);
    }
    return EntropyResult::ok;
  }

 private:
  port::InsecureTestSource rng_{77};
  uint8_t last_ = 0xFF;
};

TEST(cutoffs_follow_the_configuration) {
  const port::HealthMonitor a(bytes_full());
  CHECK_EQ(a.rct_cutoff(), 4u);
  CHECK_EQ(a.apt_cutoff(), 13u);
  const port::HealthMonitor b(bits_h1(40));
  CHECK_EQ(b.rct_cutoff(), 41u);
  CHECK_EQ(b.apt_cutoff(), 625u);
  CHECK(b.failure() == port::HealthFailure::none);
}

TEST(stuck_source_trips_rct_at_exactly_the_cutoff) {
  port::InsecureTestSource raw(1);
  raw.stick_at(0x5A);
  port::HealthTested<port::InsecureTestSource> source(raw, bytes_full());
  uint8_t out[16];
  CHECK(source.fill(out, sizeof out, blocking) == EntropyResult::failed);
  CHECK(source.monitor().failure() == port::HealthFailure::repetition_count);
  CHECK_EQ(source.monitor().tripped_at_sample(), 4u);

  port::InsecureTestSource raw_bits(1);
  raw_bits.stick_at(0xFF);
  port::HealthTested<port::InsecureTestSource> bit_source(raw_bits, bits_h1(20));
  CHECK(bit_source.fill(out, sizeof out, blocking) == EntropyResult::failed);
  CHECK(bit_source.monitor().failure() == port::HealthFailure::repetition_count);
  CHECK_EQ(bit_source.monitor().tripped_at_sample(), 21u);
}

TEST(source_stuck_after_startup_trips_and_zeroes_the_request) {
  port::InsecureTestSource raw(2);
  port::HealthTested<port::InsecureTestSource> source(raw, bytes_full());
  uint8_t out[64];
  CHECK(source.fill(out, sizeof out, blocking) == EntropyResult::ok);
  raw.stick_at(0x00);
  for (uint8_t& b : out) b = 0xEE;
  CHECK(source.fill(out, sizeof out, blocking) == EntropyResult::failed);
  bool zeroed = true;
  for (uint8_t b : out) zeroed = zeroed && b == 0;
  CHECK(zeroed);
}

TEST(low_entropy_without_repeats_trips_the_apt) {
  SixteenValues raw;
  port::HealthTested<SixteenValues> source(raw, bytes_full());
  uint8_t out[32];
  CHECK(source.fill(out, sizeof out, blocking) == EntropyResult::failed);
  CHECK(source.monitor().failure() == port::HealthFailure::adaptive_proportion);
  // Expected 13 matches after ~15 * 12 samples: well inside the first window of 512.
  CHECK_LE(source.monitor().tripped_at_sample(), 512u);
}

TEST(biased_bits_trip_a_test) {
  port::InsecureTestSource raw(3);
  raw.bias_ones(49152);  // P(1) = 0.75: ~768 of 1024 expected vs cutoff 589
  port::HealthTested<port::InsecureTestSource> source(raw, bits_h1(20));
  uint8_t out[32];
  EntropyResult r = EntropyResult::ok;
  for (int i = 0; i < 64 && r == EntropyResult::ok; ++i) r = source.fill(out, sizeof out, blocking);
  CHECK(r == EntropyResult::failed);
  CHECK(source.monitor().failure() != port::HealthFailure::none);
  CHECK_LE(source.monitor().tripped_at_sample(), 2048u);
}

TEST(good_source_runs_clean) {
  // 256 KiB of bit samples at α = 2^-30 (2 M samples: ~0.004 false alarms expected), fixed seed.
  port::InsecureTestSource raw(4);
  port::HealthConfig config = bits_h1(30);
  port::HealthTested<port::InsecureTestSource> source(raw, config);
  uint8_t out[256];
  bool all_ok = true;
  for (int i = 0; i < 1024 && all_ok; ++i)
    all_ok = source.fill(out, sizeof out, blocking) == EntropyResult::ok;
  CHECK(all_ok);
  CHECK_EQ(source.monitor().samples(), 1024u + 1024u * 256u * 8u);  // start-up + requests
  CHECK_EQ(source.min_entropy_q8(), 2048u);  // 1 bit per bit-sample = 8 bits per byte
}

TEST(trip_is_final_until_reinit) {
  port::InsecureTestSource raw(5);
  raw.stick_at(1);
  port::HealthTested<port::InsecureTestSource> source(raw, bytes_full());
  uint8_t out[8];
  CHECK(source.fill(out, sizeof out, blocking) == EntropyResult::failed);
  port::InsecureTestSource fresh(6);
  raw = fresh;  // the raw source recovers...
  CHECK(source.fill(out, sizeof out, blocking) == EntropyResult::failed);  // ...still failed
  CHECK(source.fill(out, 0, blocking) == EntropyResult::failed);
  source.reinit();
  CHECK(source.fill(out, sizeof out, blocking) == EntropyResult::ok);
  CHECK(source.monitor().failure() == port::HealthFailure::none);
}

TEST(raw_failures_pass_through) {
  port::InsecureTestSource raw(7);
  raw.fail_on_call(1, EntropyResult::not_ready);
  port::HealthTested<port::InsecureTestSource> source(raw, bytes_full());
  uint8_t out[8];
  CHECK(source.fill(out, sizeof out, TINYLDP_ENTROPY_NONBLOCKING) == EntropyResult::not_ready);
  CHECK(source.monitor().failure() == port::HealthFailure::none);
  port::InsecureTestSource broken(8);
  broken.fail_on_call(1, EntropyResult::failed);
  port::HealthTested<port::InsecureTestSource> source2(broken, bytes_full());
  CHECK(source2.fill(out, sizeof out, blocking) == EntropyResult::failed);
}

TEST(bad_configurations_fail_closed) {
  port::InsecureTestSource raw(9);
  port::HealthConfig c = bytes_full();
  c.sample_bits = 4;
  port::HealthTested<port::InsecureTestSource> a(raw, c);
  uint8_t out[8];
  CHECK(a.fill(out, sizeof out, blocking) == EntropyResult::failed);
  CHECK(a.monitor().failure() == port::HealthFailure::bad_config);
  port::HealthConfig d = bits_h1(20);
  d.h_q8 = 512;  // 2 bits of entropy claimed for a 1-bit sample
  port::HealthTested<port::InsecureTestSource> b(raw, d);
  CHECK(b.fill(out, sizeof out, blocking) == EntropyResult::failed);
  port::HealthConfig e = bytes_full();
  e.h_q8 = 16;
  e.apt_window = 64;  // cutoff 65 > window: an APT that could never trip
  port::HealthTested<port::InsecureTestSource> f(raw, e);
  CHECK(f.fill(out, sizeof out, blocking) == EntropyResult::failed);
}

// A plan computed at compile time is the same monitor as the configuration it came from: the
// same cutoffs (the standard's, checked at compile time), the same trip on a stuck source, and
// a bad configuration still fails closed.
TEST(a_compile_time_plan_is_the_same_monitor) {
  constexpr auto plan = port::HealthPlan::make(port::HealthConfig{});
  static_assert(plan.rct_cutoff == port::rct_cutoff(256, 20));
  static_assert(plan.apt_cutoff == port::apt_cutoff(512, 256, 20).cutoff);
  port::HealthMonitor from_config(port::HealthConfig{}), from_plan(plan);
  CHECK_EQ(from_plan.rct_cutoff(), from_config.rct_cutoff());
  CHECK_EQ(from_plan.apt_cutoff(), from_config.apt_cutoff());
  uint8_t stuck[64];
  for (uint8_t& b : stuck) b = 0x5A;
  CHECK(!from_config.feed(stuck, sizeof stuck));
  CHECK(!from_plan.feed(stuck, sizeof stuck));
  CHECK(from_plan.failure() == port::HealthFailure::repetition_count);
  CHECK_EQ(from_plan.tripped_at_sample(), from_config.tripped_at_sample());
  port::HealthConfig bad;
  bad.sample_bits = 3;
  port::HealthMonitor bad_plan(port::HealthPlan::make(bad));
  CHECK(bad_plan.failure() == port::HealthFailure::bad_config);
}

TEST(a_raw_source_without_an_estimate_gives_none_and_seeds_nothing) {
  // The raw source states no estimate: the health tests check a claim, they do not make one,
  // so the DRBG refuses the tested source as it refuses the raw one.
  port::InsecureTestSource raw(11);
  raw.set_min_entropy_q8(TINYLDP_ENTROPY_ESTIMATE_UNKNOWN);
  port::HealthTested<port::InsecureTestSource> tested(raw, bytes_full());
  CHECK_EQ(tested.min_entropy_q8(), uint16_t{TINYLDP_ENTROPY_ESTIMATE_UNKNOWN});
  port::ChaCha20Drbg from_raw, from_tested;
  CHECK(from_raw.seed(raw) == EntropyResult::not_supported);
  CHECK(from_tested.seed(tested) == EntropyResult::not_supported);
  CHECK(!from_raw.seeded());
  CHECK(!from_tested.seeded());
  // An estimate below the claim is the one reported; above it, the claim (bit samples: 8H).
  raw.set_min_entropy_q8(512);
  CHECK_EQ(tested.min_entropy_q8(), 512u);
  port::HealthTested<port::InsecureTestSource> bits(raw, bits_h1(20));
  raw.set_min_entropy_q8(TINYLDP_ENTROPY_ESTIMATE_FULL);
  CHECK_EQ(bits.min_entropy_q8(), 2048u);
  raw.set_min_entropy_q8(1024);
  CHECK_EQ(bits.min_entropy_q8(), 1024u);
  // With an estimate, the tested source seeds the DRBG.
  CHECK(from_tested.seed(tested) == EntropyResult::ok);
  CHECK(from_tested.seeded());
}

}  // namespace
}  // namespace tinyldp::test
