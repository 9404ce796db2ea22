// SPDX-License-Identifier: Apache-2.0
// HaarHRR (haar_hrr.hpp): the levels and the payload, every refusal, the realized ε as the
// binary RR's, the device's level from its memo key (fixed, uniform), fail-closed ends, the same
// bits for every value, each level's output law by statistics (uniform rows, the bit
// sign·H[row][node] kept with the RR's p), golden reports. Exhaustive ε:
// tests/privacy/test_exhaustive_haar_hrr.cpp.
#include "check.hpp"
#include "leveled_reports.hpp"
#include "frequency_check.hpp"
#include "mechanism_checks.hpp"
#include "test_memo_key.hpp"
#include "tinyldp/haar_hrr.hpp"

namespace tinyldp::test {
namespace {

constexpr Epsilon one = Epsilon::from_ratio(1, 1);
// [0, 1000]: D = 1024, 10 levels of 1, 2, …, 512 nodes; payload 8 + 10 bits: 3 bytes.
constexpr auto haar = HaarHrr::make(one, 0, 1000);
constexpr size_t haar_bytes = 3;
static_assert(haar.report_bytes() == haar_bytes);

// The shared checks' shapes for this mechanism (leveled_reports.hpp).
template <size_t Bytes>
using Report = LeveledReport<Bytes>;
template <size_t Bytes>
using AtLevel = test::AtLevel<HaarHrr, Bytes>;
template <size_t Bytes>
using Fleet = test::Fleet<HaarHrr, Bytes>;

// A report's level is a level, its row below the level's nodes, nothing past the bit.
bool well_formed(const HaarHrr& m, const uint8_t* bytes) {
  const HaarReport r = m.unpack(bytes);
  if (r.level < 1 || r.level > m.levels() || r.row >= m.nodes(r.level)) return false;
  for (uint32_t bit = m.payload_bits(); bit < 8 * m.report_bytes(); ++bit)
    if ((static_cast<uint32_t>(bytes[bit / 8]) >> (bit % 8)) & 1u) return false;
  return true;
}

TEST(the_levels_and_the_payload) {
  static_assert(haar.configured() && haar.levels() == 10 && haar.domain() == 1001 && haar.high() == 1000);
  static_assert(haar.nodes(1) == 1 && haar.nodes(10) == 512 && haar.payload_bits() == 18);
  static_assert(haar.description().id == wire::MechanismId::haar_hrr && haar.description().payload_bits == 18);
  static_assert(haar.random_bits_at(1) == haar.randomizer().random_bits_per_report());
  static_assert(haar.random_bits_per_report() == 9 + haar.randomizer().random_bits_per_report());
  // A power of two: [−4, 3] has D = 8, 3 levels; two values: one level, the root's coefficient.
  static_assert(HaarHrr::make(one, -4, 3).levels() == 3 && HaarHrr::make(one, 0, 8).levels() == 4);
  static_assert(HaarHrr::make(one, 5, 6).levels() == 1 && HaarHrr::make(one, 5, 6).payload_bits() == 9);
  // The largest range, 2^24 values from INT32_MIN: 24 levels, 4-byte reports.
  HaarHrr largest;
  CHECK_EQ(HaarHrr::configure(one, INT32_MIN, INT32_MIN + (1 << 24) - 1, largest), Status::ok);
  CHECK_EQ(largest.levels(), 24u);
  CHECK_EQ(largest.report_bytes(), size_t{4});
  // The digest tells configurations apart: the range, the attribute, ε.
  const uint32_t digest = haar.description().digest;
  CHECK_NE(HaarHrr::make(one, 1, 1001).description().digest, digest);
  CHECK_NE(HaarHrr::make(one, 0, 1000, {}, 1).description().digest, digest);
  CHECK_NE(HaarHrr::make(Epsilon::from_ratio(2, 1), 0, 1000).description().digest, digest);
  // Realized ε: the binary RR's, within the default tolerance below ε.
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 10), one, Epsilon::from_ratio(4, 1), Epsilon::from_ratio(8, 1)};
  for (Epsilon eps : epsilons) {
    HaarHrr m;
    CHECK_EQ(HaarHrr::configure(eps, 0, 1000, m), Status::ok);
    CHECK(m.realized_epsilon() == m.randomizer().realized_epsilon());
    CHECK(m.realized_epsilon() <= eps);
    CHECK_GE(m.realized_epsilon().q32 + Precision{}.tolerance_q32, eps.q32);
  }
}

TEST(refuses_bad_configurations) {
  HaarHrr x;
  CHECK_EQ(HaarHrr::configure(one, 5, 5, x), Status::bad_parameter);          // d = 1
  CHECK_EQ(HaarHrr::configure(one, 5, 4, x), Status::bad_parameter);          // hi < lo
  CHECK_EQ(HaarHrr::configure(one, 0, 1 << 24, x), Status::bad_parameter);   // d = 2^24 + 1
  CHECK_EQ(HaarHrr::configure(one, INT32_MIN, INT32_MAX, x), Status::bad_parameter);
  CHECK_EQ(HaarHrr::configure(Epsilon::from_q32(0), 0, 100, x), Status::bad_epsilon);
  CHECK_EQ(HaarHrr::configure(Epsilon{max_epsilon.q32 + 1}, 0, 100, x), Status::bad_epsilon);
  CHECK_EQ(HaarHrr::configure(one, 0, 100, x, {}, max_memo_attribute + 1), Status::bad_parameter);
  CHECK_EQ(HaarHrr::configure(one, 0, 100, x, Precision{0, 0}), Status::bad_parameter);
  CHECK(!x.configured());
  CHECK(!HaarHrr{}.configured());
  CHECK_EQ(HaarHrr::configure(one, 0, 1, x, {}, max_memo_attribute), Status::ok);
  CHECK_EQ(x.memo_attribute_word(), memo_attribute(wire::MechanismId::haar_hrr, max_memo_attribute));
}

TEST(a_device_keeps_one_uniform_level) {
  const uint32_t devices = fleet_size(20000);
  uint32_t by_level[10] = {};
  bool in_range = true, stable = true;
  for (uint32_t i = 0; i < devices && in_range; ++i) {
    const TestMemoKey key{i + 1};
    const uint32_t a = haar.level_of(key);
    in_range = a >= 1 && a <= 10;
    stable = stable && haar.level_of(key) == a;
    if (in_range) ++by_level[a - 1];
  }
  CHECK(in_range);
  CHECK(stable);
  for (uint32_t a = 0; a < 10; ++a) CHECK(within_six_sigma(by_level[a], devices, 1.0 / 10, false));
  // Every report carries the device's level.
  port::InsecureTestSource src(12);
  Rng rng(src);
  bool carried = true;
  for (uint64_t i = 1; i <= 40; ++i) {
    const TestMemoKey key{i};
    uint8_t report[haar_bytes];
    carried = carried && haar.privatize(377, key, rng, report, sizeof report) == Status::ok &&
              report[0] == haar.level_of(key) && well_formed(haar, report);
  }
  CHECK(carried);
}

TEST(out_of_range_entropy_failure_and_refusals_emit_nothing) {
  check_leveled_refusals<haar_bytes>(haar);  // leveled_reports.hpp
}

TEST(consumes_the_same_bits_for_every_value) {
  const int32_t values[] = {0, 1, 499, 999, 1000};
  const uint32_t levels[] = {1, 2, 5, 10};
  for (uint32_t level : levels) {
    check_same_bits(AtLevel<haar_bytes>{haar, level}, values, 7 + level, 12);
    port::InsecureTestSource src(3);
    Rng rng(src);
    uint8_t report[haar_bytes];
    CHECK_EQ(haar.privatize_at_level(-3, level, rng, report, sizeof report), Status::value_out_of_domain);
    CHECK_EQ(rng.bits_drawn(), haar.random_bits_at(level));
  }
}

TEST(each_level_reports_the_sign_times_a_uniform_hadamard_row) {
  // Value 613 at level 6 (32 nodes of 32 leaves): node 613 >> 5 = 19, on its left half (bit 4 of
  // 613 = 0b10011'0'0101 is 0: sign bit 0). The
  // rows are uniform over the 32, and the bit is sign XOR parity(row AND node) with the RR's p.
  const Sample sample = powered_sample(0.5, 4000);
  const uint32_t n = sample.n;
  port::InsecureTestSource src(99);
  Rng rng(src);
  uint32_t rows[32] = {};
  uint64_t kept = 0;
  bool formed = true;
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t report[haar_bytes];
    CHECK_EQ(haar.privatize_at_level(613, 6, rng, report, sizeof report), Status::ok);
    formed = formed && well_formed(haar, report) && report[0] == 6;
    const HaarReport r = haar.unpack(report);
    ++rows[r.row & 31u];
    kept += r.bit == (0u ^ hadamard_bit(r.row, 19));
  }
  CHECK(formed);
  CHECK(within_six_sigma(kept, n, as_double(haar.randomizer().keep_probability()), sample.power));
  for (uint32_t j = 0; j < 32; ++j) CHECK(within_six_sigma(rows[j], n, 1.0 / 32, false));
}

TEST(golden_reports_are_identical_everywhere) {
  // 300 devices, one report each at its own level.
  const auto valid = [](const Report<haar_bytes>& r) { return well_formed(haar, r.bytes); };
  CHECK_EQ(golden_digest(Fleet<haar_bytes>{haar}, 300, [](uint32_t i) { return static_cast<int32_t>(i * 337 % 1001); },
                         valid),
           2704978510610113886ull);
}

}  // namespace
}  // namespace tinyldp::test
