// SPDX-License-Identifier: Apache-2.0
// The memos' attribute word (memo.hpp): the mechanism's wire id folded into the PRF input, so
// that two memoized mechanisms given one attribute index on one device draw independent memos
// — L-GRR's value v and LOLOHA's hashed value v, a RAPPOR report and a record's attribute. With
// the device's real key (ChaCha20, port/…/memo_key.hpp): before the fold these memos were
// equal for every device; now they agree as often as independent draws do (within 6σ).
#include "check.hpp"
#include "device_memo_key.hpp"
#include "frequency_check.hpp"
#include "tinyldp/loloha.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/longitudinal_grr.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/record_rr.hpp"
#include "tinyldp/two_stage_rr.hpp"

namespace tinyldp::test {
namespace {

#ifdef TINYLDP_TEST_ON_TARGET
constexpr uint32_t devices = 400;
#else
constexpr uint32_t devices = 4000;
#endif

port::MemoKey device_key(uint32_t device) { return device_memo_key(device, 13, 7); }

constexpr Epsilon eps_inf = Epsilon::from_double(2.0), eps_one = Epsilon::from_double(1.0);

TEST(the_attribute_word_holds_the_wire_id_above_the_attribute_index) {
  static_assert(memo_attribute(wire::MechanismId::l_grr, 3) == ((18u << 24) | 3u));
  static_assert(memo_attribute(wire::MechanismId::loloha, 3) != memo_attribute(wire::MechanismId::l_grr, 3));
  constexpr LongitudinalGrr l_grr = LongitudinalGrr::make(eps_inf, eps_one, 8, {}, 3);
  static_assert(l_grr.memo_attribute_word() == memo_attribute(wire::MechanismId::l_grr, 3));
  constexpr Loloha loloha = Loloha::make_optimal(eps_inf, eps_one, 100, {}, 3);
  static_assert(loloha.memo_attribute_word() == memo_attribute(wire::MechanismId::loloha, 3));
  constexpr Loloha biloloha = Loloha::make_binary(eps_inf, eps_one, 100, {}, 3);
  static_assert(biloloha.memo_attribute_word() == memo_attribute(wire::MechanismId::biloloha, 3));
  // An attribute index above 2^24 − 1 has no room beside the id: refused.
  LongitudinalGrr big;
  CHECK_EQ(LongitudinalGrr::configure(eps_inf, eps_one, 8, big, {}, max_memo_attribute + 1),
           Status::bad_parameter);
  TwoStageRr t;
  CHECK_EQ(TwoStageRr::configure_chain(UeStage::oue, UeStage::sue, eps_inf, eps_one,
                                       TwoStageRr::one_hot(8, max_memo_attribute + 1), t),
           Status::bad_parameter);
}

TEST(l_grr_and_loloha_on_one_attribute_draw_independent_memos) {
  // Both memoize over [8] with the same stage 1 (k-RR at ε∞): L-GRR's memo of value h and
  // LOLOHA's memo of hashed value h came from one stream. Independent, they agree with
  // probability p1² + 7·q1².
  LongitudinalGrr l_grr;
  Loloha loloha;
  CHECK_EQ(LongitudinalGrr::configure(eps_inf, eps_one, 8, l_grr), Status::ok);
  CHECK_EQ(Loloha::configure(eps_inf, eps_one, 100, 8, loloha), Status::ok);
  CHECK(l_grr.chain().memo_stage().other_probability() == loloha.chain().memo_stage().other_probability());
  const double q1 = as_double(l_grr.chain().memo_stage().other_probability());
  const double p1 = 1 - 7 * q1;
  uint64_t agree = 0;
  for (uint32_t device = 0; device < devices; ++device) {
    const port::MemoKey key = device_key(device);
    const uint32_t h = device % 8;
    auto a = key.memo_stream(l_grr.memo_attribute_word(), h);
    auto b = key.memo_stream(loloha.memo_attribute_word(), h);
    MemoDraws<decltype(a)> da(a);
    MemoDraws<decltype(b)> db(b);
    agree += l_grr.chain().memoize(h, da) == loloha.chain().memoize(h, db);
  }
  CHECK(within_six_sigma(agree, devices, p1 * p1 + 7 * q1 * q1, false));
}

TEST(a_rappor_report_and_a_record_attribute_draw_independent_memos) {
  // The same channel twice, its IRR the identity (the report is the memo): stand-alone on
  // attribute 0, and attribute 0 of a record. Per bit the two memos agree with probability
  // p1² + q1²-style: set bit p1² + (1 − p1)², unset bit q1² + (1 − q1)².
  constexpr Dyadic three_quarters{3, 2}, quarter{1, 2};
  TwoStageRr alone;
  CHECK_EQ(TwoStageRr::configure(three_quarters, quarter, Dyadic{1, 0}, Dyadic{0, 0}, TwoStageRr::one_hot(32, 0),
                                 alone),
           Status::ok);
  RecordRr<1> record;
  CHECK_EQ(RecordRr<1>::configure(&alone, 1, record), Status::ok);
  CHECK(alone.memo_attribute_word() != record.attribute(0).memo_attribute_word());
  port::InsecureTestSource src(3);
  RandomBits<port::InsecureTestSource> rng(src);
  uint64_t agree_set = 0, agree_unset = 0;
  for (uint32_t device = 0; device < devices; ++device) {
    const port::MemoKey key = device_key(device);
    const uint32_t value = device % 32;
    uint8_t a[4], b[4];
    CHECK_EQ(alone.privatize(value, key, rng, a, sizeof a), Status::ok);
    CHECK_EQ(record.privatize(&value, key, rng, b, sizeof b), Status::ok);
    for (uint32_t i = 0; i < 32; ++i) {
      const bool same = ((static_cast<uint32_t>(a[i / 8] ^ b[i / 8]) >> (i % 8)) & 1u) == 0;
      (i == value ? agree_set : agree_unset) += same;
    }
  }
  CHECK(within_six_sigma(agree_set, devices, 0.75 * 0.75 + 0.25 * 0.25, false));
  CHECK(within_six_sigma(agree_unset, uint64_t{devices} * 31, 0.75 * 0.75 + 0.25 * 0.25, false));
}

}  // namespace
}  // namespace tinyldp::test
