// k-ary randomized response: configuration, errors, failure behaviour, golden reports.
#include "check.hpp"
#include "digest.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

using tinyldp::Epsilon;
using tinyldp::KaryRr;
using tinyldp::Status;
using tinyldp::port::InsecureTestSource;
using Rng = tinyldp::RandomBits<InsecureTestSource>;

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
  CHECK(KaryRr::configure(Epsilon::from_ratio(1, 10), 8, krr, tinyldp::Precision{3, 0}) ==
        Status::precision_too_low);
  CHECK(KaryRr::from_other_probability(4, tinyldp::Dyadic{1, 2}, krr) == Status::precision_too_low);
}

TEST(out_of_domain_and_entropy_failure_emit_nothing) {
  constexpr KaryRr krr = KaryRr::make(Epsilon::from_double(1.0), 5);
  InsecureTestSource src(3);
  Rng rng(src);
  uint32_t report = 77;
  CHECK(krr.privatize(5, rng, report) == Status::value_out_of_domain);
  CHECK_EQ(report, 0u);
  src.fail_on_call(1, tinyldp::EntropyResult::not_ready);
  Rng failing(src);
  report = 77;
  CHECK(krr.privatize(2, failing, report) == Status::entropy_not_ready);
  CHECK_EQ(report, 0u);
}

TEST(reports_stay_in_the_domain_and_use_fixed_bits) {
  constexpr KaryRr krr = KaryRr::make(Epsilon::from_double(0.5), 7);
  for (uint32_t v = 0; v < 7; ++v) {
    InsecureTestSource src(11);
    Rng rng(src);
    for (int i = 0; i < 200; ++i) {
      uint32_t report = 99;
      CHECK(krr.privatize(v, rng, report) == Status::ok);
      CHECK_LT(report, 7u);
    }
    CHECK_EQ(rng.bits_drawn(), 200u * krr.random_bits_per_report());
  }
}

namespace {
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
}  // namespace

TEST(division_free_index_matches_plain_division) {
  // Every draw of 12-bit configurations, k from 2 to 1000 (m chosen so the keep part exceeds m).
  const uint32_t domains[] = {2, 3, 5, 7, 37, 1000};
  for (uint32_t k : domains) {
    const uint64_t m = (uint64_t{1} << 12) / (2 * k) | 1u;
    KaryRr krr;
    CHECK(KaryRr::from_other_probability(k, tinyldp::make_dyadic(m, 12), krr) == Status::ok);
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
      InsecureTestSource src(5);
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
  InsecureTestSource src(2024);
  Rng rng(src);
  tinyldp::test::Digest digest;
  for (uint32_t i = 0; i < 1000; ++i) {
    uint32_t report = 0;
    CHECK(krr.privatize(i % 13, rng, report) == Status::ok);
    digest.add_u32(report);
  }
  CHECK_EQ(digest.state, 7220340373572403683ull);
}
