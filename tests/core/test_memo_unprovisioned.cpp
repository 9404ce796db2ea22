// SPDX-License-Identifier: Apache-2.0
// Every memoized mechanism refuses a memo key that is not provisioned (memo.hpp): a key never
// provisioned, or whose record could not be read, would draw its memos from the all-zero key —
// anyone could compute every device's permanent response. Each privatize answers
// key_not_provisioned with an all-zero report (the buffer or report was filled with garbage
// first), and the same call with the key provisioned answers ok. Before the fix every one of
// them answered ok with the memo of the public key.
#include "check.hpp"
#include "test_memo_key.hpp"
#include "tinyldp/one_bit_mean.hpp"
#include "tinyldp/dbitflip.hpp"
#include "tinyldp/loloha.hpp"
#include "tinyldp/longitudinal_grr.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/record_rr.hpp"
#include "tinyldp/two_stage_rr.hpp"

namespace tinyldp::test {
namespace {

constexpr Epsilon eps_inf = Epsilon::from_ratio(2, 1), eps_one = Epsilon::from_ratio(1, 1);
constexpr TwoStageRr l_osue =
    TwoStageRr::make_chain(UeStage::oue, UeStage::sue, eps_inf, eps_one, TwoStageRr::one_hot(16));
constexpr LongitudinalGrr l_grr = LongitudinalGrr::make(eps_inf, eps_one, 8);
constexpr Loloha loloha = Loloha::make_optimal(eps_inf, eps_one, 100);
constexpr OneBitMean bfm = OneBitMean::make(eps_inf, eps_one, OneBitMean::Grid{100, 10});
constexpr DBitFlip dbf = DBitFlip::make(eps_inf, eps_one, DBitFlip::Layout{100, 10, 3, 0});

constexpr TestMemoKey unprovisioned{7, 0, false};
constexpr TestMemoKey provisioned{7, 0, true};

bool all_zero(const uint8_t* p, size_t n) {
  uint8_t any = 0;
  for (size_t i = 0; i < n; ++i) any = static_cast<uint8_t>(any | p[i]);
  return any == 0;
}

TEST(two_stage_rr_and_record_rr_refuse_an_unprovisioned_key) {
  port::InsecureTestSource src(1);
  RandomBits<port::InsecureTestSource> rng(src);
  uint8_t report[2];
  report[0] = report[1] = 0xA5;
  CHECK_EQ(l_osue.privatize(3, unprovisioned, rng, report, sizeof report), Status::key_not_provisioned);
  CHECK(all_zero(report, sizeof report));
  CHECK_EQ(l_osue.privatize(3, provisioned, rng, report, sizeof report), Status::ok);

  RecordRr<2> record;
  const TwoStageRr attributes[2] = {
      l_osue, TwoStageRr::make_chain(UeStage::oue, UeStage::sue, eps_inf, eps_one,
                                     TwoStageRr::one_hot(16, 1))};
  CHECK_EQ(RecordRr<2>::configure(attributes, 2, record), Status::ok);
  const uint32_t values[2] = {1, 9};
  uint8_t r[4] = {0xA5, 0xA5, 0xA5, 0xA5};
  CHECK_EQ(record.privatize(values, unprovisioned, rng, r, sizeof r), Status::key_not_provisioned);
  CHECK(all_zero(r, sizeof r));
  CHECK_EQ(record.privatize(values, provisioned, rng, r, sizeof r), Status::ok);
}

TEST(the_longitudinal_mechanisms_refuse_an_unprovisioned_key) {
  port::InsecureTestSource src(2);
  RandomBits<port::InsecureTestSource> rng(src);
  LongitudinalGrr::Report g = 0xA5A5u;
  CHECK_EQ(l_grr.privatize(5, unprovisioned, rng, g), Status::key_not_provisioned);
  CHECK_EQ(g, 0u);
  CHECK_EQ(l_grr.privatize(5, provisioned, rng, g), Status::ok);

  Loloha::Report h{0xA5A5u, 0xA5A5u};
  CHECK_EQ(loloha.privatize(42, unprovisioned, rng, h), Status::key_not_provisioned);
  CHECK_EQ(h.seed, 0u);
  CHECK_EQ(h.value, 0u);
  CHECK_EQ(loloha.privatize(42, provisioned, rng, h), Status::ok);

  OneBitMean::Report b = 0xA5;
  CHECK_EQ(bfm.privatize(37, unprovisioned, rng, b), Status::key_not_provisioned);
  CHECK_EQ(b, 0u);
  CHECK_EQ(bfm.privatize(37, provisioned, rng, b), Status::ok);

  DBitFlip::Report d;
  for (auto& bucket : d.bucket) bucket = 0xA5A5u;
  d.bits = 0xA5A5u;
  CHECK_EQ(dbf.privatize(37, unprovisioned, rng, d), Status::key_not_provisioned);
  uint32_t any = d.bits;
  for (auto bucket : d.bucket) any |= bucket;
  CHECK_EQ(any, 0u);
  CHECK_EQ(dbf.privatize(37, provisioned, rng, d), Status::ok);
}

TEST(the_device_memo_key_is_refused_until_set) {
  // port::MemoKey{} (what a failed load leaves, and what wipe() makes) is refused; set, it reports.
  port::InsecureTestSource src(3);
  RandomBits<port::InsecureTestSource> rng(src);
  port::MemoKey key;
  CHECK(!key.provisioned());
  uint8_t report[2] = {0xFF, 0xFF};
  CHECK_EQ(l_osue.privatize(1, key, rng, report, sizeof report), Status::key_not_provisioned);
  CHECK(all_zero(report, sizeof report));
  uint8_t secret[32] = {1, 2, 3};
  key.set(secret, 4);
  CHECK_EQ(l_osue.privatize(1, key, rng, report, sizeof report), Status::ok);
  key.wipe();
  LongitudinalGrr::Report g = 7;
  CHECK_EQ(l_grr.privatize(1, key, rng, g), Status::key_not_provisioned);
  CHECK_EQ(g, 0u);
  CHECK_EQ(to_string(Status::key_not_provisioned)[0], 'm');
}

}  // namespace
}  // namespace tinyldp::test
