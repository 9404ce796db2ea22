// SPDX-License-Identifier: Apache-2.0
// Port: the nRF51 RNG peripheral driver (register level), one blocking 32-byte request.
// Built for every target (it only touches memory-mapped registers); runs only on an nRF51.
#include "footprint.hpp"
#include "tinyldp/port/entropy/nrf51_rng.hpp"

extern "C" int footprint_run() {
  tinyldp::port::Nrf51Rng rng;
  uint8_t out[32];
  if (rng.fill(out, sizeof out, TINYLDP_ENTROPY_BLOCKING) != tinyldp::EntropyResult::ok) return 1;
  platform_radio_send(out, sizeof out);
  return 0;
}
