/* SPDX-License-Identifier: Apache-2.0 */
/* tinyldp.h is C99: this file includes it and uses each of its constructs (the context types,
 * the size macros, the initializer macros, the function types); the test c_api_header_c99
 * compiles it with -std=c99 -pedantic -Wall -Wextra -Werror. */
#include "tinyldp.h"

static tinyldp_chacha20_drbg drbg; /* globals: zero-initialized, .bss */
static tinyldp_ue oue;
static tinyldp_health health;
static tinyldp_record record;
static tinyldp_memo_key memo_key;
static tinyldp_two_stage_rr l_osue;
static tinyldp_ledger ledger;
static tinyldp_record ledger_record;
static tinyldp_report_auth report_auth;
static tinyldp_record auth_record;
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

/* Reports over time: the memo key, a memoized chain and RAPPOR, the ledger's charge first. */
int tinyldp_h_c99_memo(const tinyldp_storage_device* flash, uint8_t* frame, size_t size);
int tinyldp_h_c99_memo(const tinyldp_storage_device* flash, uint8_t* frame, size_t size) {
  static const tinyldp_memo_encoding one_hot = TINYLDP_MEMO_ONE_HOT_ENCODING(256, 0);
  static const tinyldp_memo_encoding bloom = TINYLDP_MEMO_BLOOM_ENCODING(128, 2, 16, 1);
  const tinyldp_dyadic f = {1, 1}, p = {1, 2}, q = {3, 2};
  tinyldp_two_stage_rr rappor;
  tinyldp_memo_description memo;
  tinyldp_description description;
  tinyldp_entropy_source source = tinyldp_chacha20_drbg_source(&drbg);
  tinyldp_wire_header header = {TINYLDP_WIRE_DEVICE_ID | TINYLDP_WIRE_MEMO_GENERATION, 1, 0, 0, 0};
  tinyldp_ledger_result charged;
  tinyldp_memo_key_result loaded;
  size_t written = 0;
  if (tinyldp_record_init(&record, flash, 0, 1) != TINYLDP_STORAGE_OK) return 1;
  if (tinyldp_record_init(&ledger_record, flash, 2, 1) != TINYLDP_STORAGE_OK) return 2;
  if (tinyldp_memo_key_load(&memo_key, &record) != TINYLDP_MEMO_KEY_NOT_PROVISIONED) return 12;
  loaded = tinyldp_memo_key_provision(&memo_key, &record, &drbg, 0);
  if (loaded != TINYLDP_MEMO_KEY_OK) return tinyldp_memo_key_result_string(loaded)[0];
  if (tinyldp_two_stage_rr_configure_chain(&l_osue, TINYLDP_UE_STAGE_OUE, TINYLDP_UE_STAGE_SUE,
                                           TINYLDP_EPSILON_Q32(2, 1), TINYLDP_EPSILON_Q32(1, 1),
                                           &one_hot) != TINYLDP_STATUS_OK)
    return 3;
  if (tinyldp_two_stage_rr_configure_rappor(&rappor, f, p, q, &bloom) != TINYLDP_STATUS_OK) return 4;
  tinyldp_two_stage_rr_describe(&l_osue, &description);
  tinyldp_two_stage_rr_describe_memo(&l_osue, &memo);
  tinyldp_ledger_init(&ledger, &ledger_record, 2 * memo.epsilon_infinity_q32);
  if (tinyldp_ledger_open(&ledger) != TINYLDP_LEDGER_NOT_PROVISIONED ||
      tinyldp_ledger_provision(&ledger, 0, 0, 0, 0) != TINYLDP_LEDGER_OK)
    return 5;
  charged = tinyldp_ledger_charge_memo(&ledger, 0, &l_osue, &memo_key, 7);
  if (charged != TINYLDP_LEDGER_OK) return tinyldp_ledger_result_string(charged)[0];
  if (tinyldp_ledger_charge_memoized(&ledger, 1,
                                     tinyldp_memo_key_value_tag(&memo_key, TINYLDP_MECHANISM_L_OSUE, 1, 9),
                                     tinyldp_memo_key_generation(&memo_key),
                                     memo.epsilon_infinity_q32) != TINYLDP_LEDGER_OK ||
      tinyldp_ledger_charge(&ledger, description.realized_epsilon_q32) != TINYLDP_LEDGER_BUDGET_EXHAUSTED)
    return 6;
  if (tinyldp_ledger_advance_epoch(&ledger, 1) != TINYLDP_LEDGER_OK || !tinyldp_ledger_is_open(&ledger) ||
      tinyldp_ledger_generation(&ledger) != 0 ||
      tinyldp_ledger_epoch(&ledger) != 1 || tinyldp_ledger_spent_q32(&ledger) != 0 ||
      tinyldp_ledger_remaining_q32(&ledger) != tinyldp_ledger_cap_q32(&ledger) ||
      tinyldp_ledger_lifetime_q32(&ledger) == 0 || tinyldp_ledger_charges(&ledger) != 2)
    return 7;
  header.cohort = (uint16_t)tinyldp_memo_key_cohort(&memo_key, 16);
  if (tinyldp_two_stage_rr_privatize(&rappor, 12345u, &memo_key, &source, frame, size) !=
      TINYLDP_STATUS_OK)
    return 8;
  if (tinyldp_memo_key_rekey(&memo_key, &record, &drbg) != TINYLDP_MEMO_KEY_OK ||
      !tinyldp_memo_key_provisioned(&memo_key) || tinyldp_memo_key_load(&memo_key, &record) != 0)
    return 9;
  if (tinyldp_two_stage_rr_report(&l_osue, 7, &memo_key, &source, &header, frame, size, &written) !=
      TINYLDP_STATUS_OK)
    return 10;
  tinyldp_memo_key_wipe(&memo_key);
  tinyldp_memo_key_init(&memo_key);
  return memo.p1.bits + memo.q1.bits + memo.p2.bits + memo.q2.bits > 0 ? 0 : 11;
}

/* Every other mechanism: histogram encodings, records without memo, the longitudinal k-RR family
 * and memoized records, through the functions the header's macros declare. */
/* ε = 1 written as its constant ε · 2^32 (TINYLDP_EPSILON_Q32 is no constant expression in C). */
static uint64_t she_table[TINYLDP_SHE_TABLE_ENTRIES(TINYLDP_SHE_DEFAULT_TRUNCATION((uint64_t)1 << 32))];
static tinyldp_she she;
static tinyldp_the the;
static tinyldp_spl_grr spl_grr;
static tinyldp_spl_oue spl_oue;
static tinyldp_smp_grr smp_grr;
static tinyldp_smp_oue smp_oue;
static tinyldp_rsfd_grr rsfd_grr;
static tinyldp_rsfd_oue rsfd_oue;
static tinyldp_l_grr l_grr;
static tinyldp_loloha loloha;
static tinyldp_one_bit_mean one_bit_mean;
static tinyldp_dbitflip dbitflip;
static tinyldp_record_rr record_rr;
int tinyldp_h_c99_every_mechanism(const tinyldp_memo_key* key, const tinyldp_entropy_source* source,
                                  uint8_t* frame, size_t size);
int tinyldp_h_c99_every_mechanism(const tinyldp_memo_key* key, const tinyldp_entropy_source* source,
                                  uint8_t* frame, size_t size) {
  const uint64_t one = TINYLDP_EPSILON_Q32(1, 1), two = TINYLDP_EPSILON_Q32(2, 1);
  const uint32_t domains[TINYLDP_RECORD_MAX_ATTRIBUTES] = {4, 10, 3};
  const uint32_t record[3] = {1, 2, 0};
  const tinyldp_dyadic f = {1, 1}, p = {1, 2}, q = {3, 2};
  tinyldp_description description;
  tinyldp_memo_description memo;
  size_t written = 0;
  int failures = 0;
  failures += tinyldp_she_configure(&she, one, 16, TINYLDP_SHE_DEFAULT_TRUNCATION(one), she_table,
                                    sizeof she_table / sizeof she_table[0]) != TINYLDP_STATUS_OK;
  failures += tinyldp_she_report(&she, 3, source, NULL, frame, size, &written) != TINYLDP_STATUS_OK;
  failures += tinyldp_the_configure(&the, one, 64) != TINYLDP_STATUS_OK;
  failures += tinyldp_the_privatize(&the, 3, source, frame, size) != TINYLDP_STATUS_OK;
  failures += tinyldp_spl_grr_configure(&spl_grr, one, domains, 3) != TINYLDP_STATUS_OK;
  failures += tinyldp_spl_oue_configure(&spl_oue, one, domains, 3) != TINYLDP_STATUS_OK;
  failures += tinyldp_smp_grr_configure(&smp_grr, one, domains, 3) != TINYLDP_STATUS_OK;
  failures += tinyldp_smp_oue_configure(&smp_oue, one, domains, 3) != TINYLDP_STATUS_OK;
  failures += tinyldp_rsfd_grr_configure(&rsfd_grr, one, domains, 3) != TINYLDP_STATUS_OK;
  failures += tinyldp_rsfd_oue_configure(&rsfd_oue, one, domains, 3, TINYLDP_RSFD_FAKE_RANDOM) != TINYLDP_STATUS_OK;
  failures += tinyldp_rsfd_oue_report(&rsfd_oue, record, source, NULL, frame, size, &written) != TINYLDP_STATUS_OK;
  tinyldp_rsfd_oue_describe(&rsfd_oue, &description);
  failures += description.mechanism_id != TINYLDP_MECHANISM_RSFD_OUE_R;
  failures += tinyldp_l_grr_configure(&l_grr, two, one, 16, 0) != TINYLDP_STATUS_OK;
  failures += tinyldp_ledger_charge_memo_l_grr(&ledger, 1, &l_grr, key, 3) != TINYLDP_LEDGER_OK;
  failures += tinyldp_l_grr_report(&l_grr, 3, key, source, NULL, frame, size, &written) != TINYLDP_STATUS_OK;
  failures += tinyldp_loloha_configure_optimal(&loloha, two, one, 1000, 1) != TINYLDP_STATUS_OK;
  failures += tinyldp_loloha_privatize(&loloha, 999, key, source, frame, size) != TINYLDP_STATUS_OK;
  failures += tinyldp_one_bit_mean_configure(&one_bit_mean, two, one, 100, 10, 32, 2) != TINYLDP_STATUS_OK;
  tinyldp_one_bit_mean_describe_memo(&one_bit_mean, &memo);
  failures += memo.epsilon_one_q32 >= memo.epsilon_infinity_q32;
  failures += tinyldp_dbitflip_configure(&dbitflip, two, one, 100, 10, 4, 3) != TINYLDP_STATUS_OK;
  failures += size < TINYLDP_DBITFLIP_MAX_PAYLOAD_BYTES ||
              tinyldp_dbitflip_privatize(&dbitflip, 50, key, source, frame, size) != TINYLDP_STATUS_OK;
  failures += tinyldp_record_rr_configure_rappor(&record_rr, f, p, q, domains, 3) != TINYLDP_STATUS_OK;
  failures += tinyldp_record_rr_configure(&record_rr, &l_osue, 1) != TINYLDP_STATUS_OK;
  failures += tinyldp_record_rr_report(&record_rr, record, key, source, NULL, frame, size, &written) !=
              TINYLDP_STATUS_OK;
  return failures;
}

/* Every _precise configure, with the default precision, a coarser one and a cap of bits. */
static tinyldp_rr rr;
static tinyldp_krr krr;
static tinyldp_lh lh;
static tinyldp_hr hr;
static tinyldp_sd sd;
static tinyldp_pm pm;
static tinyldp_hm hm;
static tinyldp_sw sw;
static tinyldp_hh hh;
static tinyldp_haar_hrr haar_hrr;
static const tinyldp_precision default_precision = TINYLDP_PRECISION_DEFAULT;
int tinyldp_h_c99_precise(void);
int tinyldp_h_c99_precise(void) {
  const uint64_t one = TINYLDP_EPSILON_Q32(1, 1), two = TINYLDP_EPSILON_Q32(2, 1);
  const tinyldp_precision coarse = {64, TINYLDP_EPSILON_Q32(1, 100)};
  const tinyldp_precision capped = {12, TINYLDP_PRECISION_DEFAULT_TOLERANCE_Q32};
  const uint32_t domains[TINYLDP_RECORD_MAX_ATTRIBUTES] = {4, 10, 3};
  const tinyldp_memo_encoding one_hot = TINYLDP_MEMO_ONE_HOT_ENCODING(64, 0);
  tinyldp_description fine, coarser;
  int failures = 0;
  failures += tinyldp_ue_configure_oue(&oue, one, 256) != TINYLDP_STATUS_OK;
  tinyldp_ue_describe(&oue, &fine);
  failures += tinyldp_ue_configure_oue_precise(&oue, one, 256, coarse) != TINYLDP_STATUS_OK;
  tinyldp_ue_describe(&oue, &coarser);
  failures += coarser.random_bits_per_report >= fine.random_bits_per_report;
  failures += tinyldp_ue_configure_sue_precise(&oue, one, 256, default_precision) != TINYLDP_STATUS_OK;
  failures += tinyldp_rr_configure_precise(&rr, one, capped) != TINYLDP_STATUS_OK;
  failures += tinyldp_krr_configure_precise(&krr, one, 16, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_lh_configure_olh_precise(&lh, one, 1000, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_lh_configure_blh_precise(&lh, one, 1000, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_hr_configure_precise(&hr, one, 100, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_sd_configure_precise(&sd, one, -8, 8, 16, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_pm_configure_precise(&pm, one, -8, 8, 256, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_hm_configure_precise(&hm, one, -8, 8, 256, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_sw_configure_precise(&sw, one, -8, 8, 17, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_hh_configure_precise(&hh, one, -8, 8, 4, 0, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_haar_hrr_configure_precise(&haar_hrr, one, -8, 8, 0, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_the_configure_precise(&the, one, 64, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_spl_grr_configure_precise(&spl_grr, one, domains, 3, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_spl_oue_configure_precise(&spl_oue, one, domains, 3, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_smp_grr_configure_precise(&smp_grr, one, domains, 3, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_smp_oue_configure_precise(&smp_oue, one, domains, 3, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_rsfd_grr_configure_precise(&rsfd_grr, one, domains, 3, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_rsfd_oue_configure_precise(&rsfd_oue, one, domains, 3, TINYLDP_RSFD_FAKE_ZERO, coarse) !=
              TINYLDP_STATUS_OK;
  failures += tinyldp_two_stage_rr_configure_chain_precise(&l_osue, TINYLDP_UE_STAGE_OUE, TINYLDP_UE_STAGE_SUE, two,
                                                           one, &one_hot, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_l_grr_configure_precise(&l_grr, two, one, 16, 0, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_loloha_configure_precise(&loloha, two, one, 1000, 5, 1, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_loloha_configure_optimal_precise(&loloha, two, one, 1000, 1, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_loloha_configure_binary_precise(&loloha, two, one, 1000, 1, coarse) != TINYLDP_STATUS_OK;
  failures += tinyldp_one_bit_mean_configure_precise(&one_bit_mean, two, one, 100, 10, 32, 2, coarse) !=
              TINYLDP_STATUS_OK;
  failures += tinyldp_dbitflip_configure_precise(&dbitflip, two, one, 100, 10, 4, 3, coarse) != TINYLDP_STATUS_OK;
  return failures;
}

/* Authenticated reports: provisioned once, then a version-1 report sealed in place. */
int tinyldp_h_c99_auth(const tinyldp_storage_device* flash, uint8_t* frame, size_t n, size_t size);
int tinyldp_h_c99_auth(const tinyldp_storage_device* flash, uint8_t* frame, size_t n, size_t size) {
  static const uint8_t fleet_secret[32] = {1};
  uint8_t key[TINYLDP_REPORT_AUTH_KEY_BYTES];
  tinyldp_report_auth_result r;
  size_t written = 0;
  if (tinyldp_record_init(&auth_record, flash, 4, 1) != TINYLDP_STORAGE_OK ||
      tinyldp_record_capacity(&auth_record) < TINYLDP_REPORT_AUTH_RECORD_BYTES)
    return 1;
  tinyldp_report_auth_init(&report_auth);
  if (tinyldp_report_auth_load(&report_auth, &auth_record) == TINYLDP_REPORT_AUTH_NOT_PROVISIONED) {
    tinyldp_report_auth_derive_key(fleet_secret, 7, key);
    if (tinyldp_report_auth_provision(&report_auth, &auth_record, 7, key, 0) != TINYLDP_REPORT_AUTH_OK) return 2;
  }
  r = tinyldp_report_auth_seal(&report_auth, frame, n, frame, size, &written);
  if (r != TINYLDP_REPORT_AUTH_OK) return tinyldp_report_auth_result_string(r)[0];
  return written == n + TINYLDP_WIRE_AUTHENTICATED_TRAILER_BYTES && frame[0] == TINYLDP_WIRE_AUTHENTICATED_VERSION &&
                 tinyldp_report_auth_provisioned(&report_auth) && tinyldp_report_auth_device_id(&report_auth) == 7 &&
                 tinyldp_report_auth_next_counter(&report_auth) > 0
             ? 0
             : 3;
}
