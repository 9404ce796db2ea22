// SPDX-License-Identifier: Apache-2.0
// The nRF51 RNG backend against a register model: start-up sequence and bias correction,
// blocking and non-blocking paths, a dead peripheral failing closed, restart.
#include "tinyldp/port/entropy/nrf51_rng.hpp"

#include "check.hpp"
#include "register_models.hpp"

namespace tinyldp::test {
namespace {

namespace reg = tinyldp::port::nrf51_rng;

TEST(starts_with_bias_correction_and_reads_one_byte_per_event) {
  Nrf51Model model;
  port::Nrf51RngT<Nrf51ModelBus> rng({}, {&model});
  uint8_t out[20];
  CHECK(rng.fill(out, sizeof out, TINYLDP_ENTROPY_BLOCKING) == EntropyResult::ok);
  CHECK_EQ(model.config, reg::config_dercen);
  CHECK(model.running);
  CHECK_EQ(model.starts, 1u);
  CHECK_EQ(model.values_produced, 20u);
  CHECK_EQ(rng.min_entropy_q8(), 1024u);
}

TEST(bias_correction_can_be_turned_off) {
  Nrf51Model model;
  reg::Config config;
  config.bias_correction = false;
  config.min_entropy_q8 = 512;
  port::Nrf51RngT<Nrf51ModelBus> rng(config, {&model});
  uint8_t out[4];
  CHECK(rng.fill(out, sizeof out, TINYLDP_ENTROPY_BLOCKING) == EntropyResult::ok);
  CHECK_EQ(model.config, 0u);
  CHECK_EQ(rng.min_entropy_q8(), 512u);
}

TEST(non_blocking_requests_pool_bytes_and_never_wait) {
  Nrf51Model model;
  model.latency = 4;
  port::Nrf51RngT<Nrf51ModelBus> rng({}, {&model});
  uint8_t out[8];
  uint32_t not_ready = 0;
  EntropyResult r = EntropyResult::not_ready;
  while (r == EntropyResult::not_ready && not_ready < 1000) {
    r = rng.fill(out, sizeof out, TINYLDP_ENTROPY_NONBLOCKING);
    if (r == EntropyResult::not_ready) ++not_ready;
  }
  CHECK(r == EntropyResult::ok);
  CHECK_GT(not_ready, 8u);  // it took several calls: none of them waited for a byte
  // The pool holds at most 32 bytes: a bigger non-blocking request is never served.
  uint8_t big[40];
  for (int i = 0; i < 500; ++i)
    CHECK(rng.fill(big, sizeof big, TINYLDP_ENTROPY_FROM_ISR) == EntropyResult::not_ready);
  // A blocking request drains the pool first, then waits for the rest.
  CHECK(rng.fill(big, sizeof big, TINYLDP_ENTROPY_BLOCKING) == EntropyResult::ok);
}

TEST(dead_peripheral_fails_closed_until_restart) {
  Nrf51Model model;
  reg::Config config;
  config.max_spins_per_byte = 100;
  port::Nrf51RngT<Nrf51ModelBus> rng(config, {&model});
  uint8_t out[8];
  CHECK(rng.fill(out, sizeof out, TINYLDP_ENTROPY_BLOCKING) == EntropyResult::ok);
  model.dead = true;
  for (uint8_t& b : out) b = 0x77;
  CHECK(rng.fill(out, sizeof out, TINYLDP_ENTROPY_BLOCKING) == EntropyResult::failed);
  bool clean = true;
  for (uint8_t b : out) clean = clean && (b == 0 || b == 0x77);
  CHECK(clean);
  model.dead = false;
  CHECK(rng.fill(out, sizeof out, TINYLDP_ENTROPY_BLOCKING) == EntropyResult::failed);
  rng.start();
  CHECK(rng.fill(out, sizeof out, TINYLDP_ENTROPY_BLOCKING) == EntropyResult::ok);
  CHECK_EQ(model.starts, 2u);
}

TEST(stop_halts_the_peripheral) {
  Nrf51Model model;
  port::Nrf51RngT<Nrf51ModelBus> rng({}, {&model});
  uint8_t out[2];
  CHECK(rng.fill(out, sizeof out, TINYLDP_ENTROPY_BLOCKING) == EntropyResult::ok);
  rng.stop();
  CHECK(!model.running);
  CHECK(rng.fill(out, sizeof out, TINYLDP_ENTROPY_BLOCKING) == EntropyResult::ok);  // restarts
  CHECK(model.running);
}

}  // namespace
}  // namespace tinyldp::test
