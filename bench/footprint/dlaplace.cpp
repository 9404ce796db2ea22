// Discrete Laplace, ε = 1, values in [-50, 50], Δ = 1; the 101 weights are a constant in flash.
#include "footprint.hpp"
#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/random_bits.hpp"

namespace {
constexpr int32_t lo = -50, hi = 50;
constexpr auto weights =
    tinyldp::DiscreteLaplaceTable<tinyldp::DiscreteLaplace::table_entries(lo, hi)>::make(
        tinyldp::Epsilon::from_double(1.0), lo, hi, 1);
constexpr tinyldp::DiscreteLaplace mechanism = weights.bind();
constexpr auto description = mechanism.description();
}  // namespace

extern "C" int footprint_run() {
  PlatformTrng trng;
  tinyldp::RandomBits<PlatformTrng> rng(trng);
  int32_t report = 0;
  const int32_t value = static_cast<int32_t>(platform_sensor_value() & 63u) - 32;
  if (mechanism.privatize(value, rng, report) != tinyldp::Status::ok) return 1;
  uint8_t payload[description.payload_bytes()];
  mechanism.pack(report, payload);
  return footprint_send<description.report_bytes(0)>(description, payload);
}
