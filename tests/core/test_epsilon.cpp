// SPDX-License-Identifier: Apache-2.0
// ε as fixed point, the rigorous exp lower bound and the rounded-up logarithm.
#include "tinyldp/epsilon.hpp"

#include "check.hpp"

namespace tinyldp::test {
namespace {

// e^ε to 32 fraction bits, from the 128-fraction-bit bound.
uint64_t exp_q32(Epsilon e) { return exp_lower_bound(e).shr(96).low64(); }

TEST(exp_lower_bound_matches_known_values) {
  // ⌊e·2^32⌋ = 11674931554, ⌊e^10·2^32⌋ = 94602950235157 (computed with 80-digit decimals).
  CHECK_EQ(exp_q32(Epsilon::from_q32(uint64_t{1} << 32)), 11674931554ull);
  CHECK_EQ(exp_q32(Epsilon::from_q32(uint64_t{10} << 32)), 94602950235157ull);
  // ⌊e^0.5·2^63⌋ = 15206769664743235147 (63 fraction bits).
  CHECK_EQ(exp_lower_bound(Epsilon::from_q32(uint64_t{1} << 31)).shr(65).low64(),
           15206769664743235147ull);
  CHECK_EQ(exp_q32(Epsilon::from_q32(0)), uint64_t{1} << 32);
}

TEST(ln_upper_bound_rounds_up_to_the_grid) {
  Epsilon e;
  // ln 3 · 2^32 = 4718503850.8…, so the smallest grid point ≥ ln 3 is 4718503851.
  CHECK(ln_upper_bound(detail::Wide::from(3), detail::Wide::from(1), e));
  CHECK_EQ(e.q32, 4718503851ull);
  CHECK(ln_upper_bound(detail::Wide::from(1), detail::Wide::from(1), e));
  CHECK_EQ(e.q32, 0u);
  // Beyond e^20 the ratio is not representable: refused.
  CHECK(!ln_upper_bound(detail::Wide::power_of_two(40), detail::Wide::from(1), e));
}

TEST(epsilon_constructors_round_down) {
  CHECK_EQ(Epsilon::from_ratio(1, 3).q32, 1431655765ull);  // ⌊2^32/3⌋
  CHECK_EQ(Epsilon::from_ratio(5, 2).q32, uint64_t{5} << 31);
  constexpr Epsilon half = Epsilon::from_double(0.5);
  static_assert(half.q32 == uint64_t{1} << 31);
  CHECK(is_valid_epsilon(half));
  CHECK(!is_valid_epsilon(Epsilon::from_q32(0)));
  CHECK(!is_valid_epsilon(Epsilon::from_q32((uint64_t{20} << 32) + 1)));
}

// The bound is usable at compile time.
static_assert(exp_lower_bound(Epsilon::from_q32(uint64_t{1} << 32)).shr(96).low64() ==
              11674931554ull);

}  // namespace
}  // namespace tinyldp::test
