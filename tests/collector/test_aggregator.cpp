// SPDX-License-Identifier: Apache-2.0
// Aggregation: exact merge and serialization, untouched state on bad input, estimates with
// intervals, and the post-processing methods.
#include "tinyldp/collector/aggregator.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include "tinyldp/collector/estimates.hpp"
#include "tinyldp/collector/report_file.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::collector {
namespace {

using Rng = RandomBits<port::InsecureTestSource>;

Mechanism make(MechanismId id, std::uint32_t d) {
  Mechanism m;
  EXPECT_EQ(Mechanism::configure({id, Epsilon::from_ratio(2, 1), d, {}}, m), Status::ok);
  return m;
}

// A row's example configuration at ε = 2 (memoized mechanisms: their example as it is).
Mechanism make(const MechanismRow& row) {
  if (!row.example.numeric() && find_mechanism(row.id) != nullptr) {
    Mechanism probe;
    if (Mechanism::configure(row.example, probe) == Status::ok && probe.memoized()) return probe;
  }
  return make(row.id, row.example.domain);
}

// A device's memo key for the memoized mechanisms (a fixed secret: a simulation).
port::MemoKey test_key(std::uint32_t device) {
  std::uint8_t secret[32] = {};
  for (int i = 0; i < 32; ++i) secret[i] = static_cast<std::uint8_t>(i);
  put_le(secret, device);
  port::MemoKey key;
  key.set(secret, 0);
  return key;
}

// Privatizes n values (value = i % d) and feeds them to `sinks` round-robin; device i has its
// own memo key.
void feed(const Mechanism& m, std::uint64_t seed, int n, std::vector<Aggregator*> sinks) {
  port::InsecureTestSource src(seed);
  Rng rng(src);
  for (int i = 0; i < n; ++i) {
    std::vector<std::uint8_t> r;
    ASSERT_EQ(m.privatize(static_cast<std::uint32_t>(i) % m.domain(), rng, test_key(static_cast<std::uint32_t>(i)), {}, r),
              Status::ok);
    ASSERT_EQ(sinks[static_cast<std::size_t>(i) % sinks.size()]->ingest(r), ParseError::none);
  }
}

TEST(Aggregator, ShardsMergeToExactlyTheWhole) {
  for (const auto& row : mechanism_table()) {
    if (row.configure == nullptr || row.kind != MechanismKind::categorical) continue;
    const Mechanism m = make(row);
    Aggregator whole(m), a(m), b(m), c(m);
    feed(m, 1, 3000, {&whole});
    feed(m, 1, 3000, {&a, &b, &c});
    Aggregator merged(m);
    ASSERT_TRUE(merged.merge(c));
    ASSERT_TRUE(merged.merge(a));
    ASSERT_TRUE(merged.merge(b));
    EXPECT_EQ(merged.reports(), whole.reports());
    EXPECT_EQ(merged.support(), whole.support());
  }
}

TEST(Aggregator, LocalHashingSupportMatchesTheCoreHash) {
  // The collector's vectorizable range test must agree with the core's H(s, v) exactly.
  Mechanism m;
  ASSERT_EQ(Mechanism::configure({MechanismId::olh, Epsilon::from_ratio(3, 1), 300, {}}, m), Status::ok);
  port::InsecureTestSource src(9);
  Rng rng(src);
  const std::uint32_t g = 21;  // round(e^3) + 1
  for (int r = 0; r < 200; ++r) {
    std::vector<std::uint8_t> report;
    ASSERT_EQ(m.privatize(static_cast<std::uint32_t>(r), rng, {}, report), Status::ok);
    const auto payload = std::span(report).subspan(wire::fixed_header_bytes);
    std::vector<std::uint64_t> fast(300, 0);
    m.add_support(payload, fast);
    const std::uint64_t bits = wire::unpack_bits(payload.data(), m.description().payload_bits);
    const auto seed = static_cast<std::uint32_t>(bits);
    const auto y = static_cast<std::uint32_t>(bits >> 32);
    ASSERT_LT(y, g);
    for (std::uint32_t i = 0; i < 300; ++i)
      ASSERT_EQ(fast[i], local_hash(seed, i, g) == y ? 1u : 0u) << "item " << i;
  }
}

TEST(Aggregator, SerializationRoundTripsAndRejectsDamage) {
  const Mechanism m = make(MechanismId::oue, 33);
  Aggregator a(m);
  feed(m, 2, 500, {&a});
  const auto bytes = a.serialize();
  std::string error;
  auto back = Aggregator::deserialize(bytes, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->support(), a.support());
  EXPECT_EQ(back->reports(), a.reports());
  auto damaged = bytes;
  damaged[8 + 13] ^= 1;  // ε changes by 1: the digest no longer matches
  EXPECT_FALSE(Aggregator::deserialize(damaged, error));
  damaged = bytes;
  damaged.pop_back();
  EXPECT_FALSE(Aggregator::deserialize(damaged, error));
  EXPECT_FALSE(Aggregator::deserialize({}, error));
}

// States saved by versions 1 and 2 (written by tinyldp before the configuration record was
// shared with report files) still load, with their counts, and are saved again as version 3.
TEST(Aggregator, LegacyStatesStillLoad) {
  const auto from_hex = [](const char* hex) {
    std::vector<std::uint8_t> out;
    for (; hex[0] != 0 && hex[1] != 0; hex += 2)
      out.push_back(static_cast<std::uint8_t>(std::stoul(std::string(hex, 2), nullptr, 16)));
    return out;
  };
  // `tinyldp aggregate --save-state` at a5be199: krr, ε = 1, d = 4, five reports.
  const auto v1 = from_hex(
      "544c4450414747310200000000010000000400000000000000400008000000000000676b07c6000000000500"
      "0000000000000000000000000000030000000000000000000000000000000200000000000000");
  // sd, ε = 1, [0, 9], 3 levels, three reports.
  const auto v2 = from_hex(
      "544c4450414747320900000000010000000300000000000000400008000000000000f3b6b2e3000000000000"
      "0000090000000300000000000000180300000000000000000000000000000002000000000000000100000000"
      "000000");
  const struct {
    const std::vector<std::uint8_t>* bytes;
    MechanismId id;
    std::uint64_t reports;
    std::vector<std::uint64_t> support;
  } cases[] = {{&v1, MechanismId::krr, 5, {0, 3, 0, 2}}, {&v2, MechanismId::sd, 3, {0, 2, 1}}};
  for (const auto& c : cases) {
    std::string error;
    const auto a = Aggregator::deserialize(*c.bytes, error);
    ASSERT_TRUE(a) << error;
    EXPECT_EQ(a->mechanism().config().id, c.id);
    EXPECT_EQ(a->reports(), c.reports);
    EXPECT_EQ(a->support(), c.support);
    const auto again = a->serialize();
    EXPECT_EQ(std::string(again.begin(), again.begin() + 8), "TLDPAGG4");
    const auto back = Aggregator::deserialize(again, error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(back->support(), c.support);
    auto damaged = *c.bytes;
    damaged[8 + 26] ^= 1;  // the digest
    EXPECT_FALSE(Aggregator::deserialize(damaged, error));
    EXPECT_NE(error.find("digest"), std::string::npos) << error;
  }
}

TEST(Aggregator, RefusesToMergeOtherParameters) {
  Aggregator a(make(MechanismId::oue, 10)), b(make(MechanismId::oue, 11)), c(make(MechanismId::sue, 10));
  EXPECT_FALSE(a.merge(b));
  EXPECT_FALSE(a.merge(c));
}

// The label mapping is part of the configuration: recorded in the state (report-file header
// version 3), kept by a round trip, and shards under different mappings, or a mapping recorded
// on one side only, never merge.
TEST(Aggregator, LabelMappingsTravelWithTheStateAndMustAgreeToMerge) {
  const Mechanism m = make(MechanismId::krr, 6);
  LabelDigest edu{}, occ{};
  edu[0] = 0xed;
  occ[31] = 0x0c;
  Aggregator a(m, edu), b(m, edu), c(m, occ), plain(m);
  feed(m, 3, 200, {&a, &b, &c, &plain});
  std::string error;
  const auto bytes = a.serialize();
  // The configuration, the report count, 6 supports, then flags, one epoch entry (reports without
  // the epoch field) and no sources.
  EXPECT_EQ(bytes.size(), 8 + report_file_header_v3_bytes + 8 + 8 * 6 + 1 + 4 + 13 + 4);
  const auto back = Aggregator::deserialize(bytes, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->labels(), LabelMappingId(edu));
  EXPECT_EQ(back->serialize(), bytes);
  EXPECT_FALSE(Aggregator::deserialize(plain.serialize(), error)->labels());

  const auto before = a.support();
  EXPECT_EQ(a.merge(c).error, MergeResult::Error::other_labels);
  EXPECT_EQ(a.merge(plain).error, MergeResult::Error::other_labels);
  EXPECT_EQ(plain.merge(a).error, MergeResult::Error::other_labels);
  EXPECT_EQ(a.support(), before);
  EXPECT_EQ(a.reports(), 50u);
  EXPECT_TRUE(a.merge(b));
  EXPECT_EQ(a.reports(), 100u);
  // An unrecorded mapping may be vouched for once (tinyldp aggregate --labels); a recorded one
  // never changes.
  EXPECT_FALSE(a.assume_labels(occ));
  EXPECT_EQ(a.labels(), LabelMappingId(edu));
  EXPECT_TRUE(plain.assume_labels(edu));
  EXPECT_TRUE(a.merge(plain));
  EXPECT_EQ(a.reports(), 150u);

  // A version 3 header names its mapping; an all-zero digest is not one (unlabelled items
  // have a version 1 or 2 header), and the state's record must be canonical.
  const auto header = report_file_header(m, edu);
  ASSERT_EQ(header.size(), report_file_header_v3_bytes);
  EXPECT_EQ(std::string(header.begin(), header.begin() + 8), "TLDPREP3");
  const auto config = parse_report_file_config(header, error);
  ASSERT_TRUE(config) << error;
  EXPECT_EQ(config->labels, LabelMappingId(edu));
  EXPECT_EQ(config->mechanism.config().id, MechanismId::krr);
  auto zero = header;
  std::fill(zero.begin() + 64, zero.end(), std::uint8_t{0});
  EXPECT_FALSE(parse_report_file_config(zero, error));
  EXPECT_NE(error.find("all-zero label digest"), std::string::npos) << error;
  auto reserved = bytes;
  reserved[8 + 60] = 1;
  EXPECT_FALSE(Aggregator::deserialize(reserved, error));
}

TEST(Aggregator, BadReportsLeaveTheStateUntouched) {
  const Mechanism m = make(MechanismId::krr, 6);
  Aggregator a(m);
  feed(m, 3, 100, {&a});
  const auto before = a.serialize();
  std::vector<std::uint8_t> r;
  port::InsecureTestSource src(4);
  Rng rng(src);
  ASSERT_EQ(m.privatize(1, rng, {}, r), Status::ok);
  auto out_of_range = r;
  out_of_range.back() = 7;
  EXPECT_EQ(a.ingest(out_of_range), ParseError::value_out_of_range);
  EXPECT_EQ(a.ingest(std::span(r).first(5)), ParseError::truncated);
  EXPECT_EQ(a.serialize(), before);
}

TEST(Estimates, IntervalsCoverTheTruthAtTheirLevel) {
  // 200 independent rounds of 2000 OUE reports: the 95 % interval of item 0 (true share 1/4)
  // must cover 1/4 in 95 % ± 4σ of them.
  const Mechanism m = make(MechanismId::oue, 4);
  int covered = 0;
  const int rounds = 200;
  for (int r = 0; r < rounds; ++r) {
    Aggregator a(m);
    feed(m, 100 + static_cast<std::uint64_t>(r), 2000, {&a});
    const auto e = estimate(a, Postprocess::none, 0.95);
    covered += e[0].ci_low <= 0.25 && 0.25 <= e[0].ci_high;
  }
  const double sd = std::sqrt(rounds * 0.95 * 0.05);
  EXPECT_NEAR(covered, 0.95 * rounds, 4 * sd);
  EXPECT_NEAR(normal_quantile_two_sided(0.95), 1.959963984540054, 1e-9);
}

TEST(Estimates, CountsFollowFrequenciesAndIntervalsContainThem) {
  // Every post-processing: count = frequency × n, the interval contains the frequency; with
  // post-processing it lies in [0, 1] and is the unbiased interval cut and stretched, no more.
  const Mechanism m = make(MechanismId::oue, 16);
  Aggregator a(m);
  feed(m, 9, 3000, {&a});  // most items are rare: negative unbiased estimates, clipped
  const auto raw = estimate(a, Postprocess::none, 0.95);
  const double z = normal_quantile_two_sided(0.95);
  for (auto post : {Postprocess::none, Postprocess::clip, Postprocess::norm_sub, Postprocess::simplex}) {
    const auto e = estimate(a, post, 0.95);
    for (std::size_t i = 0; i < e.size(); ++i) {
      EXPECT_DOUBLE_EQ(e[i].count, e[i].frequency * 3000) << name_of(post);
      EXPECT_LE(e[i].ci_low, e[i].frequency) << name_of(post) << " item " << i;
      EXPECT_GE(e[i].ci_high, e[i].frequency) << name_of(post) << " item " << i;
      EXPECT_EQ(e[i].unbiased_frequency, raw[i].unbiased_frequency);
      EXPECT_EQ(e[i].standard_error, raw[i].standard_error);
      const double low = e[i].unbiased_frequency - z * e[i].standard_error;
      const double high = e[i].unbiased_frequency + z * e[i].standard_error;
      if (post == Postprocess::none) {
        EXPECT_NEAR(e[i].ci_low, low, 1e-12);
        EXPECT_NEAR(e[i].ci_high, high, 1e-12);
      } else {
        EXPECT_GE(e[i].ci_low, 0.0);
        EXPECT_LE(e[i].ci_high, 1.0);
        EXPECT_NEAR(e[i].ci_low, std::min(std::max(low, 0.0), e[i].frequency), 1e-12);
        EXPECT_NEAR(e[i].ci_high, std::max(std::min(high, 1.0), e[i].frequency), 1e-12);
      }
    }
  }
}

TEST(Estimates, PostProcessingYieldsDistributions) {
  const std::vector<double> raw = {0.5, 0.4, 0.3, -0.1, -0.05, 0.02};
  for (const auto& f : {clip_and_renormalize(raw), norm_sub(raw), project_onto_simplex(raw)}) {
    EXPECT_NEAR(std::accumulate(f.begin(), f.end(), 0.0), 1.0, 1e-12);
    for (double x : f) EXPECT_GE(x, 0.0);
  }
  // The positive entries sum to ≥ 1 here, so norm-sub and the projection coincide.
  const auto a = norm_sub(raw), b = project_onto_simplex(raw);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-12);
  // The projection is the closest distribution: compare with clip's answer.
  auto dist = [&](const std::vector<double>& f) {
    double s = 0;
    for (std::size_t i = 0; i < f.size(); ++i) s += (f[i] - raw[i]) * (f[i] - raw[i]);
    return s;
  };
  EXPECT_LE(dist(b), dist(clip_and_renormalize(raw)));
}

TEST(Estimates, CappedSimplexKeepsWhatSumsBelowOneAndIsNeverFartherFromAPossibleTruth) {
  // Below 1: unchanged but for negatives (the rest is values outside the list).
  EXPECT_EQ(project_onto_capped_simplex({0.2, 0.3, 0.1}), (std::vector<double>{0.2, 0.3, 0.1}));
  EXPECT_EQ(project_onto_capped_simplex({0.2, -0.1, 0.5}), (std::vector<double>{0.2, 0.0, 0.5}));
  // Above 1: onto the simplex, the same point as norm-sub for non-negative entries.
  const std::vector<double> over = {0.6, 0.3, 0.2, 0.05, 0.0};
  const auto capped = project_onto_capped_simplex(over);
  EXPECT_NEAR(std::accumulate(capped.begin(), capped.end(), 0.0), 1.0, 1e-12);
  const auto ns = norm_sub(over);
  for (std::size_t i = 0; i < over.size(); ++i) EXPECT_NEAR(capped[i], ns[i], 1e-12);
  // A projection onto a convex set holding every possible truth never moves away from one:
  // random points t with t ≥ 0, Σ t ≤ 1 against random frequencies f (fixed seed).
  std::mt19937_64 draw(5);
  std::uniform_real_distribution<double> unit(0, 1), wide(-0.3, 0.8);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<double> f(6), t(6);
    double total = 0;
    for (double& x : t) total += x = unit(draw);
    const double scale = unit(draw) / total;  // Σ t ∈ [0, 1]
    for (double& x : t) x *= scale;
    for (double& x : f) x = wide(draw);
    const auto p = project_onto_capped_simplex(f);
    double before = 0, after = 0, sum = 0;
    for (std::size_t i = 0; i < f.size(); ++i) {
      EXPECT_GE(p[i], 0.0);
      sum += p[i];
      before += (f[i] - t[i]) * (f[i] - t[i]);
      after += (p[i] - t[i]) * (p[i] - t[i]);
    }
    EXPECT_LE(sum, 1 + 1e-12);
    EXPECT_LE(after, before + 1e-12);
  }
}

TEST(ReportFile, HugeDeclaredDomainsAreRefusedBeforeAnyAllocation) {
  // Found by the fuzzer: an OLH header declaring 2^30 items made the collector allocate 4 GiB.
  Mechanism m;
  ASSERT_EQ(Mechanism::configure({MechanismId::olh, Epsilon::from_ratio(1, 1), 10, {}}, m), Status::ok);
  auto header = report_file_header(m);
  header[17] = 0;
  header[18] = 0;
  header[19] = 0;
  header[20] = 0x40;  // domain = 2^30
  std::string error;
  EXPECT_FALSE(parse_report_file_header(header, error));
  EXPECT_NE(error.find("invalid mechanism"), std::string::npos) << error;
  Mechanism big;
  EXPECT_EQ(Mechanism::configure({MechanismId::olh, Epsilon::from_ratio(1, 1), max_collector_domain + 1, {}}, big),
            Status::bad_parameter);
}

// A crafted state whose report count is near 2^64 must not wrap the merged count around (it
// once printed "reports": 2 and a frequency of 9.98e18): the merge is refused, nothing changes.
TEST(Aggregator, MergeRefusesCountsThatWouldOverflow) {
  const Mechanism m = make(MechanismId::krr, 4);
  Aggregator five(m), crafted_source(m);
  feed(m, 2, 5, {&five});
  auto bytes = crafted_source.serialize();
  // As an older (TLDPAGG3) state, which knows no epochs: version 4's tail (flags, no epoch
  // entries, no sources: 9 bytes) goes, and the report count can be anything.
  bytes.erase(bytes.end() - 9, bytes.end());
  bytes[7] = '3';
  // reports (u64) sits right before the support counts; all supports stay 0 ≤ reports.
  const std::size_t reports_at = bytes.size() - 8 * m.domain() - 8;
  const std::uint64_t huge = ~std::uint64_t{0} - 2;
  for (int i = 0; i < 8; ++i) bytes[reports_at + i] = static_cast<std::uint8_t>(huge >> (8 * i));
  std::string error;
  const auto crafted = Aggregator::deserialize(bytes, error);
  ASSERT_TRUE(crafted.has_value()) << error;
  const auto before = five.serialize();
  const MergeResult r = five.merge(*crafted);
  EXPECT_FALSE(r);
  EXPECT_EQ(r.error, MergeResult::Error::count_overflow);
  EXPECT_EQ(five.serialize(), before);
  EXPECT_EQ(five.reports(), 5u);
  // The other way round too.
  Aggregator big = *crafted;
  EXPECT_EQ(big.merge(five).error, MergeResult::Error::count_overflow);
  EXPECT_EQ(big.reports(), huge);
}

}  // namespace
}  // namespace tinyldp::collector
