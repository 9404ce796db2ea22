/* SPDX-License-Identifier: Apache-2.0 */
/* One OUE report from C through tinyldp.h, as a C firmware would make it: a DRBG seeded from a
 * stand-in TRNG (NOT RANDOM: a test, not a device) with its stated estimate, OUE configured from
 * ε = 1 as ε · 2^32, the report framed for the wire. Exit code 0 when all of it succeeds. */
#include "tinyldp.h"

static tinyldp_chacha20_drbg drbg; /* plain globals: zero, .bss */
static tinyldp_ue oue;

static tinyldp_entropy_result stand_in_trng(void* context, uint8_t* out, size_t length,
                                            uint32_t flags) {
  uint32_t* state = (uint32_t*)context;
  size_t i;
  (void)flags;
  for (i = 0; i < length; ++i) {
    *state = *state * 1664525u + 1013904223u;
    out[i] = (uint8_t)(*state >> 24);
  }
  return TINYLDP_ENTROPY_OK;
}

static int run(void) {
  uint32_t state = 17;
  const tinyldp_entropy_source trng = {stand_in_trng, &state};
  tinyldp_entropy_source source;
  uint8_t frame[TINYLDP_WIRE_FIXED_HEADER_BYTES + TINYLDP_UE_PAYLOAD_BYTES(16)];
  size_t written = 0;
  tinyldp_chacha20_drbg_init(&drbg);
  if (tinyldp_chacha20_drbg_seed(&drbg, &trng, TINYLDP_ENTROPY_ESTIMATE_FULL,
                                 TINYLDP_ENTROPY_BLOCKING, NULL, 0) != TINYLDP_ENTROPY_OK)
    return 1;
  if (tinyldp_ue_configure_oue(&oue, TINYLDP_EPSILON_Q32(1, 1), 16) != TINYLDP_STATUS_OK) return 2;
  source = tinyldp_chacha20_drbg_source(&drbg);
  if (tinyldp_ue_report(&oue, 5, &source, NULL, frame, sizeof frame, &written) !=
          TINYLDP_STATUS_OK ||
      written != sizeof frame || frame[1] != TINYLDP_MECHANISM_OUE)
    return 3;
  return 0;
}

#ifdef CONSUMER_BARE_METAL
volatile int consumer_c_result = -1;
void _start(void);
void _start(void) {
  consumer_c_result = run();
  for (;;) {
  }
}
#else
#include <stdio.h>
int main(void) {
  const int r = run();
  printf("consumer_c: tinyldp %s from C: one OUE report, %s\n", TINYLDP_VERSION_STRING,
         r == 0 ? "framed" : "FAILED");
  return r;
}
#endif
