// The headline firmware: OUE reports (ε = 1, d = 256) drawn from the ChaCha20 DRBG, seeded
// from the platform TRNG at boot and reseeded from it by the main loop before a report could
// run past the reseed interval (no reseed source is set, so no reseed nests inside a report),
// framed with the wire header and sent. The DRBG is the application's (328 bytes of its .bss);
// everything else lives on the stack.
#include "footprint.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace {
constexpr auto mechanism = tinyldp::UnaryEncoding::make_oue(tinyldp::Epsilon::from_double(1.0), 256);
constexpr auto description = mechanism.description();
// Keystream blocks one report can use, with room to spare: every block yields at least 32 bytes.
constexpr uint64_t report_blocks = mechanism.random_bits_per_report() / (8 * 32) + 4;
}  // namespace

AppStatic<tinyldp::port::ChaCha20Drbg> app_drbg;

// The report is privatized straight into the frame after the header, so it exists once.
__attribute__((noinline)) static int send_report(tinyldp::port::ChaCha20Drbg& drbg) {
  tinyldp::RandomBits<tinyldp::port::ChaCha20Drbg, 8> rng(drbg);  // the DRBG buffers already
  uint8_t frame[description.report_bytes(0)];
  uint8_t* payload = frame + tinyldp::wire::Description::header_bytes(0);
  if (mechanism.privatize(platform_sensor_value() & 255u, rng, payload, mechanism.report_bytes()) !=
      tinyldp::Status::ok)
    return 1;
  size_t written = 0;
  if (tinyldp::wire::encode(description, {}, payload, frame, sizeof frame, written) !=
      tinyldp::Status::ok)
    return 1;
  platform_radio_send(frame, written);
  return 0;
}

// Before each report: seed at boot, and reseed when the interval is about to run out.
__attribute__((noinline)) static int maintain(tinyldp::port::ChaCha20Drbg& drbg) {
  if (drbg.seeded() && drbg.blocks_until_reseed() >= report_blocks) return 0;
  PlatformTrng trng;
  return drbg.seed(trng) == tinyldp::EntropyResult::ok ? 0 : 1;
}

extern "C" int footprint_run() {
  tinyldp::port::ChaCha20Drbg& drbg = app_drbg.construct();  // at boot
  // The main loop, once.
  if (maintain(drbg) != 0) return 1;
  return send_report(drbg);
}
