/* SPDX-License-Identifier: Apache-2.0 */
/* The C firmware: examples/c_firmware/firmware.c as it is (tinyldp.h: TRNG → health tests →
 * ChaCha20 DRBG → OUE d = 256 → wire, OUE configured at run time from ε = 1), on the platform
 * stand-ins. One boot and one round of its main loop. Its contexts are the application's
 * (app_firmware, .bss); everything else lives on the stack. */
#include "firmware.h"

c_firmware app_firmware;

int footprint_run(void);
int footprint_run(void) {
  if (c_firmware_boot(&app_firmware) != C_FIRMWARE_OK) return 1;
  if (c_firmware_maintain(&app_firmware) != C_FIRMWARE_OK) return 1;
  return c_firmware_report(&app_firmware) == C_FIRMWARE_OK ? 0 : 1;
}
