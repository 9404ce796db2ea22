// SPDX-License-Identifier: Apache-2.0
// Footprint programs: each one is a minimal firmware that uses one mechanism (mechanism.cpp, one
// program per entry of the device list) or one port the way a device would, built at -Os with
// -ffunction-sections/-fdata-sections/--gc-sections.
// Every program (and the baseline) links the same board startup and the same platform stubs
// below, so `image - baseline` is what tinyldp adds. scripts/footprint measures them and writes
// docs/footprint.md; tests/footprint checks the budgets on every target.
//
// The stubs stand in for the firmware's own drivers (not part of the library): a hardware
// TRNG, a radio and a sensor. They are out of line (platform.cpp) so the compiler can neither
// fold the private value nor drop the report.
#ifndef TINYLDP_BENCH_FOOTPRINT_HPP
#define TINYLDP_BENCH_FOOTPRINT_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/entropy.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/storage.hpp"
#include "tinyldp/wire.hpp"

extern "C" {
// The program under measurement; main() calls it once. Returns 0 on success.
int footprint_run();
// Sends a finished report (the firmware's radio driver).
void platform_radio_send(const uint8_t* data, size_t length);
// The private value to report (the firmware's sensor).
uint32_t platform_sensor_value();
// Fills out[0..length) from the platform's (stand-in) hardware TRNG.
tinyldp_entropy_result platform_trng_fill(uint8_t* out, size_t length);
}

// The platform TRNG as a C++ entropy source (full entropy claimed, as a conditioned TRNG would).
struct PlatformTrng {
  tinyldp::EntropyResult fill(uint8_t* out, size_t length, uint32_t) {
    return static_cast<tinyldp::EntropyResult>(platform_trng_fill(out, length));
  }
  uint16_t min_entropy_q8() const { return TINYLDP_ENTROPY_ESTIMATE_FULL; }
};

// Application-owned objects that live for the whole program (a DRBG, a flash image) are
// globals named app_*: their RAM is the application's, not the library's. They are plain
// globals — the DRBG's initial state is all zero and it has no destructor, so it sits in .bss
// with nothing to construct at boot or register (tests/static_placement checks the examples).

// Frames a payload with the wire header (no optional fields) and sends it.
template <size_t ReportBytes>
int footprint_send(const tinyldp::wire::Description& what, const uint8_t* payload) {
  uint8_t out[ReportBytes];
  size_t written = 0;
  if (tinyldp::wire::encode(what, {}, payload, out, sizeof out, written) != tinyldp::Status::ok)
    return 1;
  platform_radio_send(out, written);
  return 0;
}

// The program both storage ports' footprints measure: a Record (the core's two-slot layer) on
// `device`, freshly formatted — write 32 bytes, read them back, send them. Always inlined, as
// the code was when each program wrote it out (a call of its own costs flash and stack).
template <class Device>
__attribute__((always_inline)) inline int footprint_record(Device& device) {
  device.format();
  tinyldp::Record<Device> record(device, 0, 1);
  uint8_t value[32];
  platform_trng_fill(value, sizeof value);
  if (record.write(value, sizeof value) != tinyldp::StorageResult::ok) return 1;
  size_t length = 0;
  if (record.read(value, sizeof value, &length) != tinyldp::StorageResult::ok) return 1;
  platform_radio_send(value, length);
  return 0;
}

#endif
