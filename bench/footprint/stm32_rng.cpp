// SPDX-License-Identifier: Apache-2.0
// Port: the STM32 RNG peripheral driver (STM32F4 address), one blocking 32-byte request.
// Built for every target (it only touches memory-mapped registers); runs only on an STM32.
#include "footprint.hpp"
#include "tinyldp/port/entropy/stm32_rng.hpp"

extern "C" int footprint_run() {
  tinyldp::port::Stm32Rng<0x50060800u> rng;
  uint8_t out[32];
  if (rng.fill(out, sizeof out, TINYLDP_ENTROPY_BLOCKING) != tinyldp::EntropyResult::ok) return 1;
  platform_radio_send(out, sizeof out);
  return 0;
}
