// SPDX-License-Identifier: Apache-2.0
// Port: the nRF51 RNG peripheral driver (register level), one blocking 32-byte request.
// Built for every target (it only touches memory-mapped registers); runs only on an nRF51.
#include "footprint.hpp"
#include "tinyldp/port/entropy/nrf51_rng.hpp"

extern "C" int footprint_run() {
  // The cortex-m0 preset runs this on QEMU's microbit, whose RNG model paces its bytes by a
  // timer in host time while the guest spins at full speed: a late timer tick took 100 000 to
  // 300 000 spins a byte on a busy host, too near the real chip's default limit (10^6) for a
  // test that must pass every time. The limit examples/common and test_nrf51_rng_qemu use;
  // the same code and flash (one 32-bit constant either way).
  tinyldp::port::nrf51_rng::Config config;
  config.max_spins_per_byte = 200000000;
  tinyldp::port::Nrf51Rng rng(config);
  uint8_t out[32];
  if (rng.fill(out, sizeof out, TINYLDP_ENTROPY_BLOCKING) != tinyldp::EntropyResult::ok) return 1;
  platform_radio_send(out, sizeof out);
  return 0;
}
