// Stochastic discretization + k-RR, ε = 1, values in [0, 1000], 16 levels.
#include "footprint.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/stochastic_discretization.hpp"

namespace {
constexpr auto mechanism =
    tinyldp::StochasticDiscretization::make(tinyldp::Epsilon::from_double(1.0), 0, 1000, 16);
constexpr auto description = mechanism.description();
}  // namespace

extern "C" int footprint_run() {
  PlatformTrng trng;
  tinyldp::RandomBits<PlatformTrng> rng(trng);
  uint32_t level = 0;
  const int32_t value = static_cast<int32_t>(platform_sensor_value() & 511u);
  if (mechanism.privatize(value, rng, level) != tinyldp::Status::ok) return 1;
  uint8_t payload[description.payload_bytes()];
  mechanism.pack(level, payload);
  return footprint_send<description.report_bytes(0)>(description, payload);
}
