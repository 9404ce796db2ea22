// SPDX-License-Identifier: Apache-2.0
// dBitFlip (dbitflip.hpp): configuration and its exact ε∞ / ε₁ (c = min(d, 2) bits change),
// the device's sample (distinct, ascending, each bucket with probability d/k), the memo per
// slot (values outside the sample share one), fail-closed ends, the same bits for every value,
// the wire codec, and each bucket's support rate over a fleet against (d/k)(q* + f(p* − q*)).
#include "bytes_equal.hpp"
#include "check.hpp"
#include "frequency_check.hpp"
#include "mechanism_checks.hpp"
#include "memoized_checks.hpp"
#include "tinyldp/dbitflip.hpp"

namespace tinyldp::test {
namespace {

constexpr Epsilon eps_inf = Epsilon::from_double(2.0), eps_one = Epsilon::from_double(1.0);
// Counters 0 … 100 in steps of 10: k = 11 buckets, d = 3 sampled.
constexpr DBitFlip histogram = DBitFlip::make(eps_inf, eps_one, DBitFlip::Layout{100, 10, 3, 0});

DBitFlip::DeviceDraw device_draw(const DBitFlip& m, const TestMemoKey& key) {
  auto stream = key.memo_stream(m.memo_attribute_word(), detail::device_draw_value);
  TestMemoDraws draws(stream);
  return m.device_draw(draws);
}

bool same_report(const DBitFlipReport& a, const DBitFlipReport& b, uint32_t d) {
  for (uint32_t t = 0; t < d; ++t)
    if (a.bucket[t] != b.bucket[t]) return false;
  return a.bits == b.bits;
}

TEST(each_bit_is_the_chain_at_half_the_budget_and_two_bits_change) {
  static_assert(histogram.buckets() == 11 && histogram.sampled() == 3);
  // The chain at ε∞/2, ε₁/2; the mechanism's ε twice the chain's, exactly.
  check_chain_meets(histogram.chain(), 2, Epsilon::from_q32(eps_inf.q32 / 2),
                                   Epsilon::from_q32(eps_one.q32 / 2));
  CHECK_EQ(histogram.epsilon_infinity().q32, 2 * histogram.chain().epsilon_infinity().q32);
  CHECK_EQ(histogram.epsilon_one().q32, 2 * histogram.chain().epsilon_one().q32);
  CHECK(histogram.epsilon_infinity() <= eps_inf);
  CHECK(histogram.epsilon_one() <= eps_one);
  // q1 = 1/4, γ = 1/8: p* = 22/32, q* = 10/32, so ε₁ = 2 ln 2.2 and ε∞ = 2 ln 3 (d ≥ 2) —
  // and with d = 1 a change of value moves one bit: ln 2.2 and ln 3.
  using W = detail::Wide;
  Epsilon one, inf;
  CHECK(ln_upper_bound(W::from(22), W::from(10), one));
  CHECK(ln_upper_bound(W::from(3), W::from(1), inf));
  DBitFlip m;
  CHECK_EQ(DBitFlip::configure_stages(Dyadic{1, 2}, Dyadic{1, 3}, DBitFlip::Layout{8, 2, 2, 0}, m), Status::ok);
  CHECK_EQ(m.epsilon_one().q32, 2 * one.q32);
  CHECK_EQ(m.epsilon_infinity().q32, 2 * inf.q32);
  CHECK(m.flip_probability() == (Dyadic{1, 3}));
  CHECK_EQ(DBitFlip::configure_stages(Dyadic{1, 2}, Dyadic{1, 3}, DBitFlip::Layout{8, 2, 1, 0}, m), Status::ok);
  CHECK_EQ(m.epsilon_one().q32, one.q32);
  CHECK_EQ(m.epsilon_infinity().q32, inf.q32);
  // At most d + 1 memos: the slots.
  CHECK_EQ(histogram.lifetime_epsilon(2).q32, 2 * histogram.epsilon_infinity().q32);
  CHECK_EQ(histogram.lifetime_epsilon(50).q32, 4 * histogram.epsilon_infinity().q32);
  CHECK_EQ(histogram.memo_bits_per_report(), 3u * histogram.chain().memo_bits());
  CHECK_EQ(histogram.random_bits_per_report(), 3u * histogram.chain().fresh_bits());
}

TEST(rejects_bad_parameters) {
  DBitFlip m;
  CHECK_EQ(DBitFlip::configure(eps_inf, eps_one, DBitFlip::Layout{0, 1, 1, 0}, m), Status::bad_parameter);
  CHECK_EQ(DBitFlip::configure(eps_inf, eps_one, DBitFlip::Layout{100, 7, 1, 0}, m), Status::bad_parameter);
  CHECK_EQ(DBitFlip::configure(eps_inf, eps_one, DBitFlip::Layout{100, 10, 0, 0}, m), Status::bad_parameter);
  CHECK_EQ(DBitFlip::configure(eps_inf, eps_one, DBitFlip::Layout{100, 10, 12, 0}, m), Status::bad_parameter);
  CHECK_EQ(DBitFlip::configure(eps_inf, eps_one, DBitFlip::Layout{200, 1, 17, 0}, m), Status::bad_parameter);
  CHECK_EQ(DBitFlip::configure(eps_inf, eps_one, DBitFlip::Layout{uint32_t{1} << 16, 1, 2, 0}, m),
           Status::bad_parameter);  // k = 2^16 + 1 buckets
  CHECK_EQ(DBitFlip::configure(eps_inf, eps_one, DBitFlip::Layout{100, 10, 2, uint32_t{1} << 24}, m),
           Status::bad_parameter);
  CHECK_EQ(DBitFlip::configure(eps_one, eps_inf, DBitFlip::Layout{100, 10, 2, 0}, m), Status::bad_epsilon);
}

TEST(the_sample_is_d_distinct_buckets_each_with_probability_d_over_k) {
  uint32_t included[11] = {};
#ifdef TINYLDP_TEST_ON_TARGET
  const uint32_t devices = 3000;
#else
  const uint32_t devices = 60000;
#endif
  for (uint32_t device = 0; device < devices; ++device) {
    const DBitFlip::DeviceDraw d = device_draw(histogram, TestMemoKey{device + 1});
    CHECK(d.alpha < 10);
    for (uint32_t t = 0; t < 3; ++t) {
      CHECK(d.bucket[t] < 11);
      if (t > 0) CHECK(d.bucket[t] > d.bucket[t - 1]);
      ++included[d.bucket[t] < 11 ? d.bucket[t] : 0];
    }
  }
  for (uint32_t v = 0; v < 11; ++v) CHECK(within_six_sigma(included[v], devices, 3.0 / 11, false));
}

TEST(reports_carry_the_sample_and_values_outside_it_share_one_memo) {
  port::InsecureTestSource src(3);
  Rng rng(src);
  uint32_t checked = 0;
  for (uint64_t device = 1; device <= 30; ++device) {
    const TestMemoKey key{device};
    const DBitFlip::DeviceDraw d = device_draw(histogram, key);
    // Two grid values (multiples of 10, so α does not move them) outside the sample: the same
    // slot d, so the same memo — with the same fresh bits, the same report.
    uint32_t outside[2], n = 0;
    for (uint32_t j = 0; j < 11 && n < 2; ++j)
      if (histogram.slot(j, d) == 3) outside[n++] = j;
    CHECK_EQ(n, 2u);
    DBitFlipReport a, b;
    port::InsecureTestSource fa(100 + device), fb(100 + device);
    Rng ra(fa), rb(fb);
    CHECK_EQ(histogram.privatize(10 * outside[0], key, ra, a), Status::ok);
    CHECK_EQ(histogram.privatize(10 * outside[1], key, rb, b), Status::ok);
    CHECK(same_report(a, b, 3));
    for (uint32_t t = 0; t < 3; ++t) CHECK_EQ(a.bucket[t], d.bucket[t]);
    // Every value's report carries the same sample.
    for (uint32_t x = 0; x <= 100; x += 7) {
      DBitFlipReport r;
      CHECK_EQ(histogram.privatize(x, key, rng, r), Status::ok);
      for (uint32_t t = 0; t < 3; ++t) CHECK_EQ(r.bucket[t], d.bucket[t]);
      CHECK(r.bits < 8);
    }
    ++checked;
  }
  CHECK_EQ(checked, 30u);
}

TEST(out_of_range_and_entropy_failure_emit_nothing) {
  const TestMemoKey key{};
  port::InsecureTestSource src(5);
  Rng rng(src);
  DBitFlipReport r;
  r.bits = 0xAA;
  r.bucket[0] = 7;
  CHECK_EQ(histogram.privatize(101, key, rng, r), Status::value_out_of_domain);
  CHECK(same_report(r, DBitFlipReport{}, DBitFlip::max_sampled));
  port::InsecureTestSource failing(6);
  failing.fail_on_call(1);
  Rng broken(failing);
  r.bits = 0xAA;
  CHECK_EQ(histogram.privatize(30, key, broken, r), Status::entropy_failed);
  CHECK(same_report(r, DBitFlipReport{}, DBitFlip::max_sampled));
}

TEST(consumes_the_same_bits_for_every_value) {
  const TestMemoKey key{};
  const DBitFlip::DeviceDraw d = device_draw(histogram, key);
  for (uint32_t x = 0; x <= 102; x += 3) {  // 102 is out of range: the same bits all the same
    port::InsecureTestSource src(9);
    Rng rng(src);
    DBitFlipReport r;
    (void)histogram.privatize(x, key, rng, r);
    CHECK_EQ(rng.bits_drawn(), uint64_t{histogram.random_bits_per_report()});
    const uint32_t j = histogram.rounding().index(histogram.rounding().clamped(x), d.alpha);
    auto stream = key.memo_stream(histogram.memo_attribute_word(), histogram.slot(j, d));
    CountedMemoDraws memo(stream);
    (void)histogram.privatize_with_memo(x, d, memo, rng, r);
    CHECK_EQ(memo.bits_drawn(), uint64_t{histogram.memo_bits_per_report()});
  }
}

TEST(the_payload_round_trips_and_malformed_samples_are_recognised) {
  static_assert(histogram.description().id == wire::MechanismId::dbitflip);
  CHECK_EQ(histogram.description().payload_bits, 3u * (4u + 1u));
  DBitFlipReport r;
  r.bucket[0] = 1;
  r.bucket[1] = 6;
  r.bucket[2] = 10;
  r.bits = 5;
  uint8_t payload[2] = {};
  histogram.pack(r, payload);
  const DBitFlipReport back = histogram.unpack(payload);
  CHECK(same_report(back, r, 3));
  CHECK(histogram.well_formed(back));
  DBitFlipReport bad = r;
  bad.bucket[1] = 1;  // not ascending
  CHECK(!histogram.well_formed(bad));
  bad = r;
  bad.bucket[2] = 11;  // not a bucket
  CHECK(!histogram.well_formed(bad));
  // Another layout, another digest.
  constexpr DBitFlip other = DBitFlip::make(eps_inf, eps_one, DBitFlip::Layout{100, 10, 2, 0});
  CHECK(other.description().digest != histogram.description().digest);
}

TEST(bucket_supports_follow_the_channel_over_a_fleet) {
  // Devices hold 0, 30 or 100 (grid points: the rounding leaves them) with frequencies 1/2,
  // 1/4, 1/4; the support of bucket v over reports is Bernoulli((d/k)(q* + f(v)(p* − q*))).
#ifdef TINYLDP_TEST_ON_TARGET
  const uint32_t n = 6000;
  const bool power = false;
#else
  const uint32_t n = 400000;
  const bool power = false;
#endif
  double p_star = 0, q_star = 0;
  composed_channel(histogram.chain(), p_star, q_star);
  port::InsecureTestSource src(17);
  Rng rng(src);
  uint64_t support[11] = {};
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t x = i % 4 < 2 ? 0 : i % 4 == 2 ? 30 : 100;
    DBitFlipReport r;
    CHECK_EQ(histogram.privatize(x, TestMemoKey{i + 1}, rng, r), Status::ok);
    for (uint32_t t = 0; t < 3; ++t) support[r.bucket[t] < 11 ? r.bucket[t] : 0] += (uint32_t{r.bits} >> t) & 1u;
  }
  const double f[11] = {0.5, 0, 0, 0.25, 0, 0, 0, 0, 0, 0, 0.25};
  for (uint32_t v = 0; v < 11; ++v)
    CHECK(within_six_sigma(support[v], n, 3.0 / 11 * (q_star + f[v] * (p_star - q_star)), power));
}

}  // namespace
}  // namespace tinyldp::test
