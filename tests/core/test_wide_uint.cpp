// SPDX-License-Identifier: Apache-2.0
// UInt<N>: the configuration-time integers every probability is computed with.
#include "tinyldp/wide_uint.hpp"

#include "check.hpp"

namespace tinyldp::test {
namespace {

using W = UInt<4>;

TEST(multiplies_and_divides_past_64_bits) {
  const W a = W::from(0xFFFFFFFFFFFFFFFFull);
  const W sq = a * a;  // 2^128 − 2^65 + 1
  CHECK_EQ(sq.bit_length(), 128);
  CHECK_EQ(sq.limb[0], 1u);
  CHECK_EQ(sq.limb[2], 0xFFFFFFFEu);
  CHECK(floor_div(sq, a) == a);
  CHECK(ceil_div(sq + W::from(1), a) == a + W::from(1));
  CHECK(floor_div(sq + W::from(1), a) == a);
}

TEST(shifts_and_small_division) {
  const W one = W::from(1);
  CHECK(one.shl(100).shr(100) == one);
  CHECK_EQ(one.shl(100).bit_length(), 101);
  CHECK(W::power_of_two(70) == one.shl(70));
  CHECK_EQ(W::from(1000).div_small(7).low64(), 142u);
  CHECK_EQ(W::from(0x123456789ABCDEFull).times(0x1000000000ull).shr(36).low64(),
           0x123456789ABCDEFull);
}

TEST(compares_and_subtracts) {
  const W big = W::power_of_two(96);
  const W smaller = big - W::from(1);
  CHECK(smaller < big);
  CHECK(big > smaller);
  CHECK_EQ(smaller.bit_length(), 96);
  CHECK_EQ(smaller.limb[2], 0xFFFFFFFFu);
  CHECK(!big.fits_u64());
  CHECK(W::from(5).fits_u64());
}

static_assert(floor_div(W::from(100), W::from(7)).low64() == 14);
static_assert(ceil_div(W::from(100), W::from(7)).low64() == 15);

}  // namespace
}  // namespace tinyldp::test
