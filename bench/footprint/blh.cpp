// SPDX-License-Identifier: Apache-2.0
// Local hashing (BLH), ε = 1, d = 1024.
#include "footprint.hpp"
#include "tinyldp/local_hashing.hpp"

namespace {
constexpr auto mechanism = tinyldp::LocalHashing::make_blh(tinyldp::Epsilon::from_double(1.0), 1024);
}  // namespace

extern "C" int footprint_run() {
  return footprint_report<mechanism>([] { return platform_sensor_value() & 1023u; });
}
