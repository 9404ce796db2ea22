// SPDX-License-Identifier: Apache-2.0
// What the memoized footprint programs (losue_firmware and the device list's memoized entries,
// mechanism.cpp) do before a report: the TRNG seeds the application's ChaCha20 DRBG, and the memo
// key is loaded from (or, on a blank flash, explicitly provisioned into) the application's
// emulated flash. Always inlined, as each program wrote it out before (a call of its own would
// change their flash and stack).
#ifndef TINYLDP_BENCH_FOOTPRINT_MEMO_BOOT_HPP
#define TINYLDP_BENCH_FOOTPRINT_MEMO_BOOT_HPP

#include "footprint.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/storage/emulated_flash.hpp"

inline tinyldp::port::ChaCha20Drbg app_drbg;  // a plain global: .bss, nothing to construct or destroy
inline uint8_t app_flash[2 * 128];

// True when the DRBG is seeded and `key` holds the device's memo key.
__attribute__((always_inline)) inline bool footprint_memo_boot(tinyldp::port::MemoKey& key) {
  PlatformTrng trng;
  if (app_drbg.seed(trng) != tinyldp::EntropyResult::ok) return false;
  tinyldp::port::EmulatedFlash flash(app_flash, {128, 2, 4, 0xFF});
  tinyldp::Record<tinyldp::port::EmulatedFlash> record(flash, 0, 1);
  const tinyldp::port::MemoKeyResult r = tinyldp::port::load_memo_key(record, key);
  if (r != tinyldp::port::MemoKeyResult::not_provisioned) return r == tinyldp::port::MemoKeyResult::ok;
  // A blank flash: the factory's explicit provisioning step (generation 0), done here.
  return tinyldp::port::provision_memo_key(app_drbg, record, 0, key) == tinyldp::port::MemoKeyResult::ok;
}

#endif
