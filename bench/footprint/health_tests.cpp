// SPDX-License-Identifier: Apache-2.0
// Port: SP 800-90B health tests around the platform TRNG (byte samples, H = 4 bits claimed).
#include "footprint.hpp"
#include "tinyldp/port/entropy/health_tests.hpp"

extern "C" int footprint_run() {
  PlatformTrng raw;
  tinyldp::port::HealthConfig config;
  config.h_q8 = 1024;
  tinyldp::port::HealthTested<PlatformTrng> source(raw, config);
  uint8_t out[32];
  if (source.fill(out, sizeof out, TINYLDP_ENTROPY_BLOCKING) != tinyldp::EntropyResult::ok) return 1;
  platform_radio_send(out, sizeof out);
  return 0;
}
