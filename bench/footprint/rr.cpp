// Binary randomized response, ε = 1: privatize one bit, frame it, send it.
#include "footprint.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/rr.hpp"

namespace {
constexpr auto mechanism = tinyldp::BinaryRr::make(tinyldp::Epsilon::from_double(1.0));
constexpr auto description = mechanism.description();
}  // namespace

extern "C" int footprint_run() {
  PlatformTrng trng;
  tinyldp::RandomBits<PlatformTrng> rng(trng);
  uint8_t report = 0;
  if (mechanism.privatize(platform_sensor_value() & 1u, rng, report) != tinyldp::Status::ok) return 1;
  return footprint_send<description.report_bytes(0)>(description, &report);
}
