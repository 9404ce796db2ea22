// SPDX-License-Identifier: Apache-2.0
// ct:: helpers (constant_time.hpp): the branch-free comparisons and the wide product built from
// 32-bit multiplies, checked against the plain operators on the edges and on a sweep — on the
// host and on every target, where mul_wide replaces a long multiply or a libgcc call.
#include "tinyldp/constant_time.hpp"

#include "check.hpp"

namespace tinyldp::test {
namespace {

static_assert(ct::mul_wide(0xFFFFFFFFu, 0xFFFFFFFFu) == 0xFFFFFFFE00000001ull);
static_assert(ct::mul_high(0x80000000u, 3u) == 1u);

TEST(mul_wide_is_the_64_bit_product) {
  const uint32_t edges[] = {0u, 1u, 2u, 0xFFFFu, 0x10000u, 0x10001u, 0x7FFFFFFFu, 0x80000000u,
                            0xFFFF0000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
  for (uint32_t a : edges)
    for (uint32_t b : edges) CHECK_EQ(ct::mul_wide(a, b), uint64_t{a} * b);
  uint32_t x = 0x12345678u, y = 0x9ABCDEF1u;
  for (int i = 0; i < 20000; ++i) {  // xorshift32 operands
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    y ^= y << 13;
    y ^= y >> 17;
    y ^= y << 5;
    CHECK_EQ(ct::mul_wide(x, y), uint64_t{x} * y);
    CHECK_EQ(ct::mul_high(x, y >> (i % 32)), static_cast<uint32_t>((uint64_t{x} * (y >> (i % 32))) >> 32));
  }
}

TEST(comparisons_and_selection) {
  CHECK_EQ(ct::less(1u, 2u), 1u);
  CHECK_EQ(ct::less(2u, 2u), 0u);
  CHECK_EQ(ct::less(0xFFFFFFFFu, 0u), 0u);
  CHECK_EQ(ct::less64(0xFFFFFFFFFFFFFFFFull, 0u), 0u);
  CHECK_EQ(ct::less64(0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull), 1u);
  CHECK_EQ(ct::is_zero(0u), 1u);
  CHECK_EQ(ct::is_zero(0x80000000u), 0u);
  CHECK_EQ(ct::select(1u, 7u, 9u), 7u);
  CHECK_EQ(ct::select(0u, 7u, 9u), 9u);
}

}  // namespace
}  // namespace tinyldp::test
