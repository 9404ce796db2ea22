// SPDX-License-Identifier: Apache-2.0
// The telemetry firmware to copy from: a hardware TRNG, checked by the SP 800-90B health tests,
// seeds a ChaCha20 DRBG; each report privatizes the sensor's value with OUE (ε = 1, d = 256)
// straight into its wire frame and hands the frame to the radio. examples/oue_firmware/main.cpp
// runs it on every QEMU board; bench/footprint measures exactly this code (the `oue_firmware`
// row of docs/footprint.md: flash, static RAM, worst-case stack).
//
// What the firmware needs from its platform — a TRNG, a sensor, a radio — is
// examples/common/platform.h (your drivers; platform_qemu.cpp has the QEMU boards' and
// bench/footprint/platform.cpp the measured stand-ins).
#ifndef TINYLDP_EXAMPLES_OUE_FIRMWARE_HPP
#define TINYLDP_EXAMPLES_OUE_FIRMWARE_HPP

#include <stddef.h>
#include <stdint.h>

#include "platform.h"
#include "tinyldp/entropy.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"

// Status codes of the two steps (0 = done).
enum class FirmwareResult : int { ok = 0, entropy_failed = 1, report_failed = 2 };

// Before each report: seed the DRBG at boot, reseed it from the TRNG (through fresh health
// tests, start-up test included) when the reseed interval is about to run out. Nothing reseeds
// inside a report, so a report's stack never holds a seeding.
FirmwareResult firmware_maintain(tinyldp::port::ChaCha20Drbg& drbg);

// One report: the sensor's value, privatized into the frame, framed, sent. On any failure
// nothing is sent.
FirmwareResult firmware_report(tinyldp::port::ChaCha20Drbg& drbg);

#endif
