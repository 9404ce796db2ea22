// SPDX-License-Identifier: Apache-2.0
// The fleet demo's device: examples/fleet_device/device.cpp as it is (TRNG → health tests →
// ChaCha20 DRBG; memo key, privacy ledger and report key in emulated flash; L-OSUE d = 256 →
// wire → sealed → serial frame → UART), on the platform stand-ins. One boot (seeding, keys and
// ledger — provisioned, as the factory would, on the blank flash, the report key arriving over
// the provisioning link: the TRNG stands in for it here) and one report. The DRBG and the flash
// image are the application's (app_*).
#include "device.hpp"
#include "footprint.hpp"

tinyldp::port::ChaCha20Drbg app_drbg;  // a plain global: .bss, nothing to construct or destroy
uint8_t app_flash[fleet::flash_bytes];

extern "C" void platform_uart_send(const uint8_t* bytes, size_t length) {
  platform_radio_send(bytes, length);
}

extern "C" int footprint_run() {
  tinyldp::port::ChaCha20Drbg& drbg = app_drbg;
  fleet::Flash flash(app_flash, fleet::flash_geometry);
  flash.format();
  fleet::Device device(drbg, flash);
  fleet::Result r = device.boot(0);
  if (r == fleet::Result::not_provisioned) {  // the factory's step
    uint8_t report_key[tinyldp::port::device_key_bytes];
    if (platform_trng_fill(report_key, sizeof report_key) != TINYLDP_ENTROPY_OK) return 1;
    if (device.provision(1, report_key) == fleet::Result::ok) r = device.boot(0);
    tinyldp::wipe(report_key, sizeof report_key);
  }
  if (r != fleet::Result::ok) return 1;
  return device.report(platform_sensor_value() & 255u) == fleet::Result::ok ? 0 : 1;
}
