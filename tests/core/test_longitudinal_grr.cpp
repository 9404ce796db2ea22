// SPDX-License-Identifier: Apache-2.0
// L-GRR (longitudinal_grr.hpp): the chain's configuration and its exact ε∞ / ε₁, memoization
// (same value → same memo, fresh second stage), fail-closed ends, the same bits for every
// value, the composed channel's frequencies, the estimator's unbiasedness over a fleet, and
// the wire codec.
#include "check.hpp"
#include "frequency_check.hpp"
#include "mechanism_checks.hpp"
#include "memoized_checks.hpp"
#include "tinyldp/longitudinal_grr.hpp"

namespace tinyldp::test {
namespace {

constexpr Epsilon eps_inf = Epsilon::from_double(2.0), eps_one = Epsilon::from_double(1.0);
constexpr LongitudinalGrr l_grr = LongitudinalGrr::make(eps_inf, eps_one, 6);

TEST(stage_one_is_krr_at_epsilon_infinity_and_the_chain_meets_epsilon_one_from_below) {
  check_chain_meets(l_grr.chain(), 6, eps_inf, eps_one);
  CHECK_EQ(l_grr.realized_epsilon().q32, l_grr.epsilon_one().q32);
  // Over several domains and budgets, run-time configuration agrees with the bounds too.
  const uint32_t domains[] = {2, 3, 74, 1000};
  const Epsilon infs[] = {Epsilon::from_ratio(1, 2), Epsilon::from_ratio(5, 1)};
  for (uint32_t k : domains) {
    for (Epsilon inf : infs) {
      const Epsilon one = Epsilon::from_q32(inf.q32 / 2);
      LongitudinalGrr m;
      CHECK_EQ(LongitudinalGrr::configure(inf, one, k, m), Status::ok);
      check_chain_meets(m.chain(), k, inf, one);
    }
  }
}

TEST(epsilon_one_is_the_composed_channel_from_the_integers) {
  // k = 3, q1 = 1/4 (p1 = 1/2), q2 = 1/8 (p2 = 3/4): p* = 3/8 + 2·1/32 = 7/16,
  // q* = 1/16 + 3/16 + 1/32 = 9/32, so ε₁ = ln(14/9) and ε∞ = ln 2.
  LongitudinalGrr m;
  CHECK_EQ(LongitudinalGrr::configure_stages(Dyadic{1, 2}, Dyadic{1, 3}, 3, m), Status::ok);
  Epsilon expected_one, expected_inf;
  using W = detail::Wide;
  CHECK(ln_upper_bound(W::from(14), W::from(9), expected_one));
  CHECK(ln_upper_bound(W::from(2), W::from(1), expected_inf));
  CHECK_EQ(m.epsilon_one().q32, expected_one.q32);
  CHECK_EQ(m.epsilon_infinity().q32, expected_inf.q32);
  CHECK_EQ(m.memo_bits_per_report(), 2u);
  CHECK_EQ(m.random_bits_per_report(), 3u);
  double p_star, q_star;
  composed_channel(m.chain(), p_star, q_star);
  CHECK(p_star == 7.0 / 16 && q_star == 9.0 / 32);
  // The lifetime budget: ε∞ per distinct value, at most k of them.
  CHECK_EQ(m.lifetime_epsilon(2).q32, 2 * m.epsilon_infinity().q32);
  CHECK_EQ(m.lifetime_epsilon(100).q32, 3 * m.epsilon_infinity().q32);
}

TEST(rejects_bad_parameters_with_their_reason) {
  LongitudinalGrr m;
  CHECK_EQ(LongitudinalGrr::configure(eps_one, eps_inf, 6, m), Status::bad_epsilon);  // ε₁ > ε∞
  CHECK_EQ(LongitudinalGrr::configure(eps_inf, eps_inf, 6, m), Status::bad_epsilon);
  CHECK_EQ(LongitudinalGrr::configure(eps_inf, Epsilon{0}, 6, m), Status::bad_epsilon);
  CHECK_EQ(LongitudinalGrr::configure(eps_inf, eps_one, 1, m), Status::bad_parameter);
  CHECK_EQ(LongitudinalGrr::configure(eps_inf, eps_one, KaryRr::max_domain + 1, m), Status::bad_parameter);
  CHECK_EQ(LongitudinalGrr::configure(eps_inf, eps_one, 6, m, Precision{0, 1}), Status::bad_parameter);
  // Two bits cannot hold a second stage for k = 6 (q2 < 1/6 needs n·6 < 4).
  CHECK_EQ(LongitudinalGrr::configure(eps_inf, eps_one, 6, m, Precision{2, 1u << 11}),
           Status::precision_too_low);
  CHECK_EQ(LongitudinalGrr::configure_stages(Dyadic{1, 2}, Dyadic{0, 0}, 3, m), Status::bad_parameter);
  CHECK_EQ(LongitudinalGrr::configure_stages(Dyadic{1, 1}, Dyadic{1, 3}, 3, m), Status::precision_too_low);
}

TEST(the_memo_is_the_same_for_a_value_and_the_second_stage_is_fresh) {
  // Per device, the most frequent of many reports of one value is its memo (p2 > q2); it is
  // the stage-1 draw from the value's memo stream, whatever the fresh Rng.
  port::InsecureTestSource src(21);
  Rng rng(src);
  uint32_t memo_differs_from_value = 0, reports_differ = 0;
  for (uint64_t device = 1; device <= 40; ++device) {
    const TestMemoKey key{device};
    auto stream = key.memo_stream(l_grr.memo_attribute_word(), 4);
    TestMemoDraws memo_bits(stream);
    const uint32_t memo = l_grr.chain().memoize(4, memo_bits);
    uint32_t counts[6] = {};
    uint32_t first = 0;
    for (int i = 0; i < 400; ++i) {
      uint32_t y = 99;
      CHECK_EQ(l_grr.privatize(4, key, rng, y), Status::ok);
      CHECK(y < 6);
      ++counts[y < 6 ? y : 0];
      if (i == 0) first = y;
      reports_differ += y != first;
    }
    uint32_t mode = 0;
    for (uint32_t v = 1; v < 6; ++v)
      if (counts[v] > counts[mode]) mode = v;
    CHECK_EQ(mode, memo);
    memo_differs_from_value += memo != 4;
  }
  CHECK(reports_differ > 0);
  // P(memo ≠ value) = 5·q1 ≈ 0.40 at ε∞ = 2, k = 6: of 40 devices some memos lie.
  CHECK(memo_differs_from_value > 0);
  CHECK(memo_differs_from_value < 40);
  // Another generation of the key is another memo for some device.
  uint32_t changed = 0;
  for (uint64_t device = 1; device <= 20; ++device) {
    auto a = TestMemoKey{device, 0}.memo_stream(l_grr.memo_attribute_word(), 4);
    auto b = TestMemoKey{device, 1}.memo_stream(l_grr.memo_attribute_word(), 4);
    TestMemoDraws ma(a), mb(b);
    changed += l_grr.chain().memoize(4, ma) != l_grr.chain().memoize(4, mb);
  }
  CHECK(changed > 0);
}

TEST(out_of_domain_and_entropy_failure_emit_nothing) {
  const uint32_t out_of_domain[] = {6, 0xFFFFFFFFu};
  check_memoized_fail_closed(l_grr, 3, out_of_domain);
}

TEST(consumes_the_same_bits_for_every_value) {
  const TestMemoKey key{};
  for (uint32_t v = 0; v < 8; ++v) {  // 6 and 7 are out of the domain: the same bits all the same
    port::InsecureTestSource src(9);
    Rng rng(src);
    uint32_t report;
    (void)l_grr.privatize(v, key, rng, report);
    CHECK_EQ(rng.bits_drawn(), uint64_t{l_grr.random_bits_per_report()});
    auto stream = key.memo_stream(l_grr.memo_attribute_word(), v);
    CountedMemoDraws memo(stream);
    uint32_t y;
    (void)l_grr.privatize_with_memo(v, memo, rng, y);
    CHECK_EQ(memo.bits_drawn(), uint64_t{l_grr.memo_bits_per_report()});
  }
}

TEST(reports_follow_the_composed_channel) {
  // Over many devices (keys), a report of 2 is 2 with probability p* and 5 with q*.
  double p_star, q_star;
  composed_channel(l_grr.chain(), p_star, q_star);
  const auto [n, power] = powered_sample(q_star, 3000);
  port::InsecureTestSource src(11);
  Rng rng(src);
  uint64_t same = 0, five = 0;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t y;
    CHECK_EQ(l_grr.privatize(2, TestMemoKey{i + 1}, rng, y), Status::ok);
    same += y == 2;
    five += y == 5;
  }
  CHECK(within_six_sigma(same, n, p_star, power));
  CHECK(within_six_sigma(five, n, q_star, power));
}

TEST(the_estimator_is_unbiased_over_a_fleet) {
  // n devices, device i holding value i mod 3 for i < 0.6n (0: 20 %, 1: 20 %, 2: 20 %) and 5
  // otherwise (40 %); one report each. ĉ(v) = (C(v) − n q*)/(p* − q*) must lie within 6σ of
  // the true count, σ² = n·s(1 − s)/(p* − q*)² with s = q* + f(v)(p* − q*).
  double p_star, q_star;
  composed_channel(l_grr.chain(), p_star, q_star);
  const uint32_t n = fleet_size(60000);
  port::InsecureTestSource src(13);
  Rng rng(src);
  uint32_t counts[6] = {}, truth[6] = {};
  const uint32_t changing = n * 3 / 5;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t v = i < changing ? i % 3 : 5;
    ++truth[v];
    uint32_t y;
    CHECK_EQ(l_grr.privatize(v, TestMemoKey{i + 7}, rng, y), Status::ok);
    ++counts[y < 6 ? y : 0];
  }
  for (uint32_t v = 0; v < 6; ++v) {
    const double estimate = (counts[v] - n * q_star) / (p_star - q_star);
    const double f = static_cast<double>(truth[v]) / n;
    const double s = q_star + f * (p_star - q_star);
    const double sigma = sqrt_newton(n * s * (1 - s)) / (p_star - q_star);
    const double diff = estimate - truth[v];
    CHECK(diff <= 6 * sigma && -diff <= 6 * sigma);
  }
}

TEST(wire_codec_round_trips) {
  const auto d = l_grr.description();
  CHECK(d.id == wire::MechanismId::l_grr);
  CHECK_EQ(d.payload_bits, 3u);
  for (uint32_t v = 0; v < 6; ++v) {
    uint8_t payload[1] = {0};
    l_grr.pack(v, payload);
    CHECK_EQ(l_grr.unpack(payload), v);
  }
  // The digest changes with the attribute (its memos are others) and with the stages.
  LongitudinalGrr other;
  CHECK_EQ(LongitudinalGrr::configure(eps_inf, eps_one, 6, other, {}, 1), Status::ok);
  CHECK_NE(other.description().digest, d.digest);
  CHECK_EQ(LongitudinalGrr::configure(eps_inf, Epsilon::from_double(0.5), 6, other), Status::ok);
  CHECK_NE(other.description().digest, d.digest);
}

}  // namespace
}  // namespace tinyldp::test
