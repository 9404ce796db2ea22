// SPDX-License-Identifier: Apache-2.0
// Summation with histogram encoding (SHE), ε = 1, d = 16: T = 14, sixteen 5-bit components (a
// 10-byte report); the 30 noise weights are a constant in flash.
#include "footprint.hpp"
#include "tinyldp/histogram_encoding.hpp"

namespace {
constexpr tinyldp::Epsilon eps = tinyldp::Epsilon::from_double(1.0);
constexpr auto weights = tinyldp::SummationHistogramTable<tinyldp::SummationHistogram::table_entries(
    tinyldp::SummationHistogram::default_truncation(eps))>::make(eps, 16);
constexpr tinyldp::SummationHistogram mechanism = weights.bind();
}  // namespace

extern "C" int footprint_run() {
  return footprint_report<mechanism>([] { return platform_sensor_value() & 15u; });
}
