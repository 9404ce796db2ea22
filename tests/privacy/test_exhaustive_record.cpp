// SPDX-License-Identifier: Apache-2.0
// Exhaustive privacy verification of multi-attribute records (record_rr.hpp): a record of two
// binary attributes, RAPPOR's f = 1/2, p = 1/2, q = 3/4, every memo and fresh string
// enumerated. One report must be exactly ε₁ = ε₁(0) + ε₁(1) (tight: records that differ in
// both attributes reach it) and the memo exactly ε∞ = ε∞(0) + ε∞(1); a claim of one
// attribute's ε₁ for the whole record (the seed paper's single-report figure lacks the factor
// d) must be caught.
#include "check.hpp"
#include "exhaustive.hpp"
#include "tinyldp/record_rr.hpp"

namespace tinyldp::test {
namespace {

uint32_t counts[4 * 16];
constexpr Dyadic half{1, 1}, three_quarters{3, 2};
using Record2 = RecordRr<2>;

// Input v is the record (v & 1, v >> 1); the report's 4 bits are the output index.
uint32_t one_report(const Record2& r, uint32_t v, CountingRng& rng) {
  const uint32_t values[2] = {v & 1u, v >> 1};
  uint8_t report[1] = {0};
  static_cast<void>(r.privatize_with_memo(values, rng, rng, report, sizeof report));
  return report[0];
}

Record2 rappor_record() {
  const uint32_t sizes[] = {2, 2};
  Record2 r;
  CHECK(Record2::configure_rappor(half, half, three_quarters, sizes, 2, r) == Status::ok);
  return r;
}

TEST(one_record_report_is_the_sum_of_the_attributes_epsilon_one) {
  const Record2 r = rappor_record();
  CHECK_EQ(r.epsilon_one().q32, 2 * r.attribute(0).epsilon_one().q32);
  const auto v = verify_exhaustively(4, 16, r.epsilon_one(), counts,
                                     [&](uint32_t x, CountingRng& rng) { return one_report(r, x, rng); });
  expect_private_and_tight(v, r.epsilon_one());
  CHECK_EQ(v.random_bits, r.memo_bits_per_report() + r.random_bits_per_report());
  // One attribute's ε₁ is not enough for a record.
  const auto short_claim = verify_exhaustively(4, 16, r.attribute(0).epsilon_one(), counts,
                                               [&](uint32_t x, CountingRng& rng) { return one_report(r, x, rng); });
  CHECK(!short_claim.within_claim);
}

TEST(the_record_memo_is_the_sum_of_the_attributes_epsilon_infinity) {
  const Record2 r = rappor_record();
  TwoStageRr prr[2];
  for (uint32_t j = 0; j < 2; ++j)
    CHECK(TwoStageRr::configure(r.attribute(j).p1(), r.attribute(j).q1(), Dyadic{1, 0}, Dyadic{0, 0},
                                r.attribute(j).encoding(), prr[j]) == Status::ok);
  Record2 memo_only;
  CHECK(Record2::configure(prr, 2, memo_only) == Status::ok);
  CHECK_EQ(memo_only.epsilon_infinity().q32, r.epsilon_infinity().q32);
  const auto v = verify_exhaustively(4, 16, r.epsilon_infinity(), counts, [&](uint32_t x, CountingRng& rng) {
    return one_report(memo_only, x, rng);
  });
  expect_private_and_tight(v, r.epsilon_infinity());
}

}  // namespace
}  // namespace tinyldp::test
