/* SPDX-License-Identifier: Apache-2.0 */
/* The C telemetry firmware's main loop (firmware.h) on a QEMU board or the host: boot, then 20
 * rounds of "maintain the DRBG, send one report"; prints how many frames went out and the last
 * one, and exits non-zero if any step failed, so ctest runs it as a test. */
#include "board.h"
#include "firmware.h"
#include "platform.h"

enum { REPORTS = 20 };

/* Every tinyldp context of the firmware: a plain global (.bss; tests/static_placement checks). */
static c_firmware firmware;

static void print(const char* text) {
  size_t n = 0;
  while (text[n] != '\0') ++n;
  tinyldp_board_write(text, n);
}

static void print_uint(uint32_t v) {
  char out[10];
  size_t n = sizeof out;
  do {
    out[--n] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  tinyldp_board_write(out + n, sizeof out - n);
}

int main(void) {
  static const char hex[] = "0123456789abcdef";
  const uint8_t* last = NULL;
  size_t length, i;
  uint32_t round;
  if (c_firmware_boot(&firmware) != C_FIRMWARE_OK) {
    print("c_firmware: configuration failed\n");
    return 1;
  }
  for (round = 0; round < REPORTS; ++round) {
    if (c_firmware_maintain(&firmware) != C_FIRMWARE_OK) {
      print("c_firmware: the entropy source failed; no report sent\n");
      return 1;
    }
    if (c_firmware_report(&firmware) != C_FIRMWARE_OK) {
      print("c_firmware: a report failed; nothing sent\n");
      return 2;
    }
  }
  length = platform_radio_last_frame(&last);
  print("c_firmware: sent ");
  print_uint(platform_radio_frames());
  print(" frames of ");
  print_uint((uint32_t)length);
  print(" bytes; last:");
  for (i = 0; i < length; ++i) {
    const char byte[3] = {' ', hex[last[i] >> 4], hex[last[i] & 15]};
    tinyldp_board_write(byte, sizeof byte);
  }
  print("\n");
  return platform_radio_frames() == REPORTS ? 0 : 3;
}
