// SPDX-License-Identifier: Apache-2.0
// Port: reboot-safe DRBG seed (persisted_seed.hpp) on RAM storage — restore_seed at boot,
// provisioning with save_seed if nothing is stored yet, then one 32-byte request.
#include "footprint.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/entropy/persisted_seed.hpp"
#include "tinyldp/port/storage/ram_storage.hpp"

tinyldp::port::ChaCha20Drbg app_drbg;  // a plain global: .bss, nothing to construct or destroy
uint8_t app_flash[4 * 256];

extern "C" int footprint_run() {
  tinyldp::port::ChaCha20Drbg& drbg = app_drbg;
  tinyldp::port::RamStorage device(app_flash, {256, 4, 4, 0xFF});
  tinyldp::Record<tinyldp::port::RamStorage> record(device, 0, 1);
  tinyldp::port::SeedResult r = tinyldp::port::restore_seed(drbg, record);
  if (r == tinyldp::port::SeedResult::not_provisioned) {
    PlatformTrng trng;
    if (drbg.seed(trng) != tinyldp::EntropyResult::ok) return 1;
    r = tinyldp::port::save_seed(drbg, record);
  }
  if (r != tinyldp::port::SeedResult::ok) return 1;
  uint8_t out[32];
  if (drbg.fill(out, sizeof out, TINYLDP_ENTROPY_BLOCKING) != tinyldp::EntropyResult::ok) return 1;
  platform_radio_send(out, sizeof out);
  return 0;
}
