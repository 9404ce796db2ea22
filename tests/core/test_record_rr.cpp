// SPDX-License-Identifier: Apache-2.0
// Records of d attributes in one memoized report (record_rr.hpp): ε₁ and ε∞ are the sums of
// the attributes' (the seed paper's NLTCS figures), the layout is each attribute's own
// two-stage report at its bit offset, memos per attribute, fail-closed ends, fixed bit use.
#include "check.hpp"
#include "mechanism_checks.hpp"
#include "memoized_checks.hpp"
#include "tinyldp/record_rr.hpp"

namespace tinyldp::test {
namespace {

constexpr Dyadic half{1, 1}, quarter{1, 2}, three_quarters{3, 2};
using Record8 = RecordRr<8>;

// A decimal probability read to 2^-32 (the CLI's rounding): ⌊x · 2^32⌋ / 2^32.
constexpr Dyadic decimal(uint64_t thousandths) {
  return make_dyadic((thousandths << 32) / 1000, 32);
}

bool bit(const uint8_t* r, uint32_t i) { return (static_cast<uint32_t>(r[i / 8] >> (i % 8)) & 1u) != 0; }

// Epsilon within ±0.05 of x/10 (the figures have one decimal).
bool near_tenths(Epsilon e, uint64_t tenths) {
  const uint64_t target = (tenths << 32) / 10, slack = (uint64_t{1} << 32) / 20;
  return e.q32 + slack >= target && e.q32 <= target + slack;
}

TEST(nltcs_record_at_the_papers_settings_sums_the_attributes_losses) {
  // 16 binary attributes, p = 0.5, q = 0.75: ε∞ 94.2 / 35.2 / 19.8 / 6.4 and ε₁ 15.7 / 8.6 /
  // 5.1 / 1.7 at f = 0.1 / 0.5 / 0.7 / 0.9.
  const uint64_t f[] = {100, 500, 700, 900};
  const uint64_t eps_inf[] = {942, 352, 198, 64}, eps_one[] = {157, 86, 51, 17};
  uint32_t sizes[16];
  for (uint32_t& s : sizes) s = 2;
  for (int i = 0; i < 4; ++i) {
    RecordRr<16> record;
    CHECK(RecordRr<16>::configure_rappor(decimal(f[i]), half, three_quarters, sizes, 16, record) == Status::ok);
    TwoStageRr one;
    CHECK(TwoStageRr::configure_rappor(decimal(f[i]), half, three_quarters, TwoStageRr::one_hot(2), one) ==
          Status::ok);
    CHECK_EQ(record.epsilon_infinity().q32, 16 * one.epsilon_infinity().q32);
    CHECK_EQ(record.epsilon_one().q32, 16 * one.epsilon_one().q32);
    CHECK(near_tenths(record.epsilon_infinity(), eps_inf[i]));
    CHECK(near_tenths(record.epsilon_one(), eps_one[i]));
    CHECK_EQ(record.record_bits(), 32u);
    CHECK_EQ(record.report_bytes(), 4u);
  }
}

TEST(configuration_checks_attribute_indices_encodings_and_counts) {
  TwoStageRr attrs[3];
  for (uint32_t j = 0; j < 3; ++j)
    CHECK(TwoStageRr::configure_rappor(half, half, three_quarters, TwoStageRr::one_hot(3 + j, j), attrs[j]) ==
          Status::ok);
  Record8 r;
  CHECK(Record8::configure(attrs, 3, r) == Status::ok);
  CHECK_EQ(r.record_bits(), 12u);
  CHECK_EQ(r.bit_offset(2), 7u);
  CHECK_EQ(r.epsilon_one().q32, attrs[0].epsilon_one().q32 * 3);
  CHECK(r.description().id == wire::MechanismId::record_rr);
  CHECK_EQ(r.description().payload_bits, 12u);
  // Attribute 1 claiming index 0 would share attribute 0's memos: refused.
  TwoStageRr shared = attrs[1];
  CHECK(TwoStageRr::configure_rappor(half, half, three_quarters, TwoStageRr::one_hot(4, 0), attrs[1]) ==
        Status::ok);
  CHECK(Record8::configure(attrs, 3, r) == Status::bad_parameter);
  attrs[1] = shared;
  TwoStageRr bloom;
  CHECK(TwoStageRr::configure_rappor(half, half, three_quarters, TwoStageRr::bloom(16, 2, 1, 1), bloom) ==
        Status::ok);
  const TwoStageRr with_bloom[2] = {attrs[0], bloom};
  CHECK(Record8::configure(with_bloom, 2, r) == Status::bad_parameter);
  CHECK(Record8::configure(attrs, 0, r) == Status::bad_parameter);
  CHECK(Record8::configure(attrs, 9, r) == Status::bad_parameter);
  const uint32_t sizes[] = {2, 1};
  CHECK(Record8::configure_rappor(half, half, three_quarters, sizes, 2, r) == Status::bad_parameter);
  // The digest names every attribute's domain.
  Record8 a, b;
  const uint32_t s1[] = {3, 4}, s2[] = {4, 3};
  CHECK(Record8::configure_rappor(half, half, three_quarters, s1, 2, a) == Status::ok);
  CHECK(Record8::configure_rappor(half, half, three_quarters, s2, 2, b) == Status::ok);
  CHECK(a.description().digest != b.description().digest);
}

TEST(each_attribute_is_its_own_two_stage_report_at_its_bit_offset) {
  // Odd domain sizes put attributes across byte boundaries. Run the attributes one by one
  // with the same key and an Rng from the same seed: the record must be their bits in order.
  const uint32_t sizes[] = {3, 2, 5, 11, 2, 9, 2, 17};
  Record8 record;
  CHECK(Record8::configure_rappor(quarter, half, three_quarters, sizes, 8, record) == Status::ok);
  CHECK_EQ(record.record_bits(), 51u);
  const TestMemoKey key{11, 0};
  for (uint32_t trial = 0; trial < 20; ++trial) {
    uint32_t values[8];
    for (uint32_t j = 0; j < 8; ++j) values[j] = (trial * 7 + j * 3) % sizes[j];
    uint8_t report[7];
    for (uint8_t& b : report) b = 0xA5;
    port::InsecureTestSource src(100 + trial);
    Rng rng(src);
    CHECK(record.privatize(values, key, rng, report, sizeof report) == Status::ok);
    CHECK_EQ(rng.bits_drawn(), record.random_bits_per_report());
    port::InsecureTestSource again(100 + trial);
    Rng rng2(again);
    uint32_t offset = 0;
    for (uint32_t j = 0; j < 8; ++j) {
      uint8_t alone[3] = {};
      CHECK(record.attribute(j).privatize(values[j], key, rng2, alone, sizeof alone) == Status::ok);
      for (uint32_t i = 0; i < sizes[j]; ++i) CHECK_EQ(bit(report, offset + i), bit(alone, i));
      offset += sizes[j];
    }
    CHECK_EQ(report[6] >> 3, 0);  // bits past the record are zero
  }
}

TEST(memos_are_per_attribute_and_per_record_value) {
  // IRR = identity: a report is the memo. Equal values in two attributes get different memos.
  TwoStageRr attrs[2];
  for (uint32_t j = 0; j < 2; ++j)
    CHECK(TwoStageRr::configure(three_quarters, quarter, Dyadic{1, 0}, Dyadic{0, 0}, TwoStageRr::one_hot(64, j),
                                attrs[j]) == Status::ok);
  Record8 memo_only;
  CHECK(Record8::configure(attrs, 2, memo_only) == Status::ok);
  const TestMemoKey key{5, 0};
  port::InsecureTestSource src(1);
  Rng rng(src);
  const uint32_t values[] = {9, 9};
  uint8_t first[16], again[16];
  CHECK(memo_only.privatize(values, key, rng, first, sizeof first) == Status::ok);
  for (int i = 0; i < 5; ++i) {
    CHECK(memo_only.privatize(values, key, rng, again, sizeof again) == Status::ok);
    for (int b = 0; b < 16; ++b) CHECK_EQ(first[b], again[b]);
  }
  int differing = 0;
  for (int b = 0; b < 8; ++b) differing += first[b] != first[8 + b];
  CHECK(differing > 0);
}

TEST(a_bad_value_a_short_buffer_or_an_entropy_failure_zero_the_whole_record) {
  const uint32_t sizes[] = {3, 5, 4};
  Record8 record;
  CHECK(Record8::configure_rappor(half, half, three_quarters, sizes, 3, record) == Status::ok);
  const TestMemoKey key{};
  uint8_t report[2] = {0xFF, 0xFF};
  port::InsecureTestSource src(2);
  Rng rng(src);
  const uint32_t bad_middle[] = {1, 5, 2};
  CHECK(record.privatize(bad_middle, key, rng, report, 2) == Status::value_out_of_domain);
  CHECK_EQ(report[0] | report[1], 0);
  const uint32_t good[] = {1, 4, 3};
  report[0] = 0xFF;
  CHECK(record.privatize(good, key, rng, report, 1) == Status::buffer_too_small);
  CHECK_EQ(report[0], 0);
  port::InsecureTestSource failing(3);
  failing.fail_on_call(1);
  Rng broken(failing);
  report[0] = report[1] = 0xFF;
  CHECK(record.privatize(good, key, broken, report, 2) == Status::entropy_failed);
  CHECK_EQ(report[0] | report[1], 0);
}

TEST(every_record_draws_the_same_bits) {
  const uint32_t sizes[] = {3, 2, 4};
  Record8 record;
  CHECK(Record8::configure_rappor(quarter, half, three_quarters, sizes, 3, record) == Status::ok);
  const TestMemoKey key{};
  for (uint32_t v = 0; v < 3 * 2 * 5; ++v) {  // the last value of attribute 2 is out of range
    const uint32_t values[] = {v % 3, (v / 3) % 2, v / 6};
    port::InsecureTestSource src(4);
    Rng rng(src);
    uint8_t report[2];
    (void)record.privatize(values, key, rng, report, sizeof report);
    CHECK_EQ(rng.bits_drawn(), record.random_bits_per_report());
  }
}

}  // namespace
}  // namespace tinyldp::test
