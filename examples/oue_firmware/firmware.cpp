// SPDX-License-Identifier: Apache-2.0
// The telemetry firmware (firmware.hpp): TRNG → health tests → ChaCha20 DRBG → OUE → wire.
#include "firmware.hpp"

#include "tinyldp/port/entropy/health_tests.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/unary_encoding.hpp"
#include "tinyldp/wire.hpp"

namespace {
// Configured at compile time: no floating point and no configuration code reach the image.
constexpr auto mechanism = tinyldp::UnaryEncoding::make_oue(tinyldp::Epsilon::from_double(1.0), 256);
constexpr auto description = mechanism.description();
// Health tests on the TRNG's byte samples, H claimed 1 bit each (a cautious claim), α = 2^-20;
// the cutoffs are computed here, at compile time.
constexpr auto health = tinyldp::port::HealthPlan::make(tinyldp::port::HealthConfig{});
// Keystream blocks one report can use, with room to spare: every block yields at least 32 bytes.
constexpr uint64_t report_blocks = mechanism.random_bits_per_report() / (8 * 32) + 4;

// The TRNG as a C++ entropy source. The claim is the driver's to make: here a conditioned
// TRNG (full entropy); the health tests below check it at the claimed rate.
struct Trng {
  tinyldp::EntropyResult fill(uint8_t* out, size_t length, uint32_t) {
    return static_cast<tinyldp::EntropyResult>(platform_trng_fill(out, length));
  }
  uint16_t min_entropy_q8() const { return TINYLDP_ENTROPY_ESTIMATE_FULL; }
};
}  // namespace

__attribute__((noinline)) FirmwareResult firmware_maintain(tinyldp::port::ChaCha20Drbg& drbg) {
  if (drbg.seeded() && drbg.blocks_until_reseed() >= report_blocks) return FirmwareResult::ok;
  Trng raw;
  tinyldp::port::HealthTested<Trng> checked(raw, health);
  return drbg.seed(checked) == tinyldp::EntropyResult::ok ? FirmwareResult::ok
                                                          : FirmwareResult::entropy_failed;
}

// The report is privatized straight into the frame after the header, so it exists once. The
// frame starts where the payload behind its 7-byte header falls on a word boundary: the
// unary-encoding ladder then reads and writes whole words, where Cortex-M0 and RV32 (no
// unaligned access) would otherwise take the report's lanes a byte at a time.
__attribute__((noinline)) FirmwareResult firmware_report(tinyldp::port::ChaCha20Drbg& drbg) {
  tinyldp::RandomBits<tinyldp::port::ChaCha20Drbg, 8> rng(drbg);  // the DRBG buffers already
  constexpr size_t header = tinyldp::wire::Description::header_bytes(0);
  constexpr size_t lead = (4 - header % 4) % 4;
  alignas(4) uint8_t storage[lead + description.report_bytes(0)];
  uint8_t* const frame = storage + lead;
  const size_t frame_size = sizeof storage - lead;
  uint8_t* payload = frame + header;
  if (mechanism.privatize(platform_sensor_value() & 255u, rng, payload, mechanism.report_bytes()) !=
      tinyldp::Status::ok)
    return FirmwareResult::report_failed;
  size_t written = 0;
  if (tinyldp::wire::encode(description, {}, payload, frame, frame_size, written) !=
      tinyldp::Status::ok)
    return FirmwareResult::report_failed;
  platform_radio_send(frame, written);
  return FirmwareResult::ok;
}
