// The telemetry firmware's main loop (firmware.hpp), run on a QEMU board (or the host): boot,
// then `reports` rounds of "maintain the DRBG, send one report". Prints how many frames went
// out and the last one; exits non-zero if any step failed, so ctest runs it as a test.
#include "board.h"
#include "firmware.hpp"
#include "platform_qemu.hpp"

namespace {
void print(const char* text) {
  size_t n = 0;
  while (text[n] != '\0') ++n;
  tinyldp_board_write(text, n);
}
void print_u32(uint32_t v) {
  char digits[10];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  char out[10];
  for (int i = 0; i < n; ++i) out[i] = digits[n - 1 - i];
  tinyldp_board_write(out, static_cast<size_t>(n));
}
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
  print_u32(log.frames);
  print(" frames of ");
  print_u32(static_cast<uint32_t>(log.last_length));
  print(" bytes; last:");
  for (size_t i = 0; i < log.last_length; ++i) {
    const char hex[4] = {' ', "0123456789abcdef"[log.last[i] >> 4], "0123456789abcdef"[log.last[i] & 15], 0};
    print(hex);
  }
  print("\n");
  return log.frames == reports ? 0 : 3;
}
