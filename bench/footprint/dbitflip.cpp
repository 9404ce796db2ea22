// SPDX-License-Identifier: Apache-2.0
// dBitFlip (#15): the TRNG seeds the ChaCha20 DRBG, the memo key is loaded from (or provisioned
// into) emulated flash, and one report of a counter in 0 … 1024 (grid step 64: k = 17 buckets,
// d = 4 sampled per device; ε∞ = 2, ε₁ = 1) is packed, framed and sent: the device draw (α and
// the buckets) and the memo come from the key, the flips from the DRBG. As losue_firmware, the
// DRBG and the flash image are the application's (app_*); the key and the report are on the
// stack.
#include "memo_boot.hpp"
#include "tinyldp/dbitflip.hpp"

namespace {
constexpr auto mechanism = tinyldp::DBitFlip::make(tinyldp::Epsilon::from_ratio(2, 1), tinyldp::Epsilon::from_ratio(1, 1),
                                                   tinyldp::DBitFlip::Layout{1024, 64, 4, 0});
constexpr auto description = mechanism.description();
}  // namespace

extern "C" int footprint_run() {
  tinyldp::port::MemoKey key;
  if (!footprint_memo_boot(key)) return 1;
  tinyldp::RandomBits<tinyldp::port::ChaCha20Drbg, 8> rng(app_drbg);
  tinyldp::DBitFlip::Report report;
  if (mechanism.privatize(platform_sensor_value() & 1023u, key, rng, report) != tinyldp::Status::ok) return 1;
  uint8_t payload[description.payload_bytes()] = {};
  mechanism.pack(report, payload);
  return footprint_send<description.report_bytes(0)>(description, payload);
}
