// SPDX-License-Identifier: Apache-2.0
// The telemetry firmware's main loop (firmware.hpp), run on a QEMU board (or the host): boot,
// then `reports` rounds of "maintain the DRBG, send one report". Prints how many frames went
// out and the last one; exits non-zero if any step failed, so ctest runs it as a test.
#include "example_print.hpp"
#include "firmware.hpp"
#include "platform.h"

namespace {
using example::print;
using example::print_hex_bytes;
using example::print_uint;
constexpr uint32_t reports = 20;
}  // namespace

// The DRBG lives as long as the firmware: a plain global, zero-initialized (.bss, no flash) and
// with no destructor to register (tests/static_placement checks the image). Its key never
// leaves it; a power cycle starts from a fresh TRNG seed.
tinyldp::port::ChaCha20Drbg drbg;

int main() {
  for (uint32_t i = 0; i < reports; ++i) {
    if (firmware_maintain(drbg) != FirmwareResult::ok) {
      print("oue_firmware: the entropy source failed; no report sent\n");
      return 1;
    }
    if (firmware_report(drbg) != FirmwareResult::ok) {
      print("oue_firmware: a report failed; nothing sent\n");
      return 2;
    }
  }
  const uint8_t* last = nullptr;
  const size_t last_length = platform_radio_last_frame(&last);
  print("oue_firmware: sent ");
  print_uint(platform_radio_frames());
  print(" frames of ");
  print_uint(last_length);
  print(" bytes; last:");
  print_hex_bytes(last, last_length);
  print("\n");
  return platform_radio_frames() == reports ? 0 : 3;
}
