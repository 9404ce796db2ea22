// SPDX-License-Identifier: Apache-2.0
// The collector's Bloom-filter decoding (bloom_decode.hpp): a fleet with its own memo keys
// reports strings through memoized RAPPOR over a Bloom filter; the candidate regression recovers
// the known distribution within 6 of its standard errors, a string outside the candidates shows
// up as unexplained mass; shards merge and states round-trip exactly; malformed reports,
// states and configurations are refused with their reason.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "device_memo_key.hpp"
#include "rappor_config.hpp"
#include "sample_size.hpp"
#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/bloom_decode.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::collector {
namespace {

using Rng = RandomBits<port::InsecureTestSource>;

// f = 1/4, p = 1/4, q = 3/4 over a Bloom filter of k bits, h hashes, m cohorts.
MechanismConfig bloom_rappor(std::uint32_t k, std::uint32_t h, std::uint32_t m) {
  return rappor_config(k, Dyadic{1, 2}, Dyadic{1, 2}, Dyadic{3, 2}, h, m);
}

std::vector<std::string> names(std::uint32_t count) {
  std::vector<std::string> out;
  for (std::uint32_t j = 0; j < count; ++j) out.push_back("candidate-" + std::to_string(j));
  return out;
}

// Device i holds strings[value_of(i)]; one report each, with its own key.
template <class ValueOf>
Aggregator reports(const Mechanism& m, std::uint32_t first, std::uint32_t n, const std::vector<std::string>& strings,
                   ValueOf value_of, std::uint64_t seed) {
  port::InsecureTestSource source(seed);
  Rng rng(source);
  Aggregator a(m);
  std::vector<std::uint8_t> report;
  for (std::uint32_t i = first; i < first + n; ++i) {
    report.clear();
    const port::MemoKey key = tinyldp::test::device_memo_key(i, 23, 1);
    EXPECT_EQ(m.privatize(bloom_value(strings[value_of(i)]), rng, key, wire::Header{}, report), Status::ok);
    EXPECT_EQ(a.ingest(report), ParseError::none);
  }
  return a;
}

TEST(BloomDecode, RecoversAKnownDistributionOverTheCandidates) {
  const std::uint32_t n = test::sample_size(160000, 40000);
  const std::uint32_t J = 20;
  Mechanism m;
  ASSERT_EQ(Mechanism::configure(bloom_rappor(64, 2, 32), m), Status::ok);
  // A skewed distribution: candidate j with weight ∝ 1/(j + 1), the last held by nobody;
  // device i holds the candidate its position falls into (a fixed, exact truth).
  std::vector<double> weight(J, 0), truth(J, 0);
  double total = 0;
  for (std::uint32_t j = 0; j + 1 < J; ++j) total += weight[j] = 1.0 / (j + 1);
  std::vector<std::uint32_t> held(n);
  {
    double edge = 0;
    std::uint32_t j = 0, i = 0;
    for (; j + 1 < J; ++j) {
      edge += weight[j] / total * n;
      for (; i < n && i < edge; ++i) held[i] = j;
    }
    for (; i < n; ++i) held[i] = J - 2;
  }
  for (auto v : held) truth[v] += 1.0 / n;
  const auto strings = names(J);
  const Aggregator a = reports(m, 0, n, strings, [&](std::uint32_t i) { return held[i]; }, 5);
  std::string error;
  const auto d = decode_bloom(m, a.support(), strings, 0.05, error);
  ASSERT_TRUE(d) << error;
  EXPECT_EQ(d->reports, n);
  EXPECT_EQ(d->cohorts_reporting, 32u);
  for (std::uint32_t j = 0; j < J; ++j) {
    const auto& c = d->candidates[j];
    EXPECT_GT(c.standard_error, 0) << c.label;
    EXPECT_LE(std::abs(c.frequency - truth[j]), 6 * c.standard_error)
        << c.label << ": " << c.frequency << " for " << truth[j] << " (SE " << c.standard_error << ")";
  }
  // The most frequent candidate is far above the threshold; the one nobody holds is not detected
  // (a false detection has probability ≤ 0.05 / 20 by the threshold; this seed is fixed).
  EXPECT_TRUE(d->candidates[0].detected);
  EXPECT_FALSE(d->candidates[J - 1].detected);
  double se_sum = 0;
  for (const auto& c : d->candidates) se_sum += c.standard_error;
  EXPECT_LE(std::abs(d->unexplained), 6 * se_sum);  // every device holds a candidate
}

TEST(BloomDecode, AStringOutsideTheCandidatesIsUnexplainedMass) {
  const std::uint32_t n = 60000, J = 8;
  Mechanism m;
  ASSERT_EQ(Mechanism::configure(bloom_rappor(64, 2, 32), m), Status::ok);
  auto strings = names(J + 1);  // the last one is not among the candidates
  // Half the devices hold the outsider, the others the J candidates equally.
  const Aggregator a = reports(m, 0, n, strings, [&](std::uint32_t i) { return i % 2 == 0 ? J : (i / 2) % J; }, 9);
  strings.pop_back();
  std::string error;
  const auto d = decode_bloom(m, a.support(), strings, 0.05, error);
  ASSERT_TRUE(d) << error;
  double se_sum = 0;
  for (const auto& c : d->candidates) se_sum += c.standard_error;
  // The outsider's bits are partly explained by candidates sharing them, never more than it
  // holds: what is left lies between 0 and 0.5 (with the fit's error on either side).
  EXPECT_GT(d->unexplained, 0.5 - 6 * se_sum);
  EXPECT_LT(d->unexplained, 0.5 + 6 * se_sum);
  EXPECT_GT(d->unexplained, 0.2);
}

TEST(BloomDecode, ShardsMergeAndStatesRoundTripExactly) {
  Mechanism m;
  ASSERT_EQ(Mechanism::configure(bloom_rappor(32, 2, 8), m), Status::ok);
  EXPECT_EQ(m.domain(), 8u * 33u);  // per cohort: 32 bit counts and the report count
  EXPECT_FALSE(m.uses_bit_columns());
  const auto strings = names(5);
  const auto value_of = [](std::uint32_t i) { return i % 5; };
  const Aggregator whole = reports(m, 0, 2000, strings, value_of, 3);
  Aggregator first = reports(m, 0, 1200, strings, value_of, 3);
  // The second shard's reports are the whole's last 800 (the same source position).
  port::InsecureTestSource source(3);
  Rng rng(source);
  Aggregator second(m);
  std::vector<std::uint8_t> report;
  for (std::uint32_t i = 0; i < 2000; ++i) {
    report.clear();
    const port::MemoKey key = tinyldp::test::device_memo_key(i, 23, 1);
    ASSERT_EQ(m.privatize(bloom_value(strings[value_of(i)]), rng, key, wire::Header{}, report), Status::ok);
    if (i >= 1200) {
      ASSERT_EQ(second.ingest(report), ParseError::none);
    }
  }
  std::string error;
  auto restored = Aggregator::deserialize(second.serialize(), error);
  ASSERT_TRUE(restored) << error;
  EXPECT_EQ(restored->support(), second.support());
  EXPECT_EQ(restored->mechanism().config().bloom_cohorts, 8u);
  ASSERT_TRUE(first.merge(*restored));
  EXPECT_EQ(first.reports(), whole.reports());
  EXPECT_EQ(first.support(), whole.support());
  // Other cohorts or hashes: another mechanism, refused.
  Mechanism other;
  ASSERT_EQ(Mechanism::configure(bloom_rappor(32, 2, 4), other), Status::ok);
  Aggregator elsewhere(other);
  EXPECT_EQ(first.merge(elsewhere).error, MergeResult::Error::other_parameters);
  // A state cut short, or with a cohort's report count below its bit counts, is refused.
  auto bytes = whole.serialize();
  bytes.pop_back();  // into the sources' list at the end of the state
  EXPECT_FALSE(Aggregator::deserialize(bytes, error));
  EXPECT_NE(error.find("aggregate state"), std::string::npos) << error;
}

TEST(BloomDecode, RefusesMalformedReportsAndConfigurations) {
  Mechanism m;
  ASSERT_EQ(Mechanism::configure(bloom_rappor(32, 2, 8), m), Status::ok);
  port::InsecureTestSource source(1);
  Rng rng(source);
  const port::MemoKey key = tinyldp::test::device_memo_key(1, 23, 1);
  std::vector<std::uint8_t> report;
  ASSERT_EQ(m.privatize(bloom_value("x"), rng, key, wire::Header{}, report), Status::ok);
  const ParseResult parsed = parse_report(report, m.description());
  ASSERT_TRUE(parsed.ok());
  ASSERT_TRUE(parsed.report.header.fields & wire::field_cohort);
  EXPECT_EQ(parsed.report.header.cohort, key.cohort(8));
  Aggregator a(m);
  // The same payload without the cohort field, and with a cohort ≥ m.
  const std::vector<std::uint8_t> payload(parsed.report.payload.begin(), parsed.report.payload.end());
  const auto with_header = [&](wire::Header h) {
    std::vector<std::uint8_t> out(m.description().report_bytes(h.fields));
    std::size_t written = 0;
    EXPECT_EQ(wire::encode(m.description(), h, payload.data(), out.data(), out.size(), written), Status::ok);
    return out;
  };
  EXPECT_EQ(a.ingest(with_header(wire::Header{})), ParseError::missing_cohort);
  wire::Header far;
  far.fields = wire::field_cohort;
  far.cohort = 8;
  EXPECT_EQ(a.ingest(with_header(far)), ParseError::value_out_of_range);
  EXPECT_EQ(a.reports(), 0u);
  EXPECT_EQ(a.ingest(report), ParseError::none);
  // Configurations: Bloom only for the memoized UE family, hashes and cohorts in range.
  ConfigureResult r;
  MechanismConfig c = bloom_rappor(32, 0, 8);
  r = Mechanism::configure(c, m);
  EXPECT_FALSE(r);
  EXPECT_NE(r.reason.find("hashes"), std::string::npos) << r.reason;
  c = bloom_rappor(32, 2, 70000);
  r = Mechanism::configure(c, m);
  EXPECT_NE(r.reason.find("cohorts"), std::string::npos) << r.reason;
  c = bloom_rappor(4096, 2, 4096);
  r = Mechanism::configure(c, m);
  EXPECT_NE(r.reason.find("limit"), std::string::npos) << r.reason;
  MechanismConfig krr;
  krr.id = MechanismId::krr;
  krr.epsilon = Epsilon::from_ratio(1, 1);
  krr.domain = 8;
  krr.bloom_hashes = 2;
  krr.bloom_cohorts = 4;
  r = Mechanism::configure(krr, m);
  EXPECT_NE(r.reason.find("Bloom"), std::string::npos) << r.reason;
  // The decoder: one-hot reports, no candidates, a repeated candidate.
  Mechanism bloom;
  ASSERT_EQ(Mechanism::configure(bloom_rappor(32, 2, 8), bloom), Status::ok);
  std::string error;
  const std::vector<std::string> none, twice = {"a", "b", "a"};
  EXPECT_FALSE(decode_bloom(bloom, a.support(), none, 0.05, error));
  EXPECT_FALSE(decode_bloom(bloom, a.support(), twice, 0.05, error));
  EXPECT_NE(error.find("same value"), std::string::npos) << error;
  MechanismConfig one_hot = bloom_rappor(32, 0, 0);
  Mechanism plain;
  ASSERT_EQ(Mechanism::configure(one_hot, plain), Status::ok);
  std::vector<std::uint64_t> counts(32, 0);
  EXPECT_FALSE(decode_bloom(plain, counts, twice, 0.05, error));
}

}  // namespace
}  // namespace tinyldp::collector
