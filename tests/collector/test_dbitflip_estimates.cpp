// SPDX-License-Identifier: Apache-2.0
// dBitFlip on the collector (dbitflip.hpp; DBitFlipModel): a fleet of devices, each with its own
// memo key (ChaCha20), reports a counter over three rounds whose values move; per round every
// bucket's frequency, two bins and the mean are within 6 standard errors of the truth (the
// α-rounded distribution the devices' values give), each bucket's SE is the channel's formula
// at the truth within 5 %, the mean's SE the formula of numeric_estimate.hpp within 10 %, and a
// report whose sampled buckets are not ascending is refused. Fixed seeds.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "device_memo_key.hpp"
#include "sample_size.hpp"
#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/estimates.hpp"
#include "tinyldp/collector/numeric_estimate.hpp"
#include "tinyldp/collector/report_file.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::collector {
namespace {

using Rng = RandomBits<port::InsecureTestSource>;

port::MemoKey device_key(std::uint32_t device) { return tinyldp::test::device_memo_key(device, 23, 9); }

MechanismConfig dbitflip_config() {
  MechanismConfig c;
  c.id = MechanismId::dbitflip;
  c.domain = 0;  // numeric: the items (buckets) follow from the range and the grid step
  c.epsilon = Epsilon::from_ratio(2, 1);
  c.epsilon_one = Epsilon::from_ratio(1, 1);
  c.lo = -20;
  c.hi = 80;
  c.grid_step = 25;  // buckets at -20, 5, 30, 55, 80
  c.sampled = 2;
  return c;
}

TEST(DBitFlip, EveryRoundsBucketsBinsAndMeanAreUnbiased) {
  const std::uint32_t n = test::sample_size(200000, 8000);
  const MechanismConfig c = dbitflip_config();
  Mechanism m;
  ASSERT_EQ(Mechanism::configure(c, m), Status::ok);
  ASSERT_TRUE(m.memoized() && m.numeric());
  ASSERT_EQ(m.domain(), 5u);
  EXPECT_EQ(*m.most_memos(), 3u);  // d + 1 slots
  const NumericModel model = numeric_model(m);
  const Channel ch = m.channel();
  port::InsecureTestSource src(83);
  Rng rng(src);
  for (std::uint32_t round = 0; round < 3; ++round) {
    // Skewed values 0 … 100 (offsets from lo); a quarter of the devices move by 20 per round.
    std::vector<double> truth(5, 0.0);
    double truth_mean = 0;
    Aggregator agg(m);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t base = i % 3 == 0 ? (i * i / 11 + i / 7) % 101 : (i % 5) * 9 + 3;
      const std::uint32_t x = (base + (i % 4 == 0 ? 20 * round : 0)) % 101;
      for (const auto& [item, w] : m.item_weights(c.lo + std::int64_t{x})) truth[item] += w / n;
      truth_mean += (c.lo + static_cast<double>(x)) / n;
      std::vector<std::uint8_t> r;
      ASSERT_EQ(m.privatize(c.lo + std::int64_t{x}, rng, device_key(i), {}, r), Status::ok);
      ASSERT_EQ(agg.ingest(r), ParseError::none);
    }
    const auto items = estimate_distribution(agg, model, Postprocess::none);
    ASSERT_EQ(items.size(), 5u);
    for (std::uint32_t v = 0; v < 5; ++v) {
      EXPECT_LT(std::fabs(items[v].unbiased_frequency - truth[v]), 6 * items[v].standard_error)
          << "round " << round << " bucket " << v;
      const double sigma = ch.q + truth[v] * (ch.p - ch.q);
      const double theory = std::sqrt(sigma * (1 - sigma) / n) / (ch.p - ch.q);
      EXPECT_NEAR(items[v].standard_error / theory, 1.0, 0.05) << "round " << round << " bucket " << v;
#ifndef TINYLDP_TEST_SANITIZED
      EXPECT_LT(6 * items[v].standard_error, 0.06);  // power: a bucket off by 0.06 is caught
#endif
    }
    const auto bins = estimate_bins(agg, model, {0, 2}, Postprocess::none);
    const double low = truth[0] + truth[1], high = truth[2] + truth[3] + truth[4];
    EXPECT_LT(std::fabs(bins[0].unbiased_frequency - low), 6 * bins[0].standard_error) << "round " << round;
    EXPECT_LT(std::fabs(bins[1].unbiased_frequency - high), 6 * bins[1].standard_error) << "round " << round;
    const MeanEstimate e = estimate_mean(agg, model);
    EXPECT_LT(std::fabs(e.mean - truth_mean), 6 * e.standard_error) << "round " << round;
    std::vector<double> centred(5);
    for (std::uint32_t v = 0; v < 5; ++v) centred[v] = model.atom_value[v] - 30;
    const double theory = std::sqrt(sampled_linear_variance(model, centred, truth, n));
    EXPECT_NEAR(e.standard_error / theory, 1.0, 0.1) << "round " << round;
    std::printf("dbitflip round %u: mean %.3f (SE %.3f), truth %.3f; bucket 0 %.4f (SE %.4f), truth %.4f\n", round,
                e.mean, e.standard_error, truth_mean, items[0].unbiased_frequency, items[0].standard_error, truth[0]);
  }
}

TEST(DBitFlip, ReportsAreCheckedAndTheConfigurationKeptInFiles) {
  const MechanismConfig c = dbitflip_config();
  Mechanism m;
  ASSERT_EQ(Mechanism::configure(c, m), Status::ok);
  port::InsecureTestSource src(5);
  Rng rng(src);
  std::vector<std::uint8_t> r;
  ASSERT_EQ(m.privatize(7, rng, device_key(1), {}, r), Status::ok);
  Aggregator agg(m);
  EXPECT_EQ(agg.ingest(r), ParseError::none);
  // The payload's two bucket indices (3 bits each) made equal: not a sample a device draws.
  std::vector<std::uint8_t> bad = r;
  const std::size_t at = bad.size() - m.description().payload_bytes();
  const std::uint8_t first = bad[at] & 7u;
  bad[at] = static_cast<std::uint8_t>((bad[at] & ~(7u << 3)) | (first << 3));
  EXPECT_EQ(agg.ingest(bad), ParseError::value_out_of_range);
  EXPECT_EQ(agg.reports(), 1u);
  // Out of [lo, hi]: nothing.
  std::vector<std::uint8_t> none;
  EXPECT_EQ(m.privatize(c.hi + 1, rng, device_key(1), {}, none), Status::value_out_of_domain);
  EXPECT_TRUE(none.empty());
  // Refusals name the parameter.
  MechanismConfig wrong = c;
  wrong.sampled = 6;
  Mechanism w;
  const auto refused = Mechanism::configure(wrong, w);
  EXPECT_FALSE(refused);
  EXPECT_NE(refused.reason.find("sampled-buckets"), std::string::npos) << refused.reason;
  wrong = c;
  wrong.id = MechanismId::one_bit_mean;
  EXPECT_NE(Mechanism::configure(wrong, w).reason.find("dbitflip"), std::string::npos);
  // The report file's header carries d: the mechanism rebuilt from it is the same.
  const std::vector<std::uint8_t> header = report_file_header(m);
  std::string error;
  const auto back = parse_report_file_header(header, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->config().sampled, 2u);
  EXPECT_EQ(back->description().digest, m.description().digest);
}

}  // namespace
}  // namespace tinyldp::collector
