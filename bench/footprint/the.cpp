// SPDX-License-Identifier: Apache-2.0
// Thresholding with histogram encoding (THE), ε = 1, d = 256: a 32-byte report (UE's sampler
// with THE's (p, q), configured at compile time).
#include "footprint.hpp"
#include "tinyldp/histogram_encoding.hpp"

namespace {
constexpr auto mechanism = tinyldp::ThresholdHistogram::make(tinyldp::Epsilon::from_double(1.0), 256);
}  // namespace

extern "C" int footprint_run() {
  return footprint_report<mechanism>([] { return platform_sensor_value() & 255u; });
}
