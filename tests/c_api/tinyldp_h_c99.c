/* SPDX-License-Identifier: Apache-2.0 */
/* tinyldp.h is C99: this file includes it and uses each of its constructs (the context types,
 * the size macros, the initializer macros, the function types); the test c_api_header_c99
 * compiles it with -std=c99 -pedantic -Wall -Wextra -Werror. */
#include "tinyldp.h"

static tinyldp_chacha20_drbg drbg; /* globals: zero-initialized, .bss */
static tinyldp_ue oue;
static tinyldp_health health;
static tinyldp_record record;
static uint64_t table[TINYLDP_DLAPLACE_TABLE_ENTRIES(-8, 8)];
static const tinyldp_health_plan plan = TINYLDP_HEALTH_PLAN_DEFAULT;
static const tinyldp_health_config config = TINYLDP_HEALTH_CONFIG_DEFAULT;

int tinyldp_h_c99_uses(const tinyldp_entropy_source* trng, uint8_t* frame, size_t size);
int tinyldp_h_c99_uses(const tinyldp_entropy_source* trng, uint8_t* frame, size_t size) {
  tinyldp_entropy_source source;
  tinyldp_dlaplace dl;
  tinyldp_wire_header header = {TINYLDP_WIRE_DEVICE_ID, 1, 0, 0, 0};
  size_t written = 0;
  tinyldp_health_plan made;
  tinyldp_chacha20_drbg_init(&drbg);
  if (tinyldp_health_init(&health, trng, &plan) != TINYLDP_STATUS_OK) return 1;
  source = tinyldp_health_source(&health);
  if (tinyldp_chacha20_drbg_seed(&drbg, &source, tinyldp_health_min_entropy_q8(&health),
                                 TINYLDP_ENTROPY_BLOCKING, NULL, 0) != TINYLDP_ENTROPY_OK)
    return 2;
  source = tinyldp_chacha20_drbg_source(&drbg);
  if (tinyldp_ue_configure_oue(&oue, TINYLDP_EPSILON_Q32(1, 1), 64) != TINYLDP_STATUS_OK) return 3;
  if (tinyldp_dlaplace_configure(&dl, TINYLDP_EPSILON_Q32(1, 2), -8, 8, 1, table,
                                 sizeof table / sizeof table[0]) != TINYLDP_STATUS_OK)
    return 4;
  if (tinyldp_health_plan_make(&config, &made) != TINYLDP_STATUS_OK) return 5;
  if (tinyldp_record_init(&record, NULL, 0, 1) == TINYLDP_STORAGE_OK) return 6;
  return tinyldp_ue_report(&oue, 3, &source, &header, frame, size, &written) == TINYLDP_STATUS_OK
             ? 0
             : 7;
}
