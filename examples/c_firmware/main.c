/* SPDX-License-Identifier: Apache-2.0 */
/* The C telemetry firmware's main loop (firmware.h) on a QEMU board or the host: boot, then 20
 * rounds of "maintain the DRBG, send one report"; prints how many frames went out and the last
 * one, and exits non-zero if any step failed, so ctest runs it as a test. */
#include "board.h"
#include "example_print.h"
#include "firmware.h"
#include "platform.h"

enum { REPORTS = 20 };

/* Every tinyldp context of the firmware: a plain global (.bss; tests/static_placement checks). */
static c_firmware firmware;

int main(void) {
  static const char hex[] = "0123456789abcdef";
  const uint8_t* last = NULL;
  size_t length, i;
  uint32_t round;
  if (c_firmware_boot(&firmware) != C_FIRMWARE_OK) {
    example_print("c_firmware: configuration failed\n");
    return 1;
  }
  for (round = 0; round < REPORTS; ++round) {
    if (c_firmware_maintain(&firmware) != C_FIRMWARE_OK) {
      example_print("c_firmware: the entropy source failed; no report sent\n");
      return 1;
    }
    if (c_firmware_report(&firmware) != C_FIRMWARE_OK) {
      example_print("c_firmware: a report failed; nothing sent\n");
      return 2;
    }
  }
  length = platform_radio_last_frame(&last);
  example_print("c_firmware: sent ");
  example_print_uint(platform_radio_frames());
  example_print(" frames of ");
  example_print_uint((uint32_t)length);
  example_print(" bytes; last:");
  for (i = 0; i < length; ++i) {
    const char byte[3] = {' ', hex[last[i] >> 4], hex[last[i] & 15]};
    tinyldp_board_write(byte, sizeof byte);
  }
  example_print("\n");
  return platform_radio_frames() == REPORTS ? 0 : 3;
}
