// SPDX-License-Identifier: Apache-2.0
// Thresholding with histogram encoding (THE), ε = 1, d = 256: a 32-byte report (UE's sampler
// with THE's (p, q), configured at compile time).
#include "footprint.hpp"
#include "tinyldp/histogram_encoding.hpp"
#include "tinyldp/random_bits.hpp"

namespace {
constexpr auto mechanism = tinyldp::ThresholdHistogram::make(tinyldp::Epsilon::from_double(1.0), 256);
constexpr auto description = mechanism.description();
}  // namespace

extern "C" int footprint_run() {
  PlatformTrng trng;
  tinyldp::RandomBits<PlatformTrng> rng(trng);
  uint8_t payload[mechanism.report_bytes()];
  if (mechanism.privatize(platform_sensor_value() & 255u, rng, payload, sizeof payload) !=
      tinyldp::Status::ok)
    return 1;
  return footprint_send<description.report_bytes(0)>(description, payload);
}
