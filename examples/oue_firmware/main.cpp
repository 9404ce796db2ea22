// SPDX-License-Identifier: Apache-2.0
// The telemetry firmware's main loop (firmware.hpp), run on a QEMU board (or the host): boot,
// then `reports` rounds of "maintain the DRBG, send one report". Prints how many frames went
// out and the last one; exits non-zero if any step failed, so ctest runs it as a test.
#include "example_print.hpp"
#include "firmware.hpp"
#include "platform_qemu.hpp"

namespace {
using example::print;
using example::print_hex_bytes;
using example::print_uint;
constexpr uint32_t reports = 20;
}  // namespace

int main() {
  // The DRBG lives as long as the firmware (here on main's stack; a firmware may keep it in
  // .bss). Its key never leaves it; a power cycle starts from a fresh TRNG seed.
  tinyldp::port::ChaCha20Drbg drbg;
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
  const RadioLog& log = radio_log_so_far();
  print("oue_firmware: sent ");
  print_uint(log.frames);
  print(" frames of ");
  print_uint(log.last_length);
  print(" bytes; last:");
  print_hex_bytes(log.last, log.last_length);
  print("\n");
  return log.frames == reports ? 0 : 3;
}
