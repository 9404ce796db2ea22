// SPDX-License-Identifier: Apache-2.0
// The fleet demo's device: examples/fleet_device/device.cpp as it is (TRNG → health tests →
// ChaCha20 DRBG; memo key and privacy ledger in emulated flash; L-OSUE d = 256 → wire → serial
// frame → UART), on the platform stand-ins. One boot (seeding, key and ledger — provisioned, as the factory would, on the blank flash) and
// one report. The DRBG and the flash image are the application's (app_*).
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
  if (r == fleet::Result::not_provisioned && device.provision() == fleet::Result::ok) r = device.boot(0);  // the factory's step
  if (r != fleet::Result::ok) return 1;
  return device.report(platform_sensor_value() & 255u, 1) == fleet::Result::ok ? 0 : 1;
}
