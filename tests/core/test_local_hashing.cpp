// SPDX-License-Identifier: Apache-2.0
// Local hashing (OLH, BLH): configuration, errors, failure behaviour, golden reports.
#include "check.hpp"
#include "mechanism_checks.hpp"
#include "tinyldp/local_hashing.hpp"

namespace tinyldp::test {
namespace {

TEST(olh_picks_g_from_epsilon) {
  constexpr LocalHashing olh1 = LocalHashing::make_olh(Epsilon::from_double(1.0), 1000);
  static_assert(olh1.range() == 4);  // round(e) + 1
  constexpr LocalHashing olh2 = LocalHashing::make_olh(Epsilon::from_double(2.0), 1000);
  static_assert(olh2.range() == 8);  // round(7.39) + 1
  constexpr LocalHashing blh = LocalHashing::make_blh(Epsilon::from_double(2.0), 1000);
  static_assert(blh.range() == 2);
  static_assert(olh1.realized_epsilon() <= Epsilon::from_double(1.0));
  CHECK_EQ(olh1.random_bits_per_report(), 32u + olh1.randomizer().random_bits_per_report());
}

TEST(realized_epsilon_is_at_most_the_request_and_close) {
  // The k-RR over [g] at default precision: at most 2^-21 (the tolerance) below ε, never above.
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 100), Epsilon::from_ratio(1, 10), Epsilon::from_ratio(1, 1),
                              Epsilon::from_ratio(5, 1), Epsilon::from_ratio(10, 1)};
  for (Epsilon eps : epsilons) {
    for (int blh = 0; blh < 2; ++blh) {
      LocalHashing lh;
      CHECK_EQ(blh ? LocalHashing::configure_blh(eps, 1000, lh) : LocalHashing::configure_olh(eps, 1000, lh),
               Status::ok);
      CHECK(lh.realized_epsilon() <= eps);
      CHECK_GE(lh.realized_epsilon().q32 + (uint64_t{1} << 11), eps.q32);
    }
  }
  LocalHashing olh10;
  CHECK_EQ(LocalHashing::configure_olh(Epsilon::from_ratio(10, 1), 1000, olh10), Status::ok);
  CHECK_EQ(olh10.range(), 22027u);  // round(e^10 = 22026.47) + 1
}

TEST(hash_collisions_are_close_to_one_over_g) {
  // The estimator's assumption, for a few pairs of items over 8192 seeds: Pr[H(s,a) = H(s,b)]
  // within 6σ of 1/g (g = 4: σ = √(8192·3/16) ≈ 39).
  const uint32_t pairs[][2] = {{0, 1}, {1, 2}, {7, 1000}, {123456, 123457}};
  for (const auto& p : pairs) {
    uint32_t same = 0;
    for (uint32_t s = 0; s < 8192; ++s) same += local_hash(s, p[0], 4) == local_hash(s, p[1], 4);
    CHECK_GT(same, 2048u - 235u);
    CHECK_LT(same, 2048u + 235u);
  }
}

TEST(randomizes_exactly_like_the_k_rr_it_reuses) {
  // The k-RR step (KaryRr::randomize): same draws, same reports as KaryRr::privatize. for
  // BLH (g = 2) and OLH from g = 2 to g = 22027, with the report seed included.
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 100), Epsilon::from_ratio(1, 1), Epsilon::from_ratio(3, 1),
                              Epsilon::from_ratio(8, 1), Epsilon::from_ratio(10, 1)};
  for (Epsilon eps : epsilons) {
    for (int blh = 0; blh < 2; ++blh) {
      LocalHashing lh;
      CHECK_EQ(blh ? LocalHashing::configure_blh(eps, 100, lh) : LocalHashing::configure_olh(eps, 100, lh), Status::ok);
      port::InsecureTestSource a(11), b(11);
      Rng ra(a), rb(b);
      for (uint32_t i = 0; i < 400; ++i) {
        LocalHashingReport r;
        CHECK(lh.privatize(i % 100, ra, r) == Status::ok);
        const uint32_t seed = static_cast<uint32_t>(rb.draw(32));
        uint32_t y = 9;
        CHECK(lh.randomizer().privatize(local_hash(seed, i % 100, lh.range()), rb, y) == Status::ok);
        CHECK_EQ(r.seed, seed);
        CHECK_EQ(r.value, y);
      }
      CHECK_EQ(ra.bits_drawn(), rb.bits_drawn());
    }
  }
}

TEST(rejects_bad_parameters) {
  LocalHashing lh;
  CHECK(LocalHashing::configure_olh(Epsilon::from_ratio(1, 1), 1, lh) == Status::bad_parameter);
  CHECK(LocalHashing::configure(Epsilon::from_ratio(1, 1), 10, 1, lh) == Status::bad_parameter);
  CHECK(LocalHashing::configure_blh(Epsilon::from_ratio(1, 1), 10, lh, {}, 33) == Status::bad_parameter);
  CHECK(LocalHashing::configure_olh(Epsilon::from_q32(0), 10, lh) == Status::bad_epsilon);
}

TEST(hash_is_close_to_uniform) {
  // 4096 seeds × value 7 into g = 4: each bucket within 6σ of 1024.
  uint32_t hits[4] = {};
  for (uint32_t s = 0; s < 4096; ++s) ++hits[local_hash(s * 2654435761u, 7, 4)];
  for (uint32_t h : hits) {
    CHECK_GT(h, 1024u - 166u);
    CHECK_LT(h, 1024u + 166u);
  }
}

TEST(out_of_domain_and_entropy_failure_emit_nothing) {
  check_fail_closed(LocalHashing::make_olh(Epsilon::from_double(1.0), 50), 3, 50);
}

TEST(consumes_the_same_bits_for_every_input) {
  const uint32_t values[] = {0, 13, 26, 39};
  check_same_bits(LocalHashing::make_olh(Epsilon::from_double(3.0), 40), values, 4, 50);
}

TEST(golden_reports_are_identical_everywhere) {
  constexpr LocalHashing olh = LocalHashing::make_olh(Epsilon::from_double(2.0), 300);
  CHECK_EQ(golden_digest(olh, 500, [](uint32_t i) { return i % 300; },
                                        [&](const LocalHashingReport& r) { return r.value < olh.range(); }),
           18375293399012219375ull);
}

}  // namespace
}  // namespace tinyldp::test
