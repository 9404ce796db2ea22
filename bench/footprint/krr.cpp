// k-ary randomized response, ε = 1, k = 16.
#include "footprint.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/random_bits.hpp"

namespace {
constexpr auto mechanism = tinyldp::KaryRr::make(tinyldp::Epsilon::from_double(1.0), 16);
constexpr auto description = mechanism.description();
}  // namespace

extern "C" int footprint_run() {
  PlatformTrng trng;
  tinyldp::RandomBits<PlatformTrng> rng(trng);
  uint32_t report = 0;
  if (mechanism.privatize(platform_sensor_value() & 15u, rng, report) != tinyldp::Status::ok) return 1;
  uint8_t payload[description.payload_bytes()];
  mechanism.pack(report, payload);
  return footprint_send<description.report_bytes(0)>(description, payload);
}
