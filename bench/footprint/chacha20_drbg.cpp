// SPDX-License-Identifier: Apache-2.0
// Port: the ChaCha20 DRBG alone — seeded from the platform TRNG, which is also its reseed
// source (so a reseed may nest inside a request), one 32-byte request sent.
#include "footprint.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"

tinyldp::port::ChaCha20Drbg app_drbg;  // a plain global: .bss, nothing to construct or destroy

extern "C" int footprint_run() {
  tinyldp::port::ChaCha20Drbg& drbg = app_drbg;
  PlatformTrng trng;
  if (drbg.seed(trng) != tinyldp::EntropyResult::ok) return 1;
  drbg.set_reseed_source(trng);
  uint8_t out[32];
  if (drbg.fill(out, sizeof out, TINYLDP_ENTROPY_BLOCKING) != tinyldp::EntropyResult::ok) return 1;
  platform_radio_send(out, sizeof out);
  return 0;
}
