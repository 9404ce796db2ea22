// Binary randomized response: configuration, errors, failure behaviour, golden reports.
#include "check.hpp"
#include "digest.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/rr.hpp"

using tinyldp::BinaryRr;
using tinyldp::Epsilon;
using tinyldp::Status;
using tinyldp::port::InsecureTestSource;
using Rng = tinyldp::RandomBits<InsecureTestSource>;

TEST(configures_at_compile_time) {
  // ε = ln 3 rounded up to the 2^-32 grid: p = 3/4 is safe, within the tolerance, and the
  // value with the fewest bits — 2 random bits per report.
  constexpr Epsilon ln3_up = Epsilon::from_q32(4718503851ull);
  constexpr BinaryRr rr = BinaryRr::make(ln3_up);
  static_assert(rr.keep_probability() == tinyldp::Dyadic{3, 2});
  static_assert(rr.realized_epsilon() == ln3_up);
  // ε = ln 3 rounded down: 3/4 would exceed it, so p falls just below 3/4.
  constexpr BinaryRr below = BinaryRr::make(Epsilon::from_q32(4718503850ull));
  static_assert(below.keep_probability().bits > 2);
  static_assert(below.realized_epsilon() <= Epsilon::from_q32(4718503850ull));
  CHECK_EQ(rr.random_bits_per_report(), 2u);
}

TEST(rejects_bad_epsilon_and_probability) {
  BinaryRr rr;
  CHECK(BinaryRr::configure(Epsilon::from_q32(0), rr) == Status::bad_epsilon);
  CHECK(BinaryRr::configure(Epsilon::from_ratio(21, 1), rr) == Status::bad_epsilon);
  CHECK(BinaryRr::configure(Epsilon::from_ratio(1, 1), rr, tinyldp::Precision{0, 0}) ==
        Status::bad_parameter);
  CHECK(BinaryRr::from_keep_probability(tinyldp::Dyadic{1, 2}, rr) == Status::bad_parameter);
  CHECK(BinaryRr::from_keep_probability(tinyldp::Dyadic{1, 0}, rr) == Status::precision_too_low);
}

TEST(out_of_domain_and_entropy_failure_emit_nothing) {
  constexpr BinaryRr rr = BinaryRr::make(Epsilon::from_double(2.0));
  InsecureTestSource src(3);
  Rng rng(src);
  uint8_t report = 0xAA;
  CHECK(rr.privatize(2, rng, report) == Status::value_out_of_domain);
  CHECK_EQ(report, 0u);
  src.fail_on_call(1);
  Rng failing(src);
  report = 0xAA;
  CHECK(rr.privatize(1, failing, report) == Status::entropy_failed);
  CHECK_EQ(report, 0u);
}

TEST(consumes_the_same_bits_for_every_input) {
  constexpr BinaryRr rr = BinaryRr::make(Epsilon::from_double(0.5));
  for (uint32_t bit = 0; bit < 2; ++bit) {
    InsecureTestSource src(9);
    Rng rng(src);
    uint8_t report;
    for (int i = 0; i < 100; ++i) CHECK(rr.privatize(bit, rng, report) == Status::ok);
    CHECK_EQ(rng.bits_drawn(), 100u * rr.random_bits_per_report());
  }
}

TEST(golden_reports_are_identical_everywhere) {
  constexpr BinaryRr rr = BinaryRr::make(Epsilon::from_double(1.0));
  InsecureTestSource src(2024);
  Rng rng(src);
  tinyldp::test::Digest digest;
  for (uint32_t i = 0; i < 1000; ++i) {
    uint8_t report = 0;
    CHECK(rr.privatize(i & 1u, rng, report) == Status::ok);
    digest.add(&report, 1);
  }
  CHECK_EQ(digest.state, 13227693314144977487ull);
}
