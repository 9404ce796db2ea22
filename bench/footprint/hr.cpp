// 1-bit Hadamard response, ε = 1, d = 256.
#include "footprint.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/random_bits.hpp"

namespace {
constexpr auto mechanism = tinyldp::HadamardResponse::make(tinyldp::Epsilon::from_double(1.0), 256);
constexpr auto description = mechanism.description();
}  // namespace

extern "C" int footprint_run() {
  PlatformTrng trng;
  tinyldp::RandomBits<PlatformTrng> rng(trng);
  tinyldp::HadamardReport report{};
  if (mechanism.privatize(platform_sensor_value() & 255u, rng, report) != tinyldp::Status::ok)
    return 1;
  uint8_t payload[description.payload_bytes()];
  mechanism.pack(report, payload);
  return footprint_send<description.report_bytes(0)>(description, payload);
}
