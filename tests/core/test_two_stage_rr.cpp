// SPDX-License-Identifier: Apache-2.0
// Memoized two-stage randomized response: configuration and its exact ε∞ / ε₁, memoization
// (same value → same memo, fresh IRR), fail-closed ends, Bloom positions, the composed
// channel's frequencies, golden reports.
#include "bytes_equal.hpp"
#include "check.hpp"
#include "frequency_check.hpp"
#include "mechanism_checks.hpp"
#include "test_memo_key.hpp"
#include "tinyldp/two_stage_rr.hpp"

namespace tinyldp::test {
namespace {

constexpr Dyadic half{1, 1}, quarter{1, 2}, three_quarters{3, 2};

// RAPPOR's f = 1/2, p = 1/2, q = 3/4 over 16 one-hot bits.
constexpr TwoStageRr rappor = TwoStageRr::make_rappor(half, half, three_quarters, TwoStageRr::one_hot(16));

TEST(rappor_parameters_become_the_two_stages) {
  static_assert(rappor.p1() == three_quarters && rappor.q1() == quarter);
  static_assert(rappor.p2() == three_quarters && rappor.q2() == half);
  static_assert(rappor.description().id == wire::MechanismId::rappor);
  static_assert(TwoStageRr::chain_id(UeStage::oue, UeStage::sue) == wire::MechanismId::l_osue);
  CHECK_EQ(rappor.report_bytes(), 2u);
  CHECK_EQ(rappor.memo_bits_per_report(), 32u);
  CHECK_EQ(rappor.random_bits_per_report(), 32u);
}

TEST(epsilon_infinity_is_the_permanent_stage_and_epsilon_one_the_composed_channel) {
  // ε∞: the PRR is UE(3/4, 1/4) — the same integers give the same realized ε.
  UnaryEncoding prr;
  CHECK(UnaryEncoding::configure(three_quarters, quarter, 16, prr) == Status::ok);
  CHECK_EQ(rappor.epsilon_infinity().q32, prr.realized_epsilon().q32);
  // ε₁: per bit, q* = 3/4·3/4 + 1/4·1/2 = 11/16 and p* = 1/4·3/4 + 3/4·1/2 = 9/16.
  UnaryEncoding composed;
  CHECK(UnaryEncoding::configure(Dyadic{11, 4}, Dyadic{9, 4}, 16, composed) == Status::ok);
  CHECK_EQ(rappor.epsilon_one().q32, composed.realized_epsilon().q32);
  CHECK(rappor.epsilon_one() < rappor.epsilon_infinity());
  CHECK_EQ(rappor.lifetime_epsilon(3).q32, 3 * rappor.epsilon_infinity().q32);
  // h hashes multiply both.
  TwoStageRr bloom;
  CHECK(TwoStageRr::configure_rappor(half, half, three_quarters, TwoStageRr::bloom(64, 2, 8), bloom) ==
        Status::ok);
  CHECK_EQ(bloom.epsilon_infinity().q32, 2 * rappor.epsilon_infinity().q32);
  CHECK_EQ(bloom.epsilon_one().q32, 2 * rappor.epsilon_one().q32);
}

TEST(chains_meet_epsilon_one_from_below_within_the_tolerance) {
  const Epsilon inf = Epsilon::from_double(2.0), one = Epsilon::from_double(1.0);
  const UeStage stages[] = {UeStage::sue, UeStage::oue};
  for (UeStage first : stages) {
    for (UeStage second : stages) {
      TwoStageRr m;
      CHECK(TwoStageRr::configure_chain(first, second, inf, one, TwoStageRr::one_hot(74), m) == Status::ok);
      CHECK(m.epsilon_one() <= one);
      CHECK(Epsilon::from_q32(one.q32 - (uint64_t{1} << 11)) <= m.epsilon_one());
      // Stage 1 is the plain SUE / OUE at ε∞.
      UnaryEncoding s1;
      CHECK((first == UeStage::sue ? UnaryEncoding::configure_sue(inf, 74, s1, {32})
                                   : UnaryEncoding::configure_oue(inf, 74, s1, {32})) == Status::ok);
      CHECK(m.p1() == s1.p() && m.q1() == s1.q());
      CHECK_EQ(m.epsilon_infinity().q32, s1.realized_epsilon().q32);
      // Stage 2's shape: SUE symmetric, OUE p2 = 1/2.
      if (second == UeStage::oue) CHECK(m.p2() == half);
      CHECK(m.description().id == TwoStageRr::chain_id(first, second));
    }
  }
}

TEST(rejects_bad_parameters) {
  TwoStageRr m;
  const auto e = TwoStageRr::one_hot(8);
  CHECK(TwoStageRr::configure(quarter, three_quarters, three_quarters, half, e, m) == Status::bad_parameter);
  CHECK(TwoStageRr::configure(three_quarters, quarter, half, three_quarters, e, m) == Status::bad_parameter);
  CHECK(TwoStageRr::configure(Dyadic{1, 0}, quarter, three_quarters, half, e, m) == Status::bad_parameter);
  CHECK(TwoStageRr::configure(three_quarters, quarter, three_quarters, half, TwoStageRr::one_hot(1), m) ==
        Status::bad_parameter);
  CHECK(TwoStageRr::configure(three_quarters, quarter, three_quarters, half, TwoStageRr::bloom(64, 17, 1), m) ==
        Status::bad_parameter);
  CHECK(TwoStageRr::configure(Dyadic{(uint64_t{1} << 49) + 1, 50}, quarter, three_quarters, half, e, m) ==
        Status::precision_too_low);
  // ε₁ must be below ε∞ (else the second stage would add nothing).
  CHECK(TwoStageRr::configure_chain(UeStage::oue, UeStage::sue, Epsilon::from_double(1.0),
                                    Epsilon::from_double(1.0), e, m) == Status::bad_epsilon);
  CHECK(TwoStageRr::configure_rappor(Dyadic{0, 0}, half, three_quarters, e, m) == Status::bad_parameter);
}

TEST(the_memo_is_the_same_for_a_value_and_the_instantaneous_stage_is_fresh) {
  // IRR p2 = 1, q2 = 0 reports the memo itself: it must not change between reports of one
  // value (any Rng), and differ between values and between keys.
  TwoStageRr memo_only;
  CHECK(TwoStageRr::configure(three_quarters, quarter, Dyadic{1, 0}, Dyadic{0, 0}, TwoStageRr::one_hot(256),
                              memo_only) == Status::ok);
  CHECK_EQ(memo_only.random_bits_per_report(), 0u);
  const TestMemoKey key{7, 0};
  port::InsecureTestSource src(3);
  Rng rng(src);
  uint8_t first[32], again[32], other[32];
  CHECK(memo_only.privatize(42, key, rng, first, sizeof first) == Status::ok);
  for (int i = 0; i < 20; ++i) {
    CHECK(memo_only.privatize(42, key, rng, again, sizeof again) == Status::ok);
    CHECK(bytes_equal(first, again, sizeof first));
  }
  CHECK(memo_only.privatize(43, key, rng, other, sizeof other) == Status::ok);
  CHECK(!bytes_equal(first, other, sizeof first));
  CHECK(memo_only.privatize(42, TestMemoKey{7, 1}, rng, other, sizeof other) == Status::ok);
  CHECK(!bytes_equal(first, other, sizeof first));
  // With the IRR on, two reports of one value differ (fresh noise).
  TwoStageRr irr;
  CHECK(TwoStageRr::configure_rappor(half, half, three_quarters, TwoStageRr::one_hot(256), irr) == Status::ok);
  CHECK(irr.privatize(42, key, rng, first, sizeof first) == Status::ok);
  CHECK(irr.privatize(42, key, rng, again, sizeof again) == Status::ok);
  CHECK(!bytes_equal(first, again, sizeof first));
}

TEST(out_of_domain_short_buffer_and_entropy_failure_emit_nothing) {
  const TestMemoKey key{};
  port::InsecureTestSource src(5);
  Rng rng(src);
  uint8_t report[2] = {0xAA, 0xAA};
  CHECK(rappor.privatize(16, key, rng, report, 2) == Status::value_out_of_domain);
  CHECK_EQ(report[0] | report[1], 0);
  report[0] = 0xAA;
  CHECK(rappor.privatize(3, key, rng, report, 1) == Status::buffer_too_small);
  CHECK_EQ(report[0], 0);
  port::InsecureTestSource failing(6);
  failing.fail_on_call(1);
  Rng broken(failing);
  report[0] = report[1] = 0xAA;
  CHECK(rappor.privatize(3, key, broken, report, 2) == Status::entropy_failed);
  CHECK_EQ(report[0] | report[1], 0);
}

TEST(consumes_the_same_bits_for_every_value) {
  const TestMemoKey key{};
  uint64_t expected = 0;
  for (uint32_t v = 0; v < 17; ++v) {  // 16 is out of the domain: the same bits all the same
    port::InsecureTestSource src(9);
    Rng rng(src);
    uint8_t report[2];
    (void)rappor.privatize(v, key, rng, report, 2);
    if (v == 0) expected = rng.bits_drawn();
    CHECK_EQ(rng.bits_drawn(), expected);
  }
  CHECK_EQ(expected, rappor.random_bits_per_report());
}

TEST(bloom_positions_are_in_range_and_set_their_bits) {
  // PRR 1023/1024 vs 1/1024 over 10-bit uniforms, fed U = 1 on every lane: exactly the set
  // lanes (1 < 1023) come out 1, the unset ones (1 < 1) 0; the IRR is the identity.
  TwoStageRr bloom;
  CHECK(TwoStageRr::configure(Dyadic{1023, 10}, Dyadic{1, 10}, Dyadic{1, 0}, Dyadic{0, 0},
                              TwoStageRr::bloom(100, 3, 4), bloom) == Status::ok);
  struct UniformOne {  // per ladder of 10 steps: the first draw all ones, the rest zero
    unsigned calls = 0;
    uint64_t draw(unsigned n) { return calls++ % 10 == 0 ? (n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1) : 0; }
  };
  port::InsecureTestSource src(1);
  Rng rng(src);
  const uint32_t values[] = {0u, 1u, 12345u, 0xFFFFFFFFu};
  for (uint32_t value : values) {
    UniformOne memo;
    uint8_t report[13] = {};
    CHECK(bloom.privatize_with_memo(value, 2, memo, rng, report, sizeof report) == Status::ok);
    uint8_t expected[13] = {};
    for (uint32_t j = 0; j < 3; ++j) {
      const uint32_t pos = TwoStageRr::bloom_position(value, 2, j, 100);
      CHECK(pos < 100);
      expected[pos / 8] = static_cast<uint8_t>(expected[pos / 8] | (1u << (pos % 8)));
    }
    CHECK(bytes_equal(report, expected, sizeof report));
  }
  // A cohort outside [0, m) is refused like a value outside the domain.
  UniformOne memo;
  uint8_t report[13];
  CHECK(bloom.privatize_with_memo(5, 4, memo, rng, report, sizeof report) == Status::value_out_of_domain);
}

TEST(reports_follow_the_composed_channel) {
  // Over many devices (keys) and reports, bit 5 (set) is 1 with probability q* = 11/16 and
  // the others with p* = 9/16.
  const auto [n, power] = powered_sample(9.0 / 16, 4000);
  port::InsecureTestSource src(11);
  Rng rng(src);
  uint64_t set = 0, unset = 0;
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t report[2];
    CHECK(rappor.privatize(5, TestMemoKey{i + 1, 0}, rng, report, 2) == Status::ok);
    set += (report[0] >> 5) & 1u;
    unset += (report[1] >> 2) & 1u;  // bit 10
  }
  CHECK(within_six_sigma(set, n, 11.0 / 16, power));
  CHECK(within_six_sigma(unset, n, 9.0 / 16, power));
}

}  // namespace
}  // namespace tinyldp::test
