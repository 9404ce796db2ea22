// SPDX-License-Identifier: Apache-2.0
// Multi-attribute reports on the collector (multi_attribute_counts.hpp, framed_reports.hpp):
// every protocol's one-way marginal estimates are unbiased within 6σ on records privatized by
// the core with a fixed seed (6σ below 0.03: a 3 % bias is caught); framed device reports count exactly as their payloads; malformed
// payloads and reports are refused with a reason; the state serializes, merges and refuses
// another schema. And record_rr's framed device reports (id 22) give the same record counts
// as the simulation path.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "test_memo_key.hpp"
#include "sample_size.hpp"
#include "tinyldp/collector/estimates.hpp"
#include "tinyldp/collector/multi_attribute_counts.hpp"
#include "tinyldp/collector/record_counts.hpp"
#include "tinyldp/endian.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::collector {
namespace {

using Rng = RandomBits<port::InsecureTestSource>;

// Under a sanitizer (-O0 with ASan) fewer records, the same 6σ bounds.
constexpr std::uint32_t records = test::sample_size(400000, 400000 / 16);

const std::vector<RecordAttribute> attributes = {{"a", 2, {}}, {"b", 5, {}}, {"c", 3, {"x", "y", "z"}}};
const MechanismId all_protocols[] = {MechanismId::spl_grr,  MechanismId::spl_oue,    MechanismId::smp_grr,
                                     MechanismId::smp_oue,  MechanismId::rsfd_grr,   MechanismId::rsfd_oue_z,
                                     MechanismId::rsfd_oue_r};

MultiAttributeSchema make_schema(MechanismId id, Epsilon eps = Epsilon::from_ratio(2, 1)) {
  std::string error;
  auto s = MultiAttributeSchema::make(id, eps, attributes, error);
  EXPECT_TRUE(s) << error;
  return *s;
}

// A fixed population with correlated attributes: record i's values from i.
std::vector<std::uint32_t> record(std::uint32_t i) {
  const std::uint32_t a = (i % 10) < 3 ? 1 : 0;
  const std::uint32_t b = a == 1 ? (i / 10) % 2 : 2 + (i / 7) % 3;
  const std::uint32_t c = (i / 3) % 3 == 0 ? 2 : a;
  return {a, b, c};
}

std::vector<std::uint8_t> framed(const MultiAttributeSchema& s, const std::vector<std::uint8_t>& payload,
                                 std::uint32_t device) {
  wire::Header h;
  h.fields = static_cast<std::uint8_t>(device % 2 == 0 ? unsigned{wire::field_device_id} : 0u);
  h.device_id = device;
  std::vector<std::uint8_t> out(s.description().report_bytes(h.fields));
  std::size_t written = 0;
  EXPECT_EQ(wire::encode(s.description(), h, payload.data(), out.data(), out.size(), written), Status::ok);
  return out;
}

TEST(MultiAttribute, EveryProtocolsMarginalsAreUnbiasedWithinSixSigma) {
  for (MechanismId id : all_protocols) {
    const MultiAttributeSchema s = make_schema(id);
    MultiAttributeCounts counts(s);
    port::InsecureTestSource src(static_cast<std::uint64_t>(id) * 1000 + 7);
    Rng rng(src);
    std::vector<std::vector<double>> truth(3);
    for (std::uint32_t j = 0; j < 3; ++j) truth[j].assign(attributes[j].size, 0.0);
    std::vector<std::uint8_t> payload(s.payload_bytes());
    for (std::uint32_t i = 0; i < records; ++i) {
      const auto values = record(i);
      for (std::uint32_t j = 0; j < 3; ++j) truth[j][values[j]] += 1.0 / records;
      ASSERT_EQ(s.privatize(values.data(), rng, payload.data()), Status::ok);
      ASSERT_EQ(counts.add_payload(payload), ParseError::none) << s.name();
    }
    EXPECT_EQ(counts.reports(), records);
    for (std::uint32_t j = 0; j < 3; ++j) {
      const MarginalEstimate e = counts.estimate(j);
      const std::vector<ItemEstimate> items = counts.estimate_items(j, 0.95);
      ASSERT_EQ(items.size(), attributes[j].size);
      const Channel ch = s.channel(j);
      const double n = static_cast<double>(e.reports);
      for (std::uint32_t v = 0; v < attributes[j].size; ++v) {
        // The exact sd of the estimate given the true count (SMP: n_j reports, a simple random
        // sample of the records given n_j, whose own sampling variance is added, with the
        // finite-population correction).
        const double c = truth[j][v] * n;
        double var = count_variance(e.reports, c, ch) / (n * n);
        if (id == MechanismId::smp_grr || id == MechanismId::smp_oue)
          var += truth[j][v] * (1 - truth[j][v]) / n * (1 - n / records);
#ifndef TINYLDP_TEST_SANITIZED
        EXPECT_LT(6 * std::sqrt(var), 0.03) << s.name();  // power: a 3 % error would not pass
#endif
        EXPECT_LE(std::fabs(e.frequency[v] - truth[j][v]), 6 * std::sqrt(var))
            << s.name() << " attribute " << j << " value " << v << ": " << e.frequency[v] << " vs " << truth[j][v];
        // The items (multi's table): the same estimate, a standard error at the estimate within
        // 5 % of the exact one (SMP's sample included), count = estimate × n_j, a 95 % normal
        // interval around it.
        const ItemEstimate& it = items[v];
        EXPECT_NEAR(it.frequency, e.frequency[v], 1e-12) << s.name();
        EXPECT_EQ(it.unbiased_frequency, it.frequency);
        EXPECT_NEAR(it.standard_error, std::sqrt(var), 0.05 * std::sqrt(var)) << s.name() << " attribute " << j;
        EXPECT_NEAR(it.count, it.frequency * n, 1e-9 * n);
        EXPECT_NEAR(it.ci_high - it.ci_low, 2 * 1.959963984540054 * it.standard_error, 1e-12);
        EXPECT_LE(it.ci_low, it.frequency);
        EXPECT_GE(it.ci_high, it.frequency);
      }
    }
  }
}

TEST(MultiAttribute, AnAttributeNoReportCarriesHasNoEstimate) {
  // Counts with no report (an empty file ingested, or an SMP attribute nobody sampled): NaN,
  // never a confident 0 with a zero-width interval.
  for (MechanismId id : all_protocols) {
    const MultiAttributeCounts counts(make_schema(id));
    for (std::uint32_t j = 0; j < 3; ++j)
      for (const ItemEstimate& e : counts.estimate_items(j, 0.95)) {
        EXPECT_EQ(e.count, 0.0);
        EXPECT_TRUE(std::isnan(e.frequency) && std::isnan(e.unbiased_frequency) && std::isnan(e.standard_error) &&
                    std::isnan(e.ci_low) && std::isnan(e.ci_high));
      }
    EXPECT_THROW(static_cast<void>(counts.estimate_items(0, 1.0)), std::invalid_argument);
  }
}

TEST(MultiAttribute, FramedReportsCountAsTheirPayloads) {
  for (MechanismId id : all_protocols) {
    const MultiAttributeSchema s = make_schema(id);
    MultiAttributeCounts direct(s), from_frames(s);
    port::InsecureTestSource src(99);
    Rng rng(src);
    std::vector<std::uint8_t> run, payload(s.payload_bytes());
    for (std::uint32_t i = 0; i < 500; ++i) {
      ASSERT_EQ(s.privatize(record(i).data(), rng, payload.data()), Status::ok);
      ASSERT_EQ(direct.add_payload(payload), ParseError::none);
      const auto f = framed(s, payload, i);
      run.insert(run.end(), f.begin(), f.end());
    }
    EXPECT_FALSE(from_frames.add_framed(run)) << s.name();
    EXPECT_EQ(from_frames.serialize(), direct.serialize()) << s.name();
  }
}

TEST(MultiAttribute, MalformedReportsAreRefusedWithAReason) {
  const MultiAttributeSchema grr = make_schema(MechanismId::spl_grr);
  MultiAttributeCounts counts(grr);
  // SPL-GRR payload: a (1 bit), b (3 bits), c (2 bits): b = 5 is outside its domain.
  std::vector<std::uint8_t> bad = {static_cast<std::uint8_t>(5u << 1)};
  EXPECT_EQ(counts.add_payload(bad), ParseError::value_out_of_range);
  EXPECT_EQ(counts.add_payload(std::vector<std::uint8_t>{0x40}), ParseError::nonzero_padding);
  EXPECT_EQ(counts.add_payload(std::vector<std::uint8_t>{0, 0}), ParseError::oversized);
  EXPECT_EQ(counts.reports(), 0u);
  // A run: two good reports, then one with another digest; the first two stay counted.
  std::vector<std::uint8_t> run;
  for (int i = 0; i < 2; ++i) {
    const auto f = framed(grr, {0}, 1);
    run.insert(run.end(), f.begin(), f.end());
  }
  auto other = framed(make_schema(MechanismId::spl_grr, Epsilon::from_ratio(3, 1)), {0}, 1);
  run.insert(run.end(), other.begin(), other.end());
  const auto error = counts.add_framed(run);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->index, 2u);
  EXPECT_EQ(error->error, ParseError::wrong_parameters);
  EXPECT_NE(error->reason.find("report 2 at byte 16"), std::string::npos) << error->reason;
  EXPECT_EQ(counts.reports(), 2u);
  // Truncated at the end; another mechanism's id.
  auto cut = framed(grr, {0}, 1);
  cut.pop_back();
  EXPECT_EQ(counts.add_framed(cut)->error, ParseError::truncated);
  auto wrong = framed(grr, {0}, 1);
  wrong[1] = static_cast<std::uint8_t>(MechanismId::krr);
  EXPECT_EQ(counts.add_framed(wrong)->error, ParseError::wrong_mechanism);
  // SMP: an index beyond d; OUE: bits past an attribute's k.
  MultiAttributeCounts smp(make_schema(MechanismId::smp_oue));
  EXPECT_EQ(smp.add_payload(std::vector<std::uint8_t>{3, 0}), ParseError::value_out_of_range);
  EXPECT_EQ(smp.add_payload(std::vector<std::uint8_t>{0, 0x04}), ParseError::nonzero_padding);  // a: k = 2
  EXPECT_EQ(smp.add_payload(std::vector<std::uint8_t>{1, 0x10}), ParseError::none);
  EXPECT_EQ(smp.carried(1), 1u);
}

TEST(MultiAttribute, StateSerializesMergesAndRefusesAnotherSchema) {
  const MultiAttributeSchema s = make_schema(MechanismId::smp_grr);
  MultiAttributeCounts a(s), b(s);
  port::InsecureTestSource src(5);
  Rng rng(src);
  std::vector<std::uint8_t> payload(s.payload_bytes());
  for (std::uint32_t i = 0; i < 300; ++i) {
    ASSERT_EQ(s.privatize(record(i).data(), rng, payload.data()), Status::ok);
    ASSERT_EQ((i < 100 ? a : b).add_payload(payload), ParseError::none);
  }
  std::string error;
  auto back = MultiAttributeCounts::deserialize(a.serialize(), error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->serialize(), a.serialize());
  ASSERT_TRUE(a.merge(b));
  EXPECT_EQ(a.reports(), 300u);
  EXPECT_EQ(a.carried(0) + a.carried(1) + a.carried(2), 300u);
  MultiAttributeCounts other(make_schema(MechanismId::smp_oue));
  EXPECT_FALSE(a.merge(other));
  // A tampered count no longer adds up.
  auto bytes = a.serialize();
  bytes[bytes.size() - 8] ^= 1;
  EXPECT_FALSE(MultiAttributeCounts::deserialize(bytes, error));
  EXPECT_NE(error.find("do not add up"), std::string::npos) << error;
  // Bad configurations name their reason.
  EXPECT_FALSE(MultiAttributeSchema::make(MechanismId::rsfd_grr, Epsilon::from_ratio(1, 1), {{"a", 2, {}}}, error));
  EXPECT_NE(error.find("2 to 64 attributes"), std::string::npos) << error;
  EXPECT_FALSE(MultiAttributeSchema::make(MechanismId::krr, Epsilon::from_ratio(1, 1), attributes, error));
}

// A counts file that cannot be written whole is a failure, not a truncated file reported saved:
// a small state stays in the stream's buffer until the file is closed (/dev/full: ENOSPC then).
TEST(MultiAttribute, AStateThatCannotBeWrittenWholeIsAFailure) {
  const MultiAttributeSchema s = make_schema(MechanismId::smp_grr);
  const MultiAttributeCounts a(s);
  ASSERT_LT(a.serialize().size(), 4096u);  // smaller than any stream buffer
  EXPECT_FALSE(a.save("/dev/full"));
  std::string error;
  EXPECT_FALSE(MultiAttributeCounts::load("/nonexistent-dir/counts", error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
}

TEST(MultiAttribute, RsfdStatesBothEpsilons) {
  const MultiAttributeSchema s = make_schema(MechanismId::rsfd_oue_z, Epsilon::from_ratio(1, 1));
  ASSERT_TRUE(s.epsilon_one_attribute());
  ASSERT_TRUE(s.amplified_epsilon());
  const double amplified = std::log(3 * (std::exp(1.0) - 1) + 1);
  EXPECT_NEAR(to_double(*s.amplified_epsilon()), amplified, 1e-6);
  EXPECT_NEAR(to_double(s.epsilon_per_report()), amplified, 1e-5);
  EXPECT_NEAR(to_double(*s.epsilon_one_attribute()), 1.0, 1e-5);
  const MultiAttributeSchema spl = make_schema(MechanismId::spl_oue, Epsilon::from_ratio(1, 1));
  EXPECT_FALSE(spl.epsilon_one_attribute());
  EXPECT_LE(spl.epsilon_per_report().q32, Epsilon::from_ratio(1, 1).q32);
}

// record_rr (id 22): reports privatized by the core and framed count as the simulation path's
// payloads; malformed ones are refused with a reason.
TEST(RecordReports, FramedDeviceReportsGiveTheSimulationsCounts) {
  std::string error;
  auto schema = RecordSchema::make(attributes, Dyadic{1, 1}, Dyadic{1, 1}, Dyadic{3, 2}, error);
  ASSERT_TRUE(schema) << error;
  RecordCounts simulated(*schema), from_frames(*schema);
  const auto& m = schema->mechanism();
  const wire::Description desc = m.description();
  port::InsecureTestSource a(17), b(17);
  Rng ra(a), rb(b);
  std::vector<std::uint8_t> run, report(m.report_bytes());
  for (std::uint32_t i = 0; i < 2000; ++i) {
    const auto values = record(i);
    const test::TestMemoKey key{i};
    // The simulation path: the payload counted as it is.
    ASSERT_EQ(m.privatize(values.data(), key, ra, report.data(), report.size()), Status::ok);
    ASSERT_TRUE(simulated.add(report));
    // The device path: privatized into its frame, the header around it.
    wire::Header h;
    h.fields = wire::field_device_id | wire::field_memo_generation;
    h.device_id = i;
    std::vector<std::uint8_t> frame(desc.report_bytes(h.fields));
    const std::size_t at = wire::Description::header_bytes(h.fields);
    ASSERT_EQ(m.privatize(values.data(), key, rb, frame.data() + at, frame.size() - at), Status::ok);
    std::size_t written = 0;
    ASSERT_EQ(wire::encode(desc, h, frame.data() + at, frame.data(), frame.size(), written), Status::ok);
    run.insert(run.end(), frame.begin(), frame.end());
  }
  EXPECT_FALSE(from_frames.add_framed(run));
  EXPECT_EQ(from_frames.serialize(), simulated.serialize());
  // Malformed: bits past the record set (10 bits: the second byte's high bits are padding).
  RecordCounts bad(*schema);
  std::vector<std::uint8_t> frame(desc.report_bytes(0));
  std::size_t written = 0;
  const std::vector<std::uint8_t> zero(m.report_bytes(), 0);
  ASSERT_EQ(wire::encode(desc, {}, zero.data(), frame.data(), frame.size(), written), Status::ok);
  frame.back() |= 0x80;
  const auto e = bad.add_framed(frame);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->error, ParseError::nonzero_padding);
  // Another record's digest (f = 1/4).
  auto other = RecordSchema::make(attributes, Dyadic{1, 2}, Dyadic{1, 1}, Dyadic{3, 2}, error);
  ASSERT_TRUE(other);
  std::vector<std::uint8_t> alien(other->mechanism().description().report_bytes(0));
  ASSERT_EQ(wire::encode(other->mechanism().description(), {}, zero.data(), alien.data(), alien.size(), written),
            Status::ok);
  EXPECT_EQ(bad.add_framed(alien)->error, ParseError::wrong_parameters);
  EXPECT_EQ(bad.reports(), 0u);
}

}  // namespace
}  // namespace tinyldp::collector
