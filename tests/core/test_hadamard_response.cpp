// SPDX-License-Identifier: Apache-2.0
// Hadamard response: configuration, the Hadamard bit, failure behaviour, golden reports.
#include "check.hpp"
#include "mechanism_checks.hpp"
#include "tinyldp/hadamard_response.hpp"

namespace tinyldp::test {
namespace {

TEST(rows_span_the_next_power_of_two) {
  static_assert(HadamardResponse::make(Epsilon::from_double(1.0), 2).row_bits() == 1);
  static_assert(HadamardResponse::make(Epsilon::from_double(1.0), 1000).row_bits() == 10);
  static_assert(HadamardResponse::make(Epsilon::from_double(1.0), 1024).row_bits() == 10);
  static_assert(HadamardResponse::make(Epsilon::from_double(1.0), 1025).row_bits() == 11);
  HadamardResponse hr;
  CHECK(HadamardResponse::configure(Epsilon::from_ratio(1, 1), 1, hr) == Status::bad_parameter);
}

TEST(run_time_configuration_matches_compile_time_and_is_close) {
  constexpr HadamardResponse made = HadamardResponse::make(Epsilon::from_double(1.0), 300);
  HadamardResponse hr;
  CHECK_EQ(HadamardResponse::configure(Epsilon::from_double(1.0), 300, hr), Status::ok);
  CHECK(hr.randomizer().keep_probability() == made.randomizer().keep_probability());
  CHECK_EQ(hr.realized_epsilon().q32, made.realized_epsilon().q32);
  // The binary RR at default precision: never above ε, at most 2^-21 below.
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 100), Epsilon::from_ratio(1, 10), Epsilon::from_ratio(1, 1),
                              Epsilon::from_ratio(5, 1), Epsilon::from_ratio(10, 1)};
  for (Epsilon eps : epsilons) {
    CHECK_EQ(HadamardResponse::configure(eps, 1000, hr), Status::ok);
    CHECK(hr.realized_epsilon() <= eps);
    CHECK_GE(hr.realized_epsilon().q32 + (uint64_t{1} << 11), eps.q32);
    CHECK_EQ(hr.random_bits_per_report(), 10u + hr.randomizer().random_bits_per_report());
  }
  CHECK(HadamardResponse::configure(Epsilon::from_q32(0), 10, hr) == Status::bad_epsilon);
  CHECK(HadamardResponse::configure(Epsilon::from_ratio(1, 1), (1u << 30) + 1, hr) == Status::bad_parameter);
}

TEST(hadamard_columns_are_orthogonal) {
  // Over all 16 rows, two distinct columns agree on exactly half of them.
  for (uint32_t a = 0; a < 16; ++a) {
    for (uint32_t b = 0; b < 16; ++b) {
      uint32_t agree = 0;
      for (uint32_t j = 0; j < 16; ++j) agree += hadamard_bit(j, a) == hadamard_bit(j, b);
      CHECK_EQ(agree, a == b ? 16u : 8u);
    }
  }
}

TEST(out_of_domain_and_entropy_failure_emit_nothing) {
  check_fail_closed(HadamardResponse::make(Epsilon::from_double(1.0), 12), 3, 12);
}

TEST(consumes_the_same_bits_for_every_input) {
  const uint32_t values[] = {0, 33, 66, 99};
  check_same_bits(HadamardResponse::make(Epsilon::from_double(0.5), 100), values, 4, 50);
}

TEST(golden_reports_are_identical_everywhere) {
  constexpr HadamardResponse hr = HadamardResponse::make(Epsilon::from_double(1.0), 300);
  CHECK_EQ(golden_digest(hr, 500, [](uint32_t i) { return i % 300; },
                                        [](const HadamardReport& r) { return r.row < 512; }),
           7142349306955905779ull);
}

}  // namespace
}  // namespace tinyldp::test
