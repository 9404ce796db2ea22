// SPDX-License-Identifier: Apache-2.0
// Local hashing (OLH), ε = 1, d = 1024.
#include "footprint.hpp"
#include "tinyldp/local_hashing.hpp"

namespace {
constexpr auto mechanism = tinyldp::LocalHashing::make_olh(tinyldp::Epsilon::from_double(1.0), 1024);
}  // namespace

extern "C" int footprint_run() {
  return footprint_report<mechanism>([] { return platform_sensor_value() & 1023u; });
}
