// SPDX-License-Identifier: Apache-2.0
// The nRF51 RNG backend on the real (emulated) peripheral: QEMU's microbit machine. Built for
// the cortex-m0 preset only. Checks the registers it programs, the conformance suite, and
// that the bytes are not constant (loose statistical bound: the emulated noise is unseeded).
#include "tinyldp/port/entropy/nrf51_rng.hpp"

#include "check.hpp"
#include "tinyldp/port/test/entropy_conformance.hpp"
#include "test_util.hpp"
#include "tinyldp/port/entropy/health_tests.hpp"

namespace tinyldp::test {
namespace {

namespace reg = tinyldp::port::nrf51_rng;

// The emulated VALRDY comes from a QEMU timer in host time, which a loaded host (parallel ctest,
// other jobs) can delay past the default spin limit: a blocking request must not call the
// peripheral dead then (it did, once, under load). The limit examples/common uses.
reg::Config emulated() {
  reg::Config c;
  c.max_spins_per_byte = 200000000;
  return c;
}

TEST(programs_bias_correction_and_delivers_bytes) {
  port::Nrf51Rng rng(emulated());
  uint8_t out[64];
  CHECK(rng.fill(out, sizeof out, TINYLDP_ENTROPY_BLOCKING) == EntropyResult::ok);
  CHECK_EQ(reg::Mmio::read(reg::config) & reg::config_dercen, reg::config_dercen);
  uint32_t distinct = 0;
  bool seen[256] = {};
  for (uint8_t b : out) {
    distinct += seen[b] ? 0u : 1u;
    seen[b] = true;
  }
  CHECK_GE(distinct, 32u);  // 64 uniform bytes: ~56 distinct expected
}

TEST(bits_are_roughly_balanced) {
  // 256 bytes = 2048 bits, sigma 22.6: within 6 sigma (P(false failure) ~ 2e-9).
  port::Nrf51Rng rng(emulated());
  uint8_t out[256];
  CHECK(rng.fill(out, sizeof out, TINYLDP_ENTROPY_BLOCKING) == EntropyResult::ok);
  int32_t ones = 0;
  for (uint8_t b : out) ones += static_cast<int32_t>(popcount8(b));
  CHECK_LE(ones - 1024 < 0 ? 1024 - ones : ones - 1024, 136);
}

TEST(conforms_on_the_emulated_peripheral) {
  port::Nrf51Rng rng(emulated());
  conformance::EntropyConformanceOptions o;
  o.output = write;
  o.name = "nrf51_rng(qemu)";
  // The emulated VALRDY comes from a QEMU timer in host time, which a loaded host (parallel
  // ctest) can delay: allow ~1 s of polling before calling a non-blocking request stuck.
  o.nonblocking_retries = 20000000;
  o.isr_retries = 20000000;
  CHECK_EQ(conformance::entropy_conformance(rng, o), 0u);
}

TEST(health_tested_peripheral_passes) {
  port::Nrf51Rng rng(emulated());
  port::HealthConfig config;
  config.h_q8 = 1024;  // the backend's claim: 4 bits per byte
  port::HealthTested<port::Nrf51Rng> tested(rng, config);
  uint8_t out[64];
  CHECK(tested.fill(out, sizeof out, TINYLDP_ENTROPY_BLOCKING) == EntropyResult::ok);
  CHECK(tested.monitor().failure() == port::HealthFailure::none);
  CHECK_EQ(tested.monitor().samples(), 1024u + 64u);
}

}  // namespace
}  // namespace tinyldp::test
