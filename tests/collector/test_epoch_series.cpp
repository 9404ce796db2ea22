// SPDX-License-Identifier: Apache-2.0
// Epochs and sources in the collector (aggregator.hpp, epoch_series.hpp, report_file.hpp): a
// memoized aggregate holds one epoch unless it pools them, and only a mechanism with a memo
// covariance model may; the series routes reports by epoch, merges epoch by epoch and
// round-trips; states that overlap in the files they counted, that mix epochs, that are
// malformed, or Bloom states whose cohort cells do not add up are refused; the pooled standard
// error is the textbook one plus the pairs' covariance; report files end in a trailer whose
// digest adds over ranges.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "device_memo_key.hpp"
#include "rappor_config.hpp"
#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/epoch_series.hpp"
#include "tinyldp/collector/estimates.hpp"
#include "tinyldp/collector/report_file.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::collector {
namespace {

using Rng = RandomBits<port::InsecureTestSource>;

Mechanism configured(const MechanismConfig& c) {
  Mechanism m;
  EXPECT_EQ(Mechanism::configure(c, m), Status::ok);
  return m;
}

Mechanism l_osue(std::uint32_t d = 6) {
  MechanismConfig c;
  c.id = MechanismId::l_osue;
  c.epsilon = Epsilon::from_ratio(2, 1);
  c.epsilon_one = Epsilon::from_ratio(1, 1);
  c.domain = d;
  return configured(c);
}

// n devices (device i holds i mod d) report in `epoch` (nullopt: no epoch field).
std::vector<std::vector<std::uint8_t>> reports(const Mechanism& m, std::uint32_t n, std::optional<std::uint32_t> epoch,
                                               std::uint64_t seed) {
  port::InsecureTestSource source(seed);
  Rng rng(source);
  std::vector<std::vector<std::uint8_t>> out;
  for (std::uint32_t i = 0; i < n; ++i) {
    wire::Header h{};
    if (epoch) {
      h.fields |= wire::field_epoch;
      h.epoch = *epoch;
    }
    std::vector<std::uint8_t> r;
    const port::MemoKey key = tinyldp::test::device_memo_key(i, 31, 1);
    EXPECT_EQ(m.privatize(i % m.domain(), rng, key, h, r), Status::ok);
    out.push_back(std::move(r));
  }
  return out;
}

TEST(EpochSeries, AMemoizedAggregateHoldsOneEpochUnlessItPools) {
  const Mechanism m = l_osue();
  Aggregator a(m);
  for (const auto& r : reports(m, 50, 0, 1)) ASSERT_EQ(a.ingest(r), ParseError::none);
  const auto later = reports(m, 50, 1, 2);
  EXPECT_EQ(a.ingest(later[0]), ParseError::other_epoch);
  EXPECT_EQ(a.reports(), 50u);
  ASSERT_TRUE(a.pool_epochs());
  for (const auto& r : later) ASSERT_EQ(a.ingest(r), ParseError::none);
  EXPECT_EQ(a.epochs().size(), 2u);
  EXPECT_EQ(a.epochs().at(0), 50u);
  // A one-shot mechanism's epochs are independent: counted together without asking.
  MechanismConfig oue;
  oue.id = MechanismId::oue;
  oue.epsilon = Epsilon::from_ratio(1, 1);
  oue.domain = 6;
  const Mechanism o = configured(oue);
  Aggregator b(o);
  for (auto e : {0u, 1u})
    for (const auto& r : reports(o, 20, e, 3 + e)) EXPECT_EQ(b.ingest(r), ParseError::none);
  EXPECT_EQ(b.reports(), 40u);
}

TEST(EpochSeries, PoolingNeedsACovarianceModel) {
  EXPECT_TRUE(l_osue().memo_covariance().has_value());
  MechanismConfig mean;
  mean.id = MechanismId::one_bit_mean;
  mean.epsilon = Epsilon::from_ratio(2, 1);
  mean.epsilon_one = Epsilon::from_ratio(1, 1);
  mean.lo = 0;
  mean.hi = 100;
  Aggregator a(configured(mean));
  EXPECT_FALSE(a.pool_epochs());
  EXPECT_FALSE(a.pools_epochs());
  const MechanismConfig bloom = rappor_config(32, Dyadic{1, 2}, Dyadic{1, 2}, Dyadic{3, 2}, 2, 4);
  EXPECT_FALSE(configured(bloom).memo_covariance().has_value());
}

TEST(EpochSeries, RoutesByEpochMergesAndRoundTrips) {
  const Mechanism m = l_osue();
  EpochSeries whole(m), first(m), second(m);
  std::uint64_t k = 0;
  for (std::optional<std::uint32_t> e : {std::optional<std::uint32_t>{}, std::optional<std::uint32_t>(0),
                                         std::optional<std::uint32_t>(3)})
    for (const auto& r : reports(m, 40, e, 10 + ++k)) {
      ASSERT_EQ(whole.ingest(r), ParseError::none);
      ASSERT_EQ((k % 2 ? first : second).ingest(r), ParseError::none);
    }
  EXPECT_EQ(whole.epochs().size(), 3u);
  EXPECT_EQ(whole.reports(), 120u);
  ASSERT_TRUE(first.merge(second));
  EXPECT_EQ(first.serialize(), whole.serialize());
  std::string error;
  const auto back = EpochSeries::deserialize(whole.serialize(), error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->serialize(), whole.serialize());
  const auto pooled = whole.pooled();
  ASSERT_TRUE(pooled);
  EXPECT_EQ(pooled->reports(), 120u);
  EXPECT_TRUE(pooled->pools_epochs());
  // An aggregate state is a series of its one epoch.
  const auto one = EpochSeries::deserialize(whole.epochs().at(3).serialize(), error);
  ASSERT_TRUE(one) << error;
  EXPECT_EQ(one->epochs().size(), 1u);
  EXPECT_EQ(one->epochs().begin()->first, std::optional<std::uint32_t>(3));
}

TEST(EpochSeries, MergesRefuseOtherEpochsAndOverlappingSources) {
  const Mechanism m = l_osue();
  Aggregator a(m), b(m);
  for (const auto& r : reports(m, 30, 0, 21)) a.ingest(r);
  for (const auto& r : reports(m, 30, 1, 22)) b.ingest(r);
  Aggregator copy = a;
  EXPECT_EQ(copy.merge(b).error, MergeResult::Error::other_epochs);
  EXPECT_EQ(copy.serialize(), a.serialize()) << "a refused merge changes nothing";
  ASSERT_TRUE(copy.pool_epochs());
  EXPECT_EQ(copy.merge(b).error, MergeResult::Error::other_epochs) << "both sides must pool";
  ASSERT_TRUE(b.pool_epochs());
  EXPECT_TRUE(copy.merge(b));

  // Sources: the same file whole twice, whole and one epoch of it, one epoch twice — refused;
  // two different epochs of one file, or two files — fine.
  const auto with = [&](std::uint64_t digest, std::optional<std::uint32_t> epoch) {
    Aggregator x(m);
    EXPECT_TRUE(x.add_source({digest, epoch}));
    return x;
  };
  EXPECT_EQ(with(7, {}).merge(with(7, {})).error, MergeResult::Error::same_source);
  EXPECT_EQ(with(7, {}).merge(with(7, 2)).error, MergeResult::Error::same_source);
  EXPECT_EQ(with(7, 2).merge(with(7, 2)).error, MergeResult::Error::same_source);
  EXPECT_TRUE(with(7, 1).merge(with(7, 2)));
  EXPECT_TRUE(with(7, {}).merge(with(8, {})));
  EpochSeries s(m), t(m);
  ASSERT_TRUE(s.add_source({9, {}}));
  EXPECT_FALSE(s.add_source({9, 4}));
  ASSERT_TRUE(t.add_source({9, 4}));
  EXPECT_EQ(s.merge(t).error, MergeResult::Error::same_source);
}

TEST(EpochSeries, MalformedStatesAreRefused) {
  const Mechanism m = l_osue();
  EpochSeries s(m);
  for (const auto& r : reports(m, 20, 0, 31)) s.ingest(r);
  for (const auto& r : reports(m, 20, 1, 32)) s.ingest(r);
  s.add_source({5, {}});
  const auto good = s.serialize();
  std::string error;
  ASSERT_TRUE(EpochSeries::deserialize(good, error)) << error;
  std::size_t refused = 0, tried = 0;
  for (std::size_t cut = 0; cut < good.size(); ++cut, ++tried)  // every prefix
    refused += !EpochSeries::deserialize(std::span(good).first(cut), error);
  EXPECT_EQ(refused, tried) << "a cut state is refused";
  auto extra = good;
  extra.push_back(0);
  EXPECT_FALSE(EpochSeries::deserialize(extra, error));
  // An epoch's own state: epoch counts that do not sum to its reports, or that pool epochs of
  // a mechanism that cannot.
  const Aggregator& e0 = s.epochs().begin()->second;
  auto state = e0.serialize();
  const std::size_t counts_end = state.size() - 4 /* sources */ - 13 /* one epoch */ - 4 - 1;
  auto wrong = state;
  wrong[counts_end + 1 + 4 + 5] ^= 1;  // the epoch's report count
  EXPECT_FALSE(Aggregator::deserialize(wrong, error));
  auto flags = state;
  flags[counts_end] = 4;  // an unknown flag
  EXPECT_FALSE(Aggregator::deserialize(flags, error));
  EXPECT_TRUE(Aggregator::deserialize(state, error)) << error;
}

TEST(EpochSeries, BloomStatesAreCheckedPerCohort) {
  const Mechanism m = configured(rappor_config(8, Dyadic{1, 2}, Dyadic{1, 2}, Dyadic{3, 2}, 2, 4));
  Aggregator a(m);
  port::InsecureTestSource source(41);
  Rng rng(source);
  for (std::uint32_t i = 0; i < 200; ++i) {
    std::vector<std::uint8_t> r;
    const port::MemoKey key = tinyldp::test::device_memo_key(i, 23, 1);
    ASSERT_EQ(m.privatize(i % 5, rng, key, wire::Header{}, r), Status::ok);
    ASSERT_EQ(a.ingest(r), ParseError::none);
  }
  const auto state = a.serialize();
  std::string error;
  ASSERT_TRUE(Aggregator::deserialize(state, error)) << error;
  // Cell layout: per cohort, 8 bit counts then its report count (u64 each), after the header
  // and the report count. Move one report from cohort 0's count to cohort 1's: every count is
  // still at most the total, so only the per-cohort check can see it.
  const std::size_t cells = 8 + report_file_header(m).size() + 8;
  auto crafted = state;
  const auto at = [&](std::size_t cell) { return crafted.data() + cells + 8 * cell; };
  const std::uint64_t c0 = get_le<std::uint64_t>(at(8)), c1 = get_le<std::uint64_t>(at(17));
  ASSERT_GT(c0, 0u);
  // Make cohort 0's report count smaller than one of its bit counts.
  std::uint64_t most = 0;
  for (std::size_t b = 0; b < 8; ++b) most = std::max(most, get_le<std::uint64_t>(at(b)));
  ASSERT_GT(most, 0u);
  put_le(at(8), most - 1);
  put_le(at(17), c1 + (c0 - (most - 1)));
  EXPECT_FALSE(Aggregator::deserialize(crafted, error));
  EXPECT_NE(error.find("cohort"), std::string::npos) << error;
}

TEST(EpochSeries, PooledStandardErrorAddsTheMemoCovariance) {
  const Mechanism m = l_osue();
  Aggregator one(m), pooled(m);
  ASSERT_TRUE(pooled.pool_epochs());
  for (auto e : {0u, 1u, 2u})
    for (const auto& r : reports(m, 300, e, 50 + e)) {
      if (e == 0) one.ingest(r);
      pooled.ingest(r);
    }
  EXPECT_EQ(same_device_pairs(one), 0.0);
  EXPECT_EQ(same_device_pairs(pooled), 6 * 300.0);  // 3 × 2 ordered pairs of epochs, 300 each
  const auto e = estimate(pooled, Postprocess::none, 0.95);
  const Channel ch = m.channel();
  const MemoCovariance cov = *m.memo_covariance();
  const double n = 900, d = ch.p - ch.q;
  for (std::size_t i = 0; i < e.size(); ++i) {
    const double f = std::clamp(e[i].unbiased_frequency, 0.0, 1.0);
    const double expected = count_variance(900, f * n, ch) + 1800 * cov.per_device(f) / (d * d);
    EXPECT_NEAR(e[i].standard_error, std::sqrt(expected) / n, 1e-12) << i;
    EXPECT_GT(e[i].standard_error, std::sqrt(count_variance(900, f * n, ch)) / n * 1.05) << i;
  }
}

TEST(ReportFile, TheTrailerVouchesForTheRecordsAndItsDigestAdds) {
  const Mechanism m = l_osue();
  const auto path = (std::filesystem::temp_directory_path() / "tinyldp_test_trailer.tldp").string();
  const auto rs = reports(m, 25, 0, 61);
  {
    ReportFileWriter w(path, m);
    for (const auto& r : rs) w.write(r);
    EXPECT_FALSE((w.write(std::vector<std::uint8_t>{}), w.ok())) << "an empty report cannot be written";
  }
  {
    ReportFileWriter w(path, m);
    for (const auto& r : rs) w.write(r);
    ASSERT_TRUE(w.close());
  }
  RecordsDigest front, back;
  for (std::size_t i = 0; i < rs.size(); ++i) (i < 10 ? front : back).add(rs[i]);
  front.add(back);
  ReportFileReader reader(path);
  std::vector<std::uint8_t> r;
  std::size_t n = 0;
  while (reader.next(r)) ++n;
  EXPECT_TRUE(reader.ok()) << reader.error();
  EXPECT_TRUE(reader.has_trailer());
  EXPECT_EQ(n, rs.size());
  EXPECT_EQ(reader.digest(), front) << "the digest of two ranges adds up to the file's";
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tinyldp::collector
