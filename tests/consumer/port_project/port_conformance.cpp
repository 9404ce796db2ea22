// SPDX-License-Identifier: Apache-2.0
// The port's own test program: tinyldp's installed conformance suites on the vendor's C drivers,
// each through tinyldp's C adapters (CEntropySource, CStorageDevice). Exit code 0 when both pass
// with no violation; each violation is written to stdout on the host.
#include "tinyldp/port/test/entropy_conformance.hpp"
#include "tinyldp/port/test/storage_conformance.hpp"
#include "vendor_drivers.h"
#ifndef PORT_BARE_METAL
#include <cstdio>
#endif

namespace {
vendor_trng trng;
vendor_flash flash;

#ifndef PORT_BARE_METAL
void to_stdout(const char* text, size_t length) { std::fwrite(text, 1, length, stdout); }
#else
void to_stdout(const char*, size_t) {}  // a firmware would write to its UART here
#endif

int run() {
  tinyldp::CEntropySource source({vendor_trng_fill, &trng}, TINYLDP_ENTROPY_ESTIMATE_FULL);
  tinyldp::conformance::EntropyConformanceOptions entropy;
  entropy.name = "vendor_trng";
  entropy.output = to_stdout;
  entropy.inject_failure = [](void*) { trng.broken = 1; };
  const uint32_t entropy_violations = tinyldp::conformance::entropy_conformance(source, entropy);

  for (uint8_t& b : flash.bytes) b = 0xFF;
  tinyldp::CStorageDevice device(vendor_flash_device(&flash));
  tinyldp::conformance::StorageConformanceOptions storage;
  storage.name = "vendor_flash";
  storage.output = to_stdout;
  storage.inject_failure = [](void*) { flash.powered_off = 1; };
  storage.restore = [](void*) { flash.powered_off = 0; };
  const uint32_t storage_violations = tinyldp::conformance::storage_conformance(device, storage);
#ifndef PORT_BARE_METAL
  std::printf("port_conformance: vendor_trng %u violations, vendor_flash %u violations\n",
              static_cast<unsigned>(entropy_violations), static_cast<unsigned>(storage_violations));
#endif
  return entropy_violations == 0 && storage_violations == 0 ? 0 : 1;
}
}  // namespace

#ifdef PORT_BARE_METAL
volatile int port_result = -1;
extern "C" [[noreturn]] void _start() {
  port_result = run();
  for (;;) {
  }
}
#else
int main() { return run(); }
#endif
