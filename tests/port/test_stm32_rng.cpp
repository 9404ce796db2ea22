// SPDX-License-Identifier: Apache-2.0
// The STM32 RNG backend against a register model (QEMU's STM32 machines lack the RNG): seed
// error and clock error paths fail closed, recovery through init(), zero words discarded,
// a word read while an error arose never used, non-blocking pool, timeout.
#include "tinyldp/port/entropy/stm32_rng.hpp"

#include "check.hpp"
#include "register_models.hpp"

namespace tinyldp::test {
namespace {

namespace reg = tinyldp::port::stm32_rng;
using Rng = port::Stm32RngT<Stm32ModelBus>;

constexpr uint32_t blocking = TINYLDP_ENTROPY_BLOCKING;
bool only(const uint8_t* p, size_t n, uint8_t a, uint8_t b) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != a && p[i] != b) return false;
  return true;
}

TEST(enables_the_rng_with_clock_error_detection_on) {
  Stm32Model model;
  Rng rng({}, {&model});
  uint8_t out[10];
  CHECK(rng.fill(out, sizeof out, blocking) == EntropyResult::ok);
  CHECK_EQ(model.cr & reg::cr_rngen, reg::cr_rngen);
  CHECK_EQ(model.cr & reg::cr_ced, 0u);  // CED = 0: clock error detection enabled
  CHECK_EQ(model.words, 3u);             // 10 bytes = 3 words
}

TEST(seed_error_fails_closed_and_recovers_through_init) {
  Stm32Model model;
  Rng rng({}, {&model});
  uint8_t out[32];
  CHECK(rng.fill(out, sizeof out, blocking) == EntropyResult::ok);
  model.seed_error_at = model.words + 3;
  for (uint8_t& b : out) b = 0xEE;
  CHECK(rng.fill(out, sizeof out, blocking) == EntropyResult::failed);
  CHECK(rng.error() == reg::Error::seed);
  CHECK(only(out, sizeof out, 0x00, 0xEE));  // the words read before the error are not used
  CHECK(rng.fill(out, sizeof out, blocking) == EntropyResult::failed);  // sticky
  CHECK(rng.init() == EntropyResult::ok);  // RM recovery: clear SEIS, toggle RNGEN
  CHECK_EQ(model.sr & reg::sr_seis, 0u);
  CHECK(rng.fill(out, sizeof out, blocking) == EntropyResult::ok);
}

TEST(persistent_seed_error_keeps_failing) {
  Stm32Model model;
  model.transient = false;
  model.seed_error_at = 2;
  Rng rng({}, {&model});
  uint8_t out[16];
  CHECK(rng.fill(out, sizeof out, blocking) == EntropyResult::failed);
  CHECK(rng.init() == EntropyResult::failed);
  CHECK(rng.error() == reg::Error::seed);
  CHECK(rng.fill(out, sizeof out, blocking) == EntropyResult::failed);
}

TEST(clock_error_fails_closed_and_recovers_through_init) {
  Stm32Model model;
  Rng rng({}, {&model});
  uint8_t out[16];
  model.clock_error_at = 2;
  CHECK(rng.fill(out, sizeof out, blocking) == EntropyResult::failed);
  CHECK(rng.error() == reg::Error::clock);
  CHECK(rng.init() == EntropyResult::ok);
  CHECK_EQ(model.sr & reg::sr_ceis, 0u);
  CHECK(rng.fill(out, sizeof out, blocking) == EntropyResult::ok);
}

TEST(error_raised_by_the_read_itself_discards_that_word) {
  // The error appears with the first DR read: SR after the read shows it, nothing is served.
  Stm32Model model;
  model.seed_error_at = 1;
  Rng rng({}, {&model});
  uint8_t out[4] = {0xEE, 0xEE, 0xEE, 0xEE};
  CHECK(rng.fill(out, sizeof out, blocking) == EntropyResult::failed);
  CHECK(only(out, sizeof out, 0xEE, 0xEE));
}

TEST(errors_discard_pooled_words) {
  Stm32Model model;
  model.latency = 1;
  Rng rng({}, {&model});
  uint8_t out[40];
  // Requests larger than the pool are never served non-blocking, but fill the pool.
  for (int i = 0; i < 20; ++i)
    CHECK(rng.fill(out, 33, TINYLDP_ENTROPY_NONBLOCKING) == EntropyResult::not_ready);
  model.sr |= reg::sr_cecs | reg::sr_ceis;  // the RNG clock fails while the pool is full
  CHECK(rng.fill(out, 4, TINYLDP_ENTROPY_NONBLOCKING) == EntropyResult::failed);
  CHECK(rng.error() == reg::Error::clock);
  CHECK(rng.fill(out, 4, blocking) == EntropyResult::failed);
}

TEST(zero_words_are_discarded_and_a_silent_rng_times_out) {
  Stm32Model model;
  model.zero_words = true;
  reg::Config config;
  config.max_spins_per_word = 50;
  Rng rng(config, {&model});
  uint8_t out[4];
  CHECK(rng.fill(out, sizeof out, blocking) == EntropyResult::failed);
  CHECK(rng.error() == reg::Error::timeout);
  model.zero_words = false;
  CHECK(rng.init() == EntropyResult::ok);
  CHECK(rng.fill(out, sizeof out, blocking) == EntropyResult::ok);
  model.never_ready = true;
  CHECK(rng.fill(out, sizeof out, blocking) == EntropyResult::failed);
  CHECK(rng.error() == reg::Error::timeout);
}

TEST(non_blocking_requests_never_wait) {
  Stm32Model model;
  model.latency = 5;
  Rng rng({}, {&model});
  uint8_t out[16];
  uint32_t not_ready = 0;
  EntropyResult r = EntropyResult::not_ready;
  while (r == EntropyResult::not_ready && not_ready < 1000) {
    r = rng.fill(out, sizeof out, TINYLDP_ENTROPY_NONBLOCKING | TINYLDP_ENTROPY_FROM_ISR);
    if (r == EntropyResult::not_ready) ++not_ready;
  }
  CHECK(r == EntropyResult::ok);
  CHECK_GE(not_ready, 4u);
}

}  // namespace
}  // namespace tinyldp::test
