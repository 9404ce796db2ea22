// Local hashing (OLH), ε = 1, d = 1024.
#include "footprint.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/random_bits.hpp"

namespace {
constexpr auto mechanism = tinyldp::LocalHashing::make_olh(tinyldp::Epsilon::from_double(1.0), 1024);
constexpr auto description = mechanism.description();
}  // namespace

extern "C" int footprint_run() {
  PlatformTrng trng;
  tinyldp::RandomBits<PlatformTrng> rng(trng);
  tinyldp::LocalHashingReport report{};
  if (mechanism.privatize(platform_sensor_value() & 1023u, rng, report) != tinyldp::Status::ok)
    return 1;
  uint8_t payload[description.payload_bytes()];
  mechanism.pack(report, payload);
  return footprint_send<description.report_bytes(0)>(description, payload);
}
