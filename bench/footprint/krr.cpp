// SPDX-License-Identifier: Apache-2.0
// k-ary randomized response, ε = 1, k = 16.
#include "footprint.hpp"
#include "tinyldp/krr.hpp"

namespace {
constexpr auto mechanism = tinyldp::KaryRr::make(tinyldp::Epsilon::from_double(1.0), 16);
}  // namespace

extern "C" int footprint_run() {
  return footprint_report<mechanism>([] { return platform_sensor_value() & 15u; });
}
