// SPDX-License-Identifier: Apache-2.0
// dBitFlip (#15): the TRNG seeds the ChaCha20 DRBG, the memo key is loaded from (or provisioned
// into) emulated flash, and one report of a counter in 0 … 1024 (grid step 64: k = 17 buckets,
// d = 4 sampled per device; ε∞ = 2, ε₁ = 1) is packed, framed and sent: the device draw (α and
// the buckets) and the memo come from the key, the flips from the DRBG. As losue_firmware, the
// DRBG and the flash image are the application's (app_*); the key and the report are on the
// stack.
#include "footprint.hpp"
#include "tinyldp/dbitflip.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/entropy/memo_key.hpp"
#include "tinyldp/port/storage/emulated_flash.hpp"

namespace {
constexpr auto mechanism = tinyldp::DBitFlip::make(tinyldp::Epsilon::from_ratio(2, 1), tinyldp::Epsilon::from_ratio(1, 1),
                                                   tinyldp::DBitFlip::Layout{1024, 64, 4, 0});
constexpr auto description = mechanism.description();
}  // namespace

tinyldp::port::ChaCha20Drbg app_drbg;  // a plain global: .bss, nothing to construct or destroy
uint8_t app_flash[2 * 128];

extern "C" int footprint_run() {
  tinyldp::port::ChaCha20Drbg& drbg = app_drbg;
  PlatformTrng trng;
  if (drbg.seed(trng) != tinyldp::EntropyResult::ok) return 1;
  tinyldp::port::EmulatedFlash flash(app_flash, {128, 2, 4, 0xFF});
  tinyldp::Record<tinyldp::port::EmulatedFlash> record(flash, 0, 1);
  tinyldp::port::MemoKey key;
  if (tinyldp::port::load_or_provision_memo_key(drbg, record, key) != tinyldp::port::MemoKeyResult::ok)
    return 1;
  tinyldp::RandomBits<tinyldp::port::ChaCha20Drbg, 8> rng(drbg);
  tinyldp::DBitFlip::Report report;
  if (mechanism.privatize(platform_sensor_value() & 1023u, key, rng, report) != tinyldp::Status::ok) return 1;
  uint8_t payload[description.payload_bytes()] = {};
  mechanism.pack(report, payload);
  return footprint_send<description.report_bytes(0)>(description, payload);
}
