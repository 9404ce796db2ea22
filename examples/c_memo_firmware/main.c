/* SPDX-License-Identifier: Apache-2.0 */
/* Reports over time from C (tinyldp.h): a device that reports the same kind of value again and
 * again keeps its memo key and its privacy ledger in flash, charges the ledger durably before
 * each report, and sends memoized L-OSUE reports (OUE memoized at ε∞ = 2, then a fresh SUE: one
 * report ε₁ = 1; d = 256). The flash here is a RAM array behind a C storage driver (on a real
 * device: the vendor's flash HAL); a "reboot" makes every context again from it.
 *
 * The run: three boots. Boot 1 (epoch 0) reports 3, 3, 3, 5, 5, 9 — 3 and 5 cost ε∞ each, which
 * spends the epoch's cap (2 ε∞), so 9 is refused; boot 2 (same epoch) reports 5 (the memoized
 * value: free) and 3 (changed: refused); boot 3 moves to epoch 1 and reports 3 (ε∞ again). Before
 * boot 1 the blank flash is refused (nothing is created at boot) and provisioned explicitly, as
 * a factory would. It
 * checks those counts, the key generation kept across boots and the lifetime total (3 ε∞), and
 * exits non-zero otherwise, so ctest runs it under QEMU on every target. */
#include "board.h"
#include "example_print.h"
#include "platform.h"
#include "tinyldp.h"

enum { SECTOR = 128, SECTORS = 4, DOMAIN = 256 };

/* ---- the flash driver (C, over RAM) ------------------------------------------------------- */
static uint8_t flash_bytes[SECTOR * SECTORS];

static tinyldp_storage_result flash_read(void* context, uint32_t address, uint8_t* out,
                                         size_t length) {
  size_t i;
  (void)context;
  if (address + length > sizeof flash_bytes) return TINYLDP_STORAGE_IO_ERROR;
  for (i = 0; i < length; ++i) out[i] = flash_bytes[address + i];
  return TINYLDP_STORAGE_OK;
}
static tinyldp_storage_result flash_program(void* context, uint32_t address, const uint8_t* data,
                                            size_t length) {
  size_t i;
  (void)context;
  if (address + length > sizeof flash_bytes) return TINYLDP_STORAGE_IO_ERROR;
  for (i = 0; i < length; ++i) flash_bytes[address + i] &= data[i]; /* NOR: clears bits only */
  return TINYLDP_STORAGE_OK;
}
static tinyldp_storage_result flash_erase(void* context, uint32_t sector) {
  size_t i;
  (void)context;
  if (sector >= SECTORS) return TINYLDP_STORAGE_IO_ERROR;
  for (i = 0; i < SECTOR; ++i) flash_bytes[sector * SECTOR + i] = 0xFF;
  return TINYLDP_STORAGE_OK;
}

/* ---- the device ---------------------------------------------------------------------------- */
/* Every tinyldp context: a plain global (.bss). The memo key's record in sectors 0–1, the
 * ledger's in 2–3 (one sector per slot: 112 bytes of payload, enough for 36 and 92). */
static tinyldp_chacha20_drbg drbg;
static tinyldp_record key_record, ledger_record;
static tinyldp_memo_key key;
static tinyldp_two_stage_rr l_osue;
static tinyldp_ledger ledger;
static uint32_t sent, refused;

static tinyldp_entropy_result trng_fill(void* context, uint8_t* out, size_t length,
                                        uint32_t flags) {
  (void)context;
  (void)flags;
  return platform_trng_fill(out, length);
}

/* TRNG → health tests → DRBG. (Once per run here: the simulated reboots below make every
 * context that lives in flash again, but a real boot seeds again too.) */
static int seed(void) {
  static const tinyldp_health_plan plan = TINYLDP_HEALTH_PLAN_DEFAULT;
  const tinyldp_entropy_source trng = {trng_fill, NULL};
  tinyldp_health health;
  tinyldp_entropy_source checked;
  tinyldp_chacha20_drbg_init(&drbg);
  if (tinyldp_health_init(&health, &trng, &plan) != TINYLDP_STATUS_OK) return 1;
  checked = tinyldp_health_source(&health);
  return tinyldp_chacha20_drbg_seed(&drbg, &checked, tinyldp_health_min_entropy_q8(&health),
                                    TINYLDP_ENTROPY_BLOCKING, NULL, 0) == TINYLDP_ENTROPY_OK
             ? 0
             : 2;
}

/* The records, the mechanism and the (closed) ledger over its record. */
static int contexts(void) {
  static const tinyldp_memo_encoding encoding = TINYLDP_MEMO_ONE_HOT_ENCODING(DOMAIN, 0);
  static const tinyldp_storage_device flash = {flash_read, flash_program, flash_erase, NULL,
                                               {SECTOR, SECTORS, 4, 0xFF}};
  tinyldp_memo_description memo;
  if (tinyldp_record_init(&key_record, &flash, 0, 1) != TINYLDP_STORAGE_OK ||
      tinyldp_record_init(&ledger_record, &flash, 2, 1) != TINYLDP_STORAGE_OK)
    return 3;
  if (tinyldp_two_stage_rr_configure_chain(&l_osue, TINYLDP_UE_STAGE_OUE, TINYLDP_UE_STAGE_SUE,
                                           TINYLDP_EPSILON_Q32(2, 1), TINYLDP_EPSILON_Q32(1, 1),
                                           &encoding) != TINYLDP_STATUS_OK)
    return 5;
  tinyldp_two_stage_rr_describe_memo(&l_osue, &memo);
  tinyldp_ledger_init(&ledger, &ledger_record, 2 * memo.epsilon_infinity_q32);
  return 0;
}

/* The factory's step, once, on a blank flash: a memo key (generation 0) and a ledger at zero. */
static int provision(void) {
  if (contexts() != 0) return 3;
  if (tinyldp_memo_key_provision(&key, &key_record, &drbg, 0) != TINYLDP_MEMO_KEY_OK) return 4;
  if (tinyldp_ledger_provision(&ledger, 0, 0, 0, 0) != TINYLDP_LEDGER_OK) return 6;
  return 0;
}

/* The key, the mechanism, the ledger moved forward to `epoch` (one write): all made again from
 * flash. Never creates the key or the ledger: a blank flash is refused until provision(). */
static int boot(uint32_t epoch) {
  if (contexts() != 0) return 3;
  if (tinyldp_memo_key_load(&key, &key_record) != TINYLDP_MEMO_KEY_OK) return 4;
  if (tinyldp_ledger_open(&ledger) != TINYLDP_LEDGER_OK) return 6;
  if (tinyldp_ledger_advance_epoch(&ledger, epoch) != TINYLDP_LEDGER_OK) return 7;
  return 0;
}

/* Charges first (durably); only then privatizes into the frame and sends it. */
static int report(uint32_t value) {
  uint8_t frame[TINYLDP_WIRE_FIXED_HEADER_BYTES + 8 + TINYLDP_UE_PAYLOAD_BYTES(DOMAIN)];
  const tinyldp_entropy_source source = tinyldp_chacha20_drbg_source(&drbg);
  const tinyldp_wire_header header = {TINYLDP_WIRE_EPOCH | TINYLDP_WIRE_MEMO_GENERATION, 0,
                                      tinyldp_ledger_epoch(&ledger), 0, 0};
  size_t written = 0;
  const tinyldp_ledger_result charged = tinyldp_ledger_charge_memo(&ledger, 0, &l_osue, &key, value);
  if (charged == TINYLDP_LEDGER_BUDGET_EXHAUSTED) {
    ++refused;
    return 0;
  }
  if (charged != TINYLDP_LEDGER_OK) return 1;
  if (tinyldp_two_stage_rr_report(&l_osue, value, &key, &source, &header, frame, sizeof frame,
                                  &written) != TINYLDP_STATUS_OK)
    return 2;
  platform_radio_send(frame, written);
  ++sent;
  return 0;
}

int main(void) {
  static const uint32_t first[] = {3, 3, 3, 5, 5, 9};
  tinyldp_memo_description memo;
  size_t i;
  uint32_t lifetime_units;
  for (i = 0; i < sizeof flash_bytes; ++i) flash_bytes[i] = 0xFF; /* a blank device */
  if (seed() != 0 || boot(0) != 4) { /* refused: nothing provisioned yet */
    example_print("c_memo_firmware: a blank device booted\n");
    return 1;
  }
  if (provision() != 0 || boot(0) != 0) {
    example_print("c_memo_firmware: boot failed\n");
    return 1;
  }
  for (i = 0; i < sizeof first / sizeof first[0]; ++i)
    if (report(first[i]) != 0) return 2;
  if (boot(0) != 0 || report(5) != 0 || report(3) != 0) return 3; /* a reboot, the same epoch */
  if (boot(1) != 0 || report(3) != 0) return 4;                    /* the next epoch */
  tinyldp_two_stage_rr_describe_memo(&l_osue, &memo);
  lifetime_units = (uint32_t)(tinyldp_ledger_lifetime_q32(&ledger) / memo.epsilon_infinity_q32);
  example_print("c_memo_firmware: sent ");
  example_print_uint(sent);
  example_print(" frames, ");
  example_print_uint(refused);
  example_print(" refused by the ledger; key generation ");
  example_print_uint(tinyldp_memo_key_generation(&key));
  example_print(", epoch ");
  example_print_uint(tinyldp_ledger_epoch(&ledger));
  example_print(", lifetime ");
  example_print_uint(lifetime_units);
  example_print(" x eps_inf\n");
  return sent == 7 && refused == 2 && platform_radio_frames() == 7 &&
                 tinyldp_memo_key_generation(&key) == 0 && tinyldp_ledger_epoch(&ledger) == 1 &&
                 tinyldp_ledger_lifetime_q32(&ledger) == 3 * memo.epsilon_infinity_q32
             ? 0
             : 5;
}
