// SPDX-License-Identifier: Apache-2.0
// Unary encoding (SUE), ε = 1, d = 256: a 32-byte report.
#include "footprint.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace {
constexpr auto mechanism = tinyldp::UnaryEncoding::make_sue(tinyldp::Epsilon::from_double(1.0), 256);
}  // namespace

extern "C" int footprint_run() {
  return footprint_report<mechanism>([] { return platform_sensor_value() & 255u; });
}
