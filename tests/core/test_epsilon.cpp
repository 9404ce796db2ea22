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

// Ratios of the shapes mechanisms ask about: near 1, small integers, wide products, near e^20
// and beyond it; a deterministic spread of the rest.
// The compiler's search (narrowed by the estimate) against the device's (the whole grid).
TEST(ln_upper_bound_with_the_estimate_equals_the_whole_bisection) {
  using detail::Wide;
  const Wide big = Wide::power_of_two(200) + Wide::from(12345);
  struct Pair {
    Wide a, b;
  } pairs[40] = {{Wide::from(3), Wide::from(1)},
                 {Wide::from(2), Wide::from(1)},
                 {Wide::from(1000001), Wide::from(1000000)},
                 {big + Wide::from(1), big},
                 {Wide::from(485165195), Wide::from(1)},  // ⌊e^20⌋: just inside
                 {Wide::from(485165196), Wide::from(1)},  // just beyond e^20
                 {Wide::power_of_two(29), Wide::from(1)},
                 {Wide::from(7), Wide::from(3)},
                 {Wide::power_of_two(130), Wide::power_of_two(128) + Wide::from(1)}};
  uint64_t x = 0x9e3779b97f4a7c15u;
  for (int i = 9; i < 40; ++i) {  // b up to 2^100, a = b·(1 + up to 2^28/2^k)
    x = x * 6364136223846793005u + 1442695040888963407u;
    const Wide b = Wide::from(x | 1).shl(static_cast<int>(x >> 58));
    x = x * 6364136223846793005u + 1442695040888963407u;
    pairs[i] = {b + b.times(x >> 36).shr(static_cast<int>(x % 31)), b};
  }
  int refused = 0;
  for (const auto& pair : pairs) {
    Epsilon fast{}, whole{};
    const bool ok = detail::ln_search<true>(pair.a, pair.b, fast);
    CHECK_EQ(ok, detail::ln_search<false>(pair.a, pair.b, whole));
    Epsilon run_time{};
    CHECK_EQ(ln_upper_bound(pair.a, pair.b, run_time), ok);
    CHECK_EQ(run_time.q32, whole.q32);
    CHECK_EQ(fast.q32, whole.q32);
    refused += ok ? 0 : 1;
    // The estimate is what makes it fast: within the ±64 the search starts from.
    if (ok && whole.q32 > 0) {
      const uint64_t guess = detail::ln_estimate_q32(pair.a, pair.b);
      CHECK(guess + 64 > whole.q32 && guess < whole.q32 + 64);
    }
  }
  CHECK_EQ(refused, 2);  // 485165196 and 2^29 are beyond e^20
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

// At compile time too (the estimate's path): ln 3, as above.
static_assert([] {
  Epsilon e{};
  return ln_upper_bound(detail::Wide::from(3), detail::Wide::from(1), e) && e.q32 == 4718503851ull;
}());

// The bound is usable at compile time.
static_assert(exp_lower_bound(Epsilon::from_q32(uint64_t{1} << 32)).shr(96).low64() ==
              11674931554ull);

}  // namespace
}  // namespace tinyldp::test
