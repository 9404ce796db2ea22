// SPDX-License-Identifier: Apache-2.0
// Binary randomized response, ε = 1: privatize one bit, frame it, send it.
#include "footprint.hpp"
#include "tinyldp/rr.hpp"

namespace {
constexpr auto mechanism = tinyldp::BinaryRr::make(tinyldp::Epsilon::from_double(1.0));
}  // namespace

extern "C" int footprint_run() {
  return footprint_report<mechanism>([] { return platform_sensor_value() & 1u; });
}
