// SPDX-License-Identifier: Apache-2.0
// k-ary randomized response: configuration, errors, failure behaviour, golden reports.
#include "check.hpp"
#include "mechanism_checks.hpp"
#include "tinyldp/krr.hpp"

namespace tinyldp::test {
namespace {

TEST(configures_at_compile_time) {
  constexpr KaryRr krr = KaryRr::make(Epsilon::from_double(1.0), 10);
  static_assert(krr.domain() == 10);
  static_assert(krr.realized_epsilon() <= Epsilon::from_double(1.0));
  // p = 1 − 9q > q, and both are what the sampler uses.
  CHECK_GT(krr.keep_numerator(), krr.other_probability().num);
}

TEST(rejects_bad_parameters) {
  KaryRr krr;
  CHECK(KaryRr::configure(Epsilon::from_ratio(1, 1), 1, krr) == Status::bad_parameter);
  CHECK(KaryRr::configure(Epsilon::from_ratio(1, 1), KaryRr::max_domain + 1, krr) ==
        Status::bad_parameter);
  CHECK(KaryRr::configure(Epsilon::from_q32(0), 4, krr) == Status::bad_epsilon);
  // 3 bits cannot hold 8 values with p > q.
  CHECK(KaryRr::configure(Epsilon::from_ratio(1, 10), 8, krr, Precision{3, 0}) ==
        Status::precision_too_low);
  CHECK(KaryRr::from_other_probability(4, Dyadic{1, 2}, krr) == Status::precision_too_low);
}

TEST(out_of_domain_and_entropy_failure_emit_nothing) {
  check_fail_closed(KaryRr::make(Epsilon::from_double(1.0), 5), 2, 5,
                                   EntropyResult::not_ready);
}

TEST(reports_stay_in_the_domain_and_use_fixed_bits) {
  const uint32_t values[] = {0, 1, 2, 3, 4, 5, 6};
  check_same_bits(KaryRr::make(Epsilon::from_double(0.5), 7), values, 11, 200,
                                 [](uint32_t report) { return report < 7; });
}

// Hands the mechanism one chosen draw, to check its index arithmetic against plain division.
struct FixedDraw {
  uint64_t u = 0;
  uint64_t draw(unsigned) { return u; }
  bool ok() const { return true; }
  Status status() const { return Status::ok; }
};

uint32_t reference_report(const KaryRr& krr, uint32_t value, uint64_t u) {
  const uint64_t t = krr.keep_numerator();
  if (u < t) return value;
  return static_cast<uint32_t>((value + 1 + (u - t) / krr.other_probability().num) % krr.domain());
}

TEST(division_free_index_matches_plain_division) {
  // Every draw of 12-bit configurations, k from 2 to 1000 (m chosen so the keep part exceeds m).
  const uint32_t domains[] = {2, 3, 5, 7, 37, 1000};
  for (uint32_t k : domains) {
    const uint64_t m = (uint64_t{1} << 12) / (2 * k) | 1u;
    KaryRr krr;
    CHECK(KaryRr::from_other_probability(k, make_dyadic(m, 12), krr) == Status::ok);
    uint32_t mismatches = 0;
    for (uint64_t u = 0; u < 4096; ++u) {
      FixedDraw rng{u};
      const uint32_t value = static_cast<uint32_t>(u % k);
      uint32_t report = 0;
      CHECK(krr.privatize(value, rng, report) == Status::ok);
      mismatches += report != reference_report(krr, value, u);
    }
    CHECK_EQ(mismatches, 0u);
  }
  // Full-precision configurations up to k = 2^20, with draws spread over the whole range.
  const uint32_t big_domains[] = {2, 100, 65537, uint32_t{1} << 20};
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 100), Epsilon::from_ratio(1, 1), Epsilon::from_ratio(10, 1)};
  for (uint32_t k : big_domains) {
    for (Epsilon eps : epsilons) {
      KaryRr krr;
      CHECK(KaryRr::configure(eps, k, krr) == Status::ok);
      const unsigned bits = krr.other_probability().bits;
      port::InsecureTestSource src(5);
      Rng draws(src);
      uint32_t mismatches = 0;
      for (int i = 0; i < 2000; ++i) {
        FixedDraw rng{draws.draw(bits)};
        const uint32_t value = static_cast<uint32_t>(i) % k;
        uint32_t report = 0;
        CHECK(krr.privatize(value, rng, report) == Status::ok);
        mismatches += report != reference_report(krr, value, rng.u);
      }
      CHECK_EQ(mismatches, 0u);
    }
  }
}

TEST(golden_reports_are_identical_everywhere) {
  constexpr KaryRr krr = KaryRr::make(Epsilon::from_double(2.0), 13);
  CHECK_EQ(golden_digest(krr, 1000, [](uint32_t i) { return i % 13; }),
           7220340373572403683ull);
}

}  // namespace
}  // namespace tinyldp::test
