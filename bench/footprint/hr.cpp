// SPDX-License-Identifier: Apache-2.0
// 1-bit Hadamard response, ε = 1, d = 256.
#include "footprint.hpp"
#include "tinyldp/hadamard_response.hpp"

namespace {
constexpr auto mechanism = tinyldp::HadamardResponse::make(tinyldp::Epsilon::from_double(1.0), 256);
}  // namespace

extern "C" int footprint_run() {
  return footprint_report<mechanism>([] { return platform_sensor_value() & 255u; });
}
