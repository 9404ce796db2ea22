// SPDX-License-Identifier: Apache-2.0
// A telemetry device that reports the same kind of value again and again (the fleet demo,
// scripts/demo): a hardware TRNG, checked by the SP 800-90B health tests, seeds a ChaCha20
// DRBG; the memo key (its device secret) and the privacy budget ledger live in flash; each
// report privatizes the sensor's value with L-OSUE (memoized OUE at ε∞ = 2, then a fresh SUE:
// one report ε₁ = 1; d = 256) after the ledger has durably charged it, seals it (an
// authenticated report, wire format version 2: a counter that never repeats and a
// ChaCha20-Poly1305 tag under the device's report key, port/auth/report_auth), frames it for
// the UART and sends it. A reboot or a power cut keeps the memo (recomputed from the key), the
// ledger and the report counter; a repeated value costs no budget, a changed one ε∞. The gate
// (tinyldp gate) admits one report per device and epoch and refuses copies and forgeries.
//
// What the device needs from its platform (platform_qemu.cpp has the QEMU boards' and
// bench/footprint/platform.cpp the measured stand-ins): platform_trng_fill (the TRNG) and
// platform_uart_send (bytes out). bench/footprint measures exactly this code (the
// `fleet_device` row of docs/footprint.md).
#ifndef TINYLDP_EXAMPLES_FLEET_DEVICE_HPP
#define TINYLDP_EXAMPLES_FLEET_DEVICE_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/entropy.hpp"
#include "tinyldp/port/auth/report_auth.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/storage/emulated_flash.hpp"
#include "tinyldp/privacy_ledger.hpp"
#include "tinyldp/two_stage_rr.hpp"

#include "platform.h"  // platform_trng_fill (examples/common)

extern "C" {
// Sends bytes out of the UART.
void platform_uart_send(const uint8_t* bytes, size_t length);
}

namespace fleet {

// The mechanism, fixed at compile time: no configuration code reaches the image.
inline constexpr tinyldp::TwoStageRr mechanism = tinyldp::TwoStageRr::make_chain(
    tinyldp::UeStage::oue, tinyldp::UeStage::sue, tinyldp::Epsilon::from_ratio(2, 1),
    tinyldp::Epsilon::from_ratio(1, 1), tinyldp::TwoStageRr::one_hot(256));
// The most ε one epoch may spend: two changes of value.
inline constexpr tinyldp::Epsilon epoch_cap{2 * mechanism.epsilon_infinity().q32};

// The device's flash: six 128-byte sectors — the memo key's record in 0–1, the ledger's in 2–3,
// the report key's and counter's in 4–5.
inline constexpr tinyldp::StorageGeometry flash_geometry{128, 6, 4, 0xFF};
inline constexpr size_t flash_bytes = 128 * 6;

using Flash = tinyldp::port::EmulatedFlash;
using Ledger = tinyldp::PrivacyLedger<Flash, 1>;
using ReportAuth = tinyldp::port::ReportAuth<Flash>;

enum class Result : int {
  ok = 0,
  entropy_failed = 1,    // the TRNG or its health tests failed: nothing sent
  storage_failed = 2,    // the key or the ledger could not be read or made durable: nothing sent
  budget_exhausted = 3,  // this epoch's budget is spent: nothing sent
  report_failed = 4,     // privatizing, sealing or framing failed: nothing sent
  not_provisioned = 5,   // no readable memo key, ledger or report key: nothing sent until provision()
  bad_report_key = 6,    // provision: an all-zero report key (no default key): nothing written
};

class Device {
 public:
  Device(tinyldp::port::ChaCha20Drbg& drbg, Flash& flash)
      : drbg_(drbg), key_record_(flash, 0, 1), ledger_record_(flash, 2, 1), auth_record_(flash, 4, 1),
        ledger_(ledger_record_, epoch_cap) {}

  // The factory's step, once per device on a blank flash: a new memo key (generation 0), a
  // ledger at zero, and the device's id with its report key (from `tinyldp keys`: derived from
  // the fleet secret, which never reaches the device) and counter 0, each durable. It refuses
  // a flash that already holds any of them. (After a loss, provisioning takes the fleet
  // registry's generation and epoch: docs/reports-over-time.md.)
  Result provision(uint32_t device_id, const uint8_t report_key[tinyldp::port::device_key_bytes]);
  Result provision(tinyldp::CEntropySource seed_source, uint32_t device_id,
                   const uint8_t report_key[tinyldp::port::device_key_bytes]);  // seeded from another source
  // At boot: seeds the DRBG from the TRNG (through fresh health tests), loads the memo key, the
  // report key and opens the ledger — never creating any: a flash without them is not_provisioned —; then
  // moves the ledger forward to `epoch` in one write (the collection round; epochs only move
  // forward — an older one changes nothing).
  Result boot(uint32_t epoch);
  // The same with the DRBG seeded from another source (the fleet simulation seeds each device
  // from a generator that the TRNG seeded once: the nRF51's RNG gives a byte per 167–660 µs,
  // so a health-tested seeding takes most of a second).
  Result boot(tinyldp::CEntropySource seed_source, uint32_t epoch);
  // One authenticated report of `value` (< 256), with the provisioned device id in its header.
  Result report(uint32_t value);

  const Ledger& ledger() const { return ledger_; }
  const tinyldp::port::MemoKey& key() const { return key_; }
  const ReportAuth& auth() const { return auth_; }

 private:
  tinyldp::port::ChaCha20Drbg& drbg_;
  tinyldp::Record<Flash> key_record_;
  tinyldp::Record<Flash> ledger_record_;
  tinyldp::Record<Flash> auth_record_;
  tinyldp::port::MemoKey key_;
  ReportAuth auth_;
  Ledger ledger_;
};

}  // namespace fleet

#endif
