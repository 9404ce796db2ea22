// SPDX-License-Identifier: Apache-2.0
// Memoized reports (#15's goal for Cortex-M0: ≤ 6 KiB flash, ≤ 768 B stack): the TRNG seeds the
// ChaCha20 DRBG, the memo key is loaded from (or provisioned into) emulated flash, and one
// L-OSUE report (OUE at ε∞ = 2 memoized, then SUE: ε₁ = 1; d = 256) is framed and sent. The
// DRBG and the flash image are the application's (app_*); the key and the report live on the
// stack.
#include "memo_boot.hpp"
#include "tinyldp/two_stage_rr.hpp"

namespace {
constexpr auto mechanism = tinyldp::TwoStageRr::make_chain(
    tinyldp::UeStage::oue, tinyldp::UeStage::sue, tinyldp::Epsilon::from_ratio(2, 1),
    tinyldp::Epsilon::from_ratio(1, 1), tinyldp::TwoStageRr::one_hot(256));
constexpr auto description = mechanism.description();
}  // namespace

extern "C" int footprint_run() {
  tinyldp::port::MemoKey key;
  if (!footprint_memo_boot(key)) return 1;
  tinyldp::RandomBits<tinyldp::port::ChaCha20Drbg, 8> rng(app_drbg);
  uint8_t payload[mechanism.report_bytes()];
  if (mechanism.privatize(platform_sensor_value() & 255u, key, rng, payload, sizeof payload) !=
      tinyldp::Status::ok)
    return 1;
  return footprint_send<description.report_bytes(0)>(description, payload);
}
