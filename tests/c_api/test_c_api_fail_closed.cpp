// SPDX-License-Identifier: Apache-2.0
// What the C API refuses (docs/privacy-model.md, "What tinyldp refuses, and why"): a mechanism
// context that is all zero, or whose configure failed and was ignored, answers
// TINYLDP_STATUS_NOT_CONFIGURED to privatize and report, zeroes the whole buffer it was given,
// writes nothing past it and reports 0 bytes written (a zeroed UE context used to loop and write
// past the buffer); TINYLDP_EPSILON_Q32 with arguments it cannot represent is 0 at run time,
// which configure refuses (it used to wrap, or divide by zero); ε below 2^-16 is
// TINYLDP_STATUS_EPSILON_TOO_SMALL; a Bloom chain meets ε∞ and ε₁ as asked; a health context never
// initialised is a failed source with no estimate (it used to follow a null reference); so is a
// record or ledger context never initialised refused (bad geometry, storage failed, not open)
// where it used to follow a null device or record reference. Runs on the host and on every
// QEMU target.
#include "check.hpp"
#include "guarded_buffer.hpp"
#include "tinyldp.h"
#include "tinyldp/port/test/insecure_test_source.hpp"

namespace tinyldp::test {
namespace {

// The guard after the buffer: the largest C report a zeroed context might have run on into.
template <size_t Size>
using Guarded = test::Guarded<Size, 256>;

void say(const char* what) {
  print("    ");
  print(what);
  print("\n");
}

// privatize(source, payload, size) and report(source, header, frame, size, written) of one
// context: refused, the buffer all zero, nothing past it, 0 written.
template <class Privatize, class Report>
void expect_refused(const char* what, Privatize privatize, Report report) {
  port::InsecureTestSource src(7);
  const tinyldp_entropy_source source = to_c_source(src);
  const int before = failures_in_current_test();
  Guarded<16> payload;
  CHECK_EQ(privatize(&source, payload.buffer, sizeof payload.buffer), TINYLDP_STATUS_NOT_CONFIGURED);
  CHECK(payload.zero());
  CHECK(payload.guards_intact());
  Guarded<32> frame;
  const tinyldp_wire_header header = {TINYLDP_WIRE_DEVICE_ID, 0xC0FFEE, 0, 0, 0};
  size_t written = 99;
  CHECK_EQ(report(&source, &header, frame.buffer, sizeof frame.buffer, &written), TINYLDP_STATUS_NOT_CONFIGURED);
  CHECK_EQ(written, 0u);
  CHECK(frame.zero());
  CHECK(frame.guards_intact());
  // A frame too short for any report: still not_configured (the context is what is wrong).
  Guarded<1> tiny;
  written = 99;
  CHECK_EQ(report(&source, &header, tiny.buffer, sizeof tiny.buffer, &written), TINYLDP_STATUS_NOT_CONFIGURED);
  CHECK_EQ(written, 0u);
  CHECK(tiny.zero());
  CHECK(tiny.guards_intact());
  if (failures_in_current_test() != before) say(what);
}

// expect_refused on context `ctx` of the family `prefix` (its value: 0, or a null record), and
// the same for a memoized family with `key` (never provisioned: the context is refused first).
#define EXPECT_REFUSED(prefix, ctx)                                                     \
  expect_refused(                                                                       \
      #ctx, [&](auto... a) { return prefix##_privatize(&(ctx), {}, a...); },            \
      [&](auto... a) { return prefix##_report(&(ctx), {}, a...); })
#define EXPECT_MEMOIZED_REFUSED(prefix, ctx, key)                                       \
  expect_refused(                                                                       \
      #ctx, [&](auto... a) { return prefix##_privatize(&(ctx), {}, (key), a...); },     \
      [&](auto... a) { return prefix##_report(&(ctx), {}, (key), a...); })

const uint64_t one = TINYLDP_EPSILON_Q32(1, 1);

// One context of each mechanism without memo (two for those with two configures).
struct Contexts {
  tinyldp_rr rr;
  tinyldp_krr krr;
  tinyldp_ue oue, sue;
  tinyldp_lh olh, blh;
  tinyldp_hr hr;
  tinyldp_sd sd;
  tinyldp_dlaplace dlaplace;
  tinyldp_pm pm;
  tinyldp_hm hm;
  tinyldp_sw sw;
  tinyldp_she she;
  tinyldp_the the;
  tinyldp_spl_grr spl_grr;
  tinyldp_spl_oue spl_oue;
  tinyldp_smp_grr smp_grr;
  tinyldp_smp_oue smp_oue;
  tinyldp_rsfd_grr rsfd_grr;
  tinyldp_rsfd_oue rsfd_oue;
};
void expect_every_report_refused(const Contexts& c) {
  EXPECT_REFUSED(tinyldp_rr, c.rr);
  EXPECT_REFUSED(tinyldp_krr, c.krr);
  EXPECT_REFUSED(tinyldp_ue, c.oue);
  EXPECT_REFUSED(tinyldp_ue, c.sue);
  EXPECT_REFUSED(tinyldp_lh, c.olh);
  EXPECT_REFUSED(tinyldp_lh, c.blh);
  EXPECT_REFUSED(tinyldp_hr, c.hr);
  EXPECT_REFUSED(tinyldp_sd, c.sd);
  EXPECT_REFUSED(tinyldp_dlaplace, c.dlaplace);
  EXPECT_REFUSED(tinyldp_pm, c.pm);
  EXPECT_REFUSED(tinyldp_hm, c.hm);
  EXPECT_REFUSED(tinyldp_sw, c.sw);
  EXPECT_REFUSED(tinyldp_she, c.she);
  EXPECT_REFUSED(tinyldp_the, c.the);
  EXPECT_REFUSED(tinyldp_spl_grr, c.spl_grr);
  EXPECT_REFUSED(tinyldp_spl_oue, c.spl_oue);
  EXPECT_REFUSED(tinyldp_smp_grr, c.smp_grr);
  EXPECT_REFUSED(tinyldp_smp_oue, c.smp_oue);
  EXPECT_REFUSED(tinyldp_rsfd_grr, c.rsfd_grr);
  EXPECT_REFUSED(tinyldp_rsfd_oue, c.rsfd_oue);
}

TEST(zeroed_contexts_refuse_every_report) {
  static Contexts zeroed;  // a global's bytes: all zero
  zero_bytes(zeroed);
  expect_every_report_refused(zeroed);
}

TEST(contexts_whose_configure_failed_refuse_every_report) {
  static Contexts c;
  uint64_t table[8];
  const uint32_t domains[] = {4, 1};  // a domain of one value
  CHECK_EQ(tinyldp_rr_configure(&c.rr, 0), TINYLDP_STATUS_BAD_EPSILON);
  CHECK_EQ(tinyldp_krr_configure(&c.krr, one, 1), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_ue_configure_oue(&c.oue, one, 0), TINYLDP_STATUS_BAD_PARAMETER);  // the case
  CHECK_EQ(tinyldp_ue_configure_sue(&c.sue, one, 0), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_lh_configure_olh(&c.olh, one, 0), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_lh_configure_blh(&c.blh, one, 1), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_hr_configure(&c.hr, one, 0), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_sd_configure(&c.sd, one, 5, 5, 4), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_dlaplace_configure(&c.dlaplace, one, 0, 100, 1, table, 8), TINYLDP_STATUS_BUFFER_TOO_SMALL);
  CHECK_EQ(tinyldp_pm_configure(&c.pm, one, 0, 100, 3), TINYLDP_STATUS_BAD_PARAMETER);  // fewer than 4 cells
  CHECK_EQ(tinyldp_hm_configure(&c.hm, one, 100, 0, 2048), TINYLDP_STATUS_BAD_PARAMETER);  // hi < lo
  CHECK_EQ(tinyldp_sw_configure(&c.sw, one, 0, 100, 4000), TINYLDP_STATUS_BAD_PARAMETER);   // N > 4096
  CHECK_EQ(tinyldp_she_configure(&c.she, one, 16, TINYLDP_SHE_DEFAULT_TRUNCATION(one), table, 8),
           TINYLDP_STATUS_BUFFER_TOO_SMALL);
  CHECK_EQ(tinyldp_the_configure(&c.the, one, 1), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_spl_grr_configure(&c.spl_grr, one, domains, 2), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_spl_oue_configure(&c.spl_oue, one, nullptr, 2), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_smp_grr_configure(&c.smp_grr, one, domains, 1), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_smp_oue_configure(&c.smp_oue, 0, domains, 2), TINYLDP_STATUS_BAD_EPSILON);
  CHECK_EQ(tinyldp_rsfd_grr_configure(&c.rsfd_grr, one, domains, 2), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_rsfd_oue_configure(&c.rsfd_oue, one, domains, 2, 7), TINYLDP_STATUS_BAD_PARAMETER);
  expect_every_report_refused(c);
}

// Memoized contexts (and hh's and haar-hrr's, which take the key for the level), zeroed or whose configure
// failed, with a key never provisioned or none: refused for the context first.
TEST(unconfigured_memoized_contexts_refuse_every_report) {
  tinyldp_two_stage_rr two_stage[2];
  tinyldp_l_grr l_grr[2];
  tinyldp_loloha loloha[2];
  tinyldp_one_bit_mean one_bit_mean[2];
  tinyldp_dbitflip dbitflip[2];
  tinyldp_record_rr record[2];
  tinyldp_hh hh[2];
  tinyldp_haar_hrr haar[2];
  zero_bytes(hh[0]), zero_bytes(haar[0]);
  zero_bytes(two_stage[0]), zero_bytes(l_grr[0]), zero_bytes(loloha[0]), zero_bytes(one_bit_mean[0]);
  zero_bytes(dbitflip[0]), zero_bytes(record[0]);
  const tinyldp_memo_encoding bad = TINYLDP_MEMO_ONE_HOT_ENCODING(1, 0);
  const uint32_t domains[] = {4, 1};
  CHECK_EQ(tinyldp_two_stage_rr_configure_chain(&two_stage[1], TINYLDP_UE_STAGE_OUE, TINYLDP_UE_STAGE_SUE, 2 * one,
                                                one, &bad),
           TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_l_grr_configure(&l_grr[1], 2 * one, one, 1, 0), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_loloha_configure_binary(&loloha[1], one, 2 * one, 100, 0), TINYLDP_STATUS_BAD_EPSILON);
  CHECK_EQ(tinyldp_one_bit_mean_configure(&one_bit_mean[1], 2 * one, one, 100, 0, 32, 0), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_dbitflip_configure(&dbitflip[1], 2 * one, one, 100, 10, 0, 0), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_record_rr_configure_rappor(&record[1], {1, 1}, {1, 2}, {3, 2}, domains, 2),
           TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_hh_configure(&hh[1], one, 0, 100, 32, 0), TINYLDP_STATUS_BAD_PARAMETER);  // B > 16
  CHECK_EQ(tinyldp_haar_hrr_configure(&haar[1], one, 7, 7, 0), TINYLDP_STATUS_BAD_PARAMETER);  // d = 1
  tinyldp_memo_key unprovisioned;
  tinyldp_memo_key_init(&unprovisioned);
  const tinyldp_memo_key* keys[] = {&unprovisioned, nullptr};
  for (const tinyldp_memo_key* key : keys) {
    for (uint32_t i = 0; i < 2; ++i) {
      EXPECT_MEMOIZED_REFUSED(tinyldp_two_stage_rr, two_stage[i], key);
      EXPECT_MEMOIZED_REFUSED(tinyldp_l_grr, l_grr[i], key);
      EXPECT_MEMOIZED_REFUSED(tinyldp_loloha, loloha[i], key);
      EXPECT_MEMOIZED_REFUSED(tinyldp_one_bit_mean, one_bit_mean[i], key);
      EXPECT_MEMOIZED_REFUSED(tinyldp_dbitflip, dbitflip[i], key);
      EXPECT_MEMOIZED_REFUSED(tinyldp_record_rr, record[i], key);
      EXPECT_MEMOIZED_REFUSED(tinyldp_hh, hh[i], key);
      EXPECT_MEMOIZED_REFUSED(tinyldp_haar_hrr, haar[i], key);
    }
  }
}

TEST(epsilon_macro_refuses_what_it_cannot_represent_at_run_time) {
  // Run-time arguments (volatile: not constants, so no compile error).
  volatile uint64_t num = (uint64_t{1} << 32) + 1, den = 1, zero = 0, small = 1;
  CHECK_EQ(TINYLDP_EPSILON_Q32(num, den), 0u);    // wrapped to ε = 1 before
  CHECK_EQ(TINYLDP_EPSILON_Q32(small, zero), 0u);  // divided by zero before
  CHECK_EQ(TINYLDP_EPSILON_Q32(small, den), uint64_t{1} << 32);
  tinyldp_rr rr;
  CHECK_EQ(tinyldp_rr_configure(&rr, TINYLDP_EPSILON_Q32(num, den)), TINYLDP_STATUS_BAD_EPSILON);
  CHECK_EQ(tinyldp_rr_configure(&rr, TINYLDP_EPSILON_Q32(small, zero)), TINYLDP_STATUS_BAD_EPSILON);
  // Constants stay constant expressions.
  static_assert(TINYLDP_EPSILON_Q32(1, 2) == uint64_t{1} << 31);
  static_assert(TINYLDP_EPSILON_Q32(0xFFFFFFFFu, 0xFFFFFFFFu) == uint64_t{1} << 32);
}

TEST(epsilon_below_the_floor_is_its_own_status) {
  tinyldp_rr rr;
  tinyldp_ue ue;
  tinyldp_two_stage_rr chain;
  const tinyldp_memo_encoding hot = TINYLDP_MEMO_ONE_HOT_ENCODING(8, 0);
  CHECK_EQ(tinyldp_rr_configure(&rr, TINYLDP_EPSILON_MIN_Q32 - 1), TINYLDP_STATUS_EPSILON_TOO_SMALL);
  CHECK_EQ(tinyldp_rr_configure(&rr, TINYLDP_EPSILON_MIN_Q32), TINYLDP_STATUS_OK);
  CHECK_EQ(tinyldp_ue_configure_oue(&ue, 1, 8), TINYLDP_STATUS_EPSILON_TOO_SMALL);
  CHECK_EQ(tinyldp_two_stage_rr_configure_chain(&chain, TINYLDP_UE_STAGE_OUE, TINYLDP_UE_STAGE_SUE, one, 100, &hot),
           TINYLDP_STATUS_EPSILON_TOO_SMALL);
  CHECK(tinyldp_status_string(TINYLDP_STATUS_EPSILON_TOO_SMALL)[0] == 'e');
  CHECK(tinyldp_status_string(TINYLDP_STATUS_NOT_CONFIGURED)[0] == 'm');
}

TEST(bloom_chains_meet_the_requested_epsilons) {
  // The case: L-OSUE, ε∞ = 2, ε₁ = 1, 64 bits, 4 hashes (ε∞ was 8).
  const tinyldp_memo_encoding bloom = TINYLDP_MEMO_BLOOM_ENCODING(64, 4, 8, 0);
  tinyldp_two_stage_rr m;
  CHECK_EQ(tinyldp_two_stage_rr_configure_chain(&m, TINYLDP_UE_STAGE_OUE, TINYLDP_UE_STAGE_SUE, 2 * one, one, &bloom),
           TINYLDP_STATUS_OK);
  tinyldp_memo_description d;
  tinyldp_two_stage_rr_describe_memo(&m, &d);
  CHECK_LE(d.epsilon_infinity_q32, 2 * one);
  CHECK_LE(d.epsilon_one_q32, one);
  CHECK_LE(2 * one - d.epsilon_infinity_q32, (uint64_t{1} << 11) + 8);
  CHECK_LE(one - d.epsilon_one_q32, (uint64_t{1} << 11) + 8);
}

TEST(a_health_context_never_initialised_is_a_failed_source) {
  tinyldp_health health;
  zero_bytes(health);
  Guarded<32> out;
  CHECK_EQ(tinyldp_health_fill(&health, out.buffer, sizeof out.buffer, TINYLDP_ENTROPY_BLOCKING),
           TINYLDP_ENTROPY_FAILED);
  CHECK(out.zero());
  CHECK(out.guards_intact());
  CHECK_EQ(tinyldp_health_min_entropy_q8(&health), 0u);
  CHECK_EQ(tinyldp_health_failure(&health), int{TINYLDP_HEALTH_BAD_CONFIG});
  tinyldp_health_reinit(&health);
  const tinyldp_entropy_source source = tinyldp_health_source(&health);
  tinyldp_chacha20_drbg drbg;
  tinyldp_chacha20_drbg_init(&drbg);
  CHECK(tinyldp_chacha20_drbg_seed(&drbg, &source, TINYLDP_ENTROPY_ESTIMATE_FULL, TINYLDP_ENTROPY_BLOCKING, nullptr,
                                   0) != TINYLDP_ENTROPY_OK);
  CHECK_EQ(tinyldp_chacha20_drbg_seeded(&drbg), 0);
  // Initialised, the claim is its estimate (C sources state none of their own).
  port::InsecureTestSource raw_source(5);
  const tinyldp_entropy_source raw = to_c_source(raw_source);
  const tinyldp_health_plan plan = TINYLDP_HEALTH_PLAN_DEFAULT;
  CHECK_EQ(tinyldp_health_init(&health, &raw, &plan), TINYLDP_STATUS_OK);
  CHECK_EQ(tinyldp_health_min_entropy_q8(&health), plan.config.h_q8);
  CHECK_EQ(tinyldp_health_fill(&health, out.buffer, sizeof out.buffer, TINYLDP_ENTROPY_BLOCKING), TINYLDP_ENTROPY_OK);
}

TEST(storage_contexts_never_initialised_refuse_without_touching_storage) {
  // A record of zero bytes: an unusable layout (it used to follow a null device reference).
  tinyldp_record record;
  zero_bytes(record);
  Guarded<64> out;
  size_t length = 99;
  CHECK_EQ(tinyldp_record_capacity(&record), 0u);
  CHECK_EQ(tinyldp_record_read(&record, out.buffer, sizeof out.buffer, &length), TINYLDP_STORAGE_BAD_GEOMETRY);
  CHECK_EQ(length, size_t{0});
  CHECK(out.guards_intact());
  const uint8_t value[4] = {1, 2, 3, 4};
  CHECK_EQ(tinyldp_record_write(&record, value, sizeof value), TINYLDP_STORAGE_BAD_GEOMETRY);
  CHECK_EQ(tinyldp_record_sequence(&record), 0u);
  // A memo key loaded from it: the record cannot be read, so no key (and no default one).
  tinyldp_memo_key key;
  tinyldp_memo_key_init(&key);
  CHECK_EQ(tinyldp_memo_key_load(&key, &record), TINYLDP_MEMO_KEY_STORAGE_FAILED);
  // Report sealing over it: nothing to load, nothing provisioned, no seal.
  tinyldp_report_auth auth;
  const uint8_t auth_key[TINYLDP_REPORT_AUTH_KEY_BYTES] = {1};
  CHECK_EQ(tinyldp_report_auth_load(&auth, &record), TINYLDP_REPORT_AUTH_STORAGE_FAILED);
  CHECK_EQ(tinyldp_report_auth_provision(&auth, &record, 1, auth_key, 0), TINYLDP_REPORT_AUTH_STORAGE_FAILED);
  CHECK_EQ(tinyldp_report_auth_provisioned(&auth), 0);
  CHECK_EQ(tinyldp_report_auth_load(&auth, nullptr), TINYLDP_REPORT_AUTH_NOT_PROVISIONED);
  zero_bytes(auth);  // a context never initialised
  uint8_t report[15 + 20] = {1, 4, 0, 0, 0, 0, 3};
  CHECK_EQ(tinyldp_report_auth_seal(&auth, report, 15, report, sizeof report, &length), TINYLDP_REPORT_AUTH_NOT_PROVISIONED);
  CHECK_EQ(length, size_t{0});
  // A ledger initialised over it: opening and provisioning find no storage.
  tinyldp_ledger ledger;
  tinyldp_ledger_init(&ledger, &record, 4 * one);
  CHECK_EQ(tinyldp_ledger_open(&ledger), TINYLDP_LEDGER_STORAGE_FAILED);
  CHECK_EQ(tinyldp_ledger_provision(&ledger, 0, 0, 0, 0), TINYLDP_LEDGER_STORAGE_FAILED);
  CHECK_EQ(tinyldp_ledger_is_open(&ledger), 0);
  // A ledger given no record at all (NULL): the same refusals.
  tinyldp_ledger_init(&ledger, nullptr, 4 * one);
  CHECK_EQ(tinyldp_ledger_open(&ledger), TINYLDP_LEDGER_STORAGE_FAILED);
  CHECK_EQ(tinyldp_ledger_provision(&ledger, 0, 0, 0, 0), TINYLDP_LEDGER_STORAGE_FAILED);
  // A ledger of zero bytes (it used to follow a null record reference): never open, and every
  // charge is refused before anything is spent.
  zero_bytes(ledger);
  CHECK_EQ(tinyldp_ledger_open(&ledger), TINYLDP_LEDGER_STORAGE_FAILED);
  CHECK_EQ(tinyldp_ledger_provision(&ledger, 0, 0, 0, 0), TINYLDP_LEDGER_STORAGE_FAILED);
  CHECK_EQ(tinyldp_ledger_is_open(&ledger), 0);
  CHECK_EQ(tinyldp_ledger_charge(&ledger, one), TINYLDP_LEDGER_NOT_OPEN);
  CHECK_EQ(tinyldp_ledger_charge_memoized(&ledger, 0, 7, 0, one), TINYLDP_LEDGER_NOT_OPEN);
  CHECK_EQ(tinyldp_ledger_roll_epoch(&ledger), TINYLDP_LEDGER_NOT_OPEN);
  CHECK_EQ(tinyldp_ledger_advance_epoch(&ledger, 5), TINYLDP_LEDGER_NOT_OPEN);
  CHECK_EQ(tinyldp_ledger_remaining_q32(&ledger), uint64_t{0});
}

}  // namespace
}  // namespace tinyldp::test
