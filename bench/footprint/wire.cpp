// SPDX-License-Identifier: Apache-2.0
// The wire encoder alone: frame a 32-byte payload (OUE d = 256's size) with the header.
#include "footprint.hpp"

namespace {
constexpr tinyldp::wire::Description description{tinyldp::wire::MechanismId::oue, 256, 0x12345678u};
}  // namespace

extern "C" int footprint_run() {
  uint8_t payload[description.payload_bytes()];
  for (auto& b : payload) b = static_cast<uint8_t>(platform_sensor_value());
  return footprint_send<description.report_bytes(0)>(description, payload);
}
