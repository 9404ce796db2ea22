// SPDX-License-Identifier: Apache-2.0
// Binary randomized response: configuration, errors, failure behaviour, golden reports.
#include "check.hpp"
#include "mechanism_checks.hpp"
#include "tinyldp/rr.hpp"

namespace tinyldp::test {
namespace {

TEST(configures_at_compile_time) {
  // ε = ln 3 rounded up to the 2^-32 grid: p = 3/4 is safe, within the tolerance, and the
  // value with the fewest bits — 2 random bits per report.
  constexpr Epsilon ln3_up = Epsilon::from_q32(4718503851ull);
  constexpr BinaryRr rr = BinaryRr::make(ln3_up);
  static_assert(rr.keep_probability() == Dyadic{3, 2});
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
  CHECK(BinaryRr::configure(Epsilon::from_ratio(1, 1), rr, Precision{0, 0}) ==
        Status::bad_parameter);
  CHECK(BinaryRr::from_keep_probability(Dyadic{1, 2}, rr) == Status::bad_parameter);
  CHECK(BinaryRr::from_keep_probability(Dyadic{1, 0}, rr) == Status::precision_too_low);
}

TEST(out_of_domain_and_entropy_failure_emit_nothing) {
  check_fail_closed(BinaryRr::make(Epsilon::from_double(2.0)), 1, 2);
}

TEST(consumes_the_same_bits_for_every_input) {
  const uint32_t bits[] = {0, 1};
  check_same_bits(BinaryRr::make(Epsilon::from_double(0.5)), bits, 9, 100);
}

TEST(golden_reports_are_identical_everywhere) {
  constexpr BinaryRr rr = BinaryRr::make(Epsilon::from_double(1.0));
  CHECK_EQ(golden_digest(rr, 1000, [](uint32_t i) { return i & 1u; }),
           13227693314144977487ull);
}

}  // namespace
}  // namespace tinyldp::test
