// SPDX-License-Identifier: Apache-2.0
// Discrete Laplace, ε = 1, values in [-50, 50], Δ = 1; the 101 weights are a constant in flash.
#include "footprint.hpp"
#include "tinyldp/discrete_laplace.hpp"

namespace {
constexpr int32_t lo = -50, hi = 50;
constexpr auto weights =
    tinyldp::DiscreteLaplaceTable<tinyldp::DiscreteLaplace::table_entries(lo, hi)>::make(
        tinyldp::Epsilon::from_double(1.0), lo, hi, 1);
constexpr tinyldp::DiscreteLaplace mechanism = weights.bind();
}  // namespace

extern "C" int footprint_run() {
  return footprint_report<mechanism>([] { return static_cast<int32_t>(platform_sensor_value() & 63u) - 32; });
}
