/* SPDX-License-Identifier: Apache-2.0 */
/* The telemetry firmware in C (firmware.h): TRNG → health tests → ChaCha20 DRBG → OUE → wire. */
#include "firmware.h"

#include "platform.h"

enum { DOMAIN = 256 };

/* The TRNG as a tinyldp entropy source. */
static tinyldp_entropy_result trng_fill(void* context, uint8_t* out, size_t length,
                                        uint32_t flags) {
  (void)context;
  (void)flags;
  return platform_trng_fill(out, length);
}

int c_firmware_boot(c_firmware* fw) {
  tinyldp_chacha20_drbg_init(&fw->drbg);
  /* Run-time configuration from an integer ε: the core's exact arithmetic, once, at boot. */
  return tinyldp_ue_configure_oue(&fw->oue, TINYLDP_EPSILON_Q32(1, 1), DOMAIN) == TINYLDP_STATUS_OK
             ? C_FIRMWARE_OK
             : C_FIRMWARE_CONFIG_FAILED;
}

int c_firmware_maintain(c_firmware* fw) {
  /* The health tests on the TRNG's byte samples with the default claim (H = 1 bit per byte,
   * α = 2^-20), cutoffs computed beforehand; fresh for each seeding, start-up test included. */
  static const tinyldp_health_plan plan = TINYLDP_HEALTH_PLAN_DEFAULT;
  const tinyldp_entropy_source trng = {trng_fill, NULL};
  tinyldp_description oue;
  tinyldp_health health;
  tinyldp_entropy_source checked;
  /* Keystream blocks one report can use, with room to spare (a block yields ≥ 32 bytes). */
  tinyldp_ue_describe(&fw->oue, &oue);
  if (tinyldp_chacha20_drbg_seeded(&fw->drbg) &&
      tinyldp_chacha20_drbg_blocks_until_reseed(&fw->drbg) >= oue.random_bits_per_report / 256 + 4)
    return C_FIRMWARE_OK;
  if (tinyldp_health_init(&health, &trng, &plan) != TINYLDP_STATUS_OK)
    return C_FIRMWARE_ENTROPY_FAILED;
  checked = tinyldp_health_source(&health);
  /* The estimate the DRBG needs: the health tests' claim, per output byte. */
  return tinyldp_chacha20_drbg_seed(&fw->drbg, &checked, tinyldp_health_min_entropy_q8(&health),
                                    TINYLDP_ENTROPY_BLOCKING, NULL, 0) == TINYLDP_ENTROPY_OK
             ? C_FIRMWARE_OK
             : C_FIRMWARE_ENTROPY_FAILED;
}

int c_firmware_report(c_firmware* fw) {
  uint8_t frame[TINYLDP_WIRE_FIXED_HEADER_BYTES + TINYLDP_UE_PAYLOAD_BYTES(DOMAIN)];
  size_t written = 0;
  const tinyldp_entropy_source drbg = tinyldp_chacha20_drbg_source(&fw->drbg);
  if (tinyldp_ue_report(&fw->oue, platform_sensor_value() % DOMAIN, &drbg, NULL, frame,
                        sizeof frame, &written) != TINYLDP_STATUS_OK)
    return C_FIRMWARE_REPORT_FAILED;
  platform_radio_send(frame, written);
  return C_FIRMWARE_OK;
}
