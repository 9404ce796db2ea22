// SPDX-License-Identifier: Apache-2.0
// The headline firmware: examples/oue_firmware/firmware.cpp as it is (TRNG → health tests →
// ChaCha20 DRBG → OUE d = 256 → wire), on the platform stand-ins. One boot and one round of
// its main loop: seed through the health tests (start-up test included), then one report. The
// DRBG is the application's (its .bss, app_drbg); everything else lives on the stack.
#include "firmware.hpp"
#include "footprint.hpp"

tinyldp::port::ChaCha20Drbg app_drbg;  // a plain global: .bss, nothing to construct or destroy

extern "C" int footprint_run() {
  tinyldp::port::ChaCha20Drbg& drbg = app_drbg;
  if (firmware_maintain(drbg) != FirmwareResult::ok) return 1;
  return firmware_report(drbg) == FirmwareResult::ok ? 0 : 1;
}
