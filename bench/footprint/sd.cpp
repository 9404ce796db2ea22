// SPDX-License-Identifier: Apache-2.0
// Stochastic discretization + k-RR, ε = 1, values in [0, 1000], 16 levels.
#include "footprint.hpp"
#include "tinyldp/stochastic_discretization.hpp"

namespace {
constexpr auto mechanism = tinyldp::StochasticDiscretization::make(tinyldp::Epsilon::from_double(1.0), 0, 1000, 16);
}  // namespace

extern "C" int footprint_run() {
  return footprint_report<mechanism>([] { return static_cast<int32_t>(platform_sensor_value() & 511u); });
}
