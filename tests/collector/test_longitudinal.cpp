// SPDX-License-Identifier: Apache-2.0
// The collector's memoized mechanisms (RAPPOR and the UE chains, two_stage_rr.hpp; L-GRR,
// LOLOHA, BiLOLOHA and 1BitMean on the GRR chain, longitudinal_grr.hpp): a fleet of devices,
// each with its own memo key, reports over several rounds; every round's estimate is unbiased
// (each item, or the mean, within 6 standard errors of the truth, with a power check: a 10 % —
// for the GRR chains 5 % — error in the channel, or a mean off by 2 % of the range, would be
// caught), a device's memo survives across rounds (a repeated value re-uses it: the same memo
// bits whatever the IRR), and a report needs a key.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "device_memo_key.hpp"
#include "rappor_config.hpp"
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

port::MemoKey device_key(std::uint32_t device) { return tinyldp::test::device_memo_key(device, 17, 1); }

// A skewed truth over d items: item i held by ⌊n·w_i⌋ devices.
std::vector<std::uint32_t> fleet_values(std::uint32_t n, std::uint32_t d) {
  std::vector<std::uint32_t> v(n);
  for (std::uint32_t i = 0; i < n; ++i) v[i] = (i * i / 7 + i / 3) % d;
  return v;
}

// The fleet's values over `rounds` rounds: before each later round a device's value changes
// with probability 0.3 to the value of a device drawn at random (fixed seed), so some memos are
// re-used and some are new, and the truth moves between rounds.
std::vector<std::vector<std::uint32_t>> fleet_over_rounds(std::vector<std::uint32_t> values,
                                                          std::uint32_t rounds) {
  std::mt19937_64 changes(2024);
  std::uniform_real_distribution<double> unit(0, 1);
  std::uniform_int_distribution<std::size_t> pick(0, values.size() - 1);
  const std::vector<std::uint32_t> column = values;
  std::vector<std::vector<std::uint32_t>> out;
  for (std::uint32_t r = 0; r < rounds; ++r) {
    if (r > 0)
      for (auto& v : values)
        if (unit(changes) < 0.3) v = column[pick(changes)];
    out.push_back(values);
  }
  return out;
}

MechanismConfig chain(MechanismId id, std::uint32_t d) {
  MechanismConfig c;
  c.id = id;
  c.epsilon = Epsilon::from_ratio(2, 1);
  c.epsilon_one = Epsilon::from_ratio(1, 1);
  c.domain = d;
  return c;
}

TEST(Longitudinal, EveryRoundsEstimateIsUnbiasedForEveryChainAndRappor) {
  // Under a sanitizer the same σ bounds, a sixteenth of the reports.
  const std::uint32_t n = test::sample_size(100000, 100000 / 16);
  const std::uint32_t d = 12, rounds = 3;
  const auto values = fleet_values(n, d);
  std::vector<double> truth(d, 0);
  for (auto v : values) truth[v] += 1.0 / n;
  const MechanismConfig rappor = rappor_config(d, Dyadic{1, 1}, Dyadic{1, 1}, Dyadic{3, 2});
  const MechanismConfig configs[] = {chain(MechanismId::l_sue, d), chain(MechanismId::l_osue, d),
                                     chain(MechanismId::l_oue, d), chain(MechanismId::l_soue, d), rappor};
  std::vector<port::MemoKey> keys;
  for (std::uint32_t i = 0; i < n; ++i) keys.push_back(device_key(i));
  for (const auto& c : configs) {
    Mechanism m;
    ASSERT_EQ(Mechanism::configure(c, m), Status::ok) << name_of(c.id);
    ASSERT_TRUE(m.memoized());
    ASSERT_TRUE(m.epsilon_infinity().has_value());
    EXPECT_LT(m.local_epsilon().q32, m.epsilon_infinity()->q32);
    port::InsecureTestSource src(77);
    Rng rng(src);
    double worst_z = 0;
    for (std::uint32_t round = 0; round < rounds; ++round) {
      Aggregator agg(m);
      for (std::uint32_t i = 0; i < n; ++i) {
        std::vector<std::uint8_t> r;
        ASSERT_EQ(m.privatize(values[i], rng, keys[i], {}, r), Status::ok);
        ASSERT_EQ(agg.ingest(r), ParseError::none);
      }
      const auto est = estimate(agg, Postprocess::none);
      for (std::uint32_t i = 0; i < d; ++i) {
        const double z = std::fabs(est[i].unbiased_frequency - truth[i]) / est[i].standard_error;
        worst_z = std::max(worst_z, z);
        EXPECT_LT(z, 6.0) << name_of(c.id) << " round " << round << " item " << i;
      }
    }
#ifndef TINYLDP_TEST_SANITIZED
    // Power: a channel whose P(1 | unset) were off by 10 % of q* − p* would bias every estimate
    // by 0.1, beyond the 6σ bound (σ of an item's frequency ≈ √(p*(1 − p*)/n)/(q* − p*)).
    const auto ch = m.channel();
    EXPECT_GT(0.1 * (ch.p - ch.q), 6.0 * std::sqrt(ch.q * (1 - ch.q) / n)) << name_of(c.id);
#endif
    EXPECT_LT(worst_z, 6.0);
  }
}

// Under a sanitizer the same σ bounds, a sixteenth of the reports.
constexpr std::uint32_t fleet_size = test::sample_size(100000, 100000 / 16);

TEST(Longitudinal, EveryRoundsEstimateIsUnbiasedForLgrrAndLoloha) {
  const std::uint32_t n = fleet_size, rounds = 3;
  std::vector<port::MemoKey> keys;
  for (std::uint32_t i = 0; i < n; ++i) keys.push_back(device_key(i));
  for (const MechanismConfig& c : {chain(MechanismId::l_grr, 12), chain(MechanismId::loloha, 40),
                                   chain(MechanismId::biloloha, 40)}) {
    Mechanism m;
    ASSERT_EQ(Mechanism::configure(c, m), Status::ok) << name_of(c.id);
    ASSERT_TRUE(m.memoized());
    EXPECT_LT(m.local_epsilon().q32, m.epsilon_infinity()->q32);
    const auto history = fleet_over_rounds(fleet_values(n, c.domain), rounds);
    port::InsecureTestSource src(78);
    Rng rng(src);
    for (std::uint32_t round = 0; round < rounds; ++round) {
      std::vector<double> truth(c.domain, 0);
      for (auto v : history[round]) truth[v] += 1.0 / n;
      Aggregator agg(m);
      for (std::uint32_t i = 0; i < n; ++i) {
        std::vector<std::uint8_t> r;
        ASSERT_EQ(m.privatize(history[round][i], rng, keys[i], {}, r), Status::ok);
        ASSERT_EQ(agg.ingest(r), ParseError::none);
      }
      const auto est = estimate(agg, Postprocess::none);
      for (std::uint32_t i = 0; i < c.domain; ++i)
        EXPECT_LT(std::fabs(est[i].unbiased_frequency - truth[i]), 6.0 * est[i].standard_error)
            << name_of(c.id) << " round " << round << " item " << i << ": " << est[i].unbiased_frequency
            << " vs " << truth[i];
    }
#ifndef TINYLDP_TEST_SANITIZED
    // Power: a channel whose q were off by 5 % of p − q would bias every estimate by 0.05,
    // beyond the 6σ bound of an item nobody holds (σ = √(q(1 − q)/n)/(p − q)).
    const auto ch = m.channel();
    EXPECT_GT(0.05 * (ch.p - ch.q), 6.0 * std::sqrt(ch.q * (1 - ch.q) / n)) << name_of(c.id);
#endif
  }
}

// 1BitMean over [lo, hi] = [−20, 80] with grid step 25: the mean of every round within 6 SE of
// the truth, and the SE the collector reports is the theory's, √(Σ σ_i(1 − σ_i))·m/(n(p* − q*))
// with σ_i = q* + ((x_i − lo)/m)(p* − q*), within 3 %.
TEST(Longitudinal, EveryRoundsMeanIsUnbiasedForOneBitMean) {
  const std::uint32_t n = 2 * fleet_size, rounds = 3;  // one bit per report: twice the fleet
  MechanismConfig c;
  c.id = MechanismId::one_bit_mean;
  c.epsilon = Epsilon::from_ratio(2, 1);
  c.epsilon_one = Epsilon::from_ratio(1, 1);
  c.lo = -20;
  c.hi = 80;
  c.grid_step = 25;
  Mechanism m;
  ASSERT_EQ(Mechanism::configure(c, m), Status::ok);
  ASSERT_TRUE(m.memoized() && m.numeric());
  EXPECT_EQ(*m.most_memos(), 5u);  // grid points 0, 25, 50, 75, 100
  const NumericModel model = numeric_model(m);
  const Channel ch = m.channel();
  const double width = c.hi - c.lo;
  // Values 0 … 100 (offsets from lo), skewed, so that the rounding has work to do.
  std::vector<std::uint32_t> offsets(n);
  for (std::uint32_t i = 0; i < n; ++i) offsets[i] = i % 3 == 0 ? (i * i / 11 + i / 7) % 101 : (i % 5) * 9 + 3;
  const auto history = fleet_over_rounds(offsets, rounds);
  port::InsecureTestSource src(79);
  Rng rng(src);
  [[maybe_unused]] double last_se = 0;
  for (std::uint32_t round = 0; round < rounds; ++round) {
    double truth = 0, spread = 0;
    for (auto x : history[round]) {
      truth += (c.lo + static_cast<double>(x)) / n;
      const double sigma = ch.q + (x / width) * (ch.p - ch.q);
      spread += sigma * (1 - sigma);
    }
    Aggregator agg(m);
    for (std::uint32_t i = 0; i < n; ++i) {
      std::vector<std::uint8_t> r;
      ASSERT_EQ(m.privatize(c.lo + static_cast<std::int64_t>(history[round][i]), rng, device_key(i), {}, r),
                Status::ok);
      ASSERT_EQ(agg.ingest(r), ParseError::none);
    }
    const MeanEstimate e = estimate_mean(agg, model);
    EXPECT_LT(std::fabs(e.mean - truth), 6.0 * e.standard_error) << "round " << round << ": " << e.mean << " vs " << truth;
    const double theory = std::sqrt(spread) * width / (n * (ch.p - ch.q));
    EXPECT_NEAR(e.standard_error / theory, 1.0, 0.03) << "round " << round;
    last_se = e.standard_error;
    std::printf("1bitmean round %u: mean %.3f (SE %.3f), truth %.3f\n", round, e.mean, e.standard_error, truth);
  }
#ifndef TINYLDP_TEST_SANITIZED
  EXPECT_GT(0.02 * width, 6.0 * last_se);  // power: a mean off by 2 % of the range is caught
#endif
  // Out of [lo, hi]: no report, from either side.
  std::vector<std::uint8_t> r;
  EXPECT_EQ(m.privatize(c.lo - 1, rng, device_key(0), {}, r), Status::value_out_of_domain);
  EXPECT_EQ(m.privatize(c.hi + 1, rng, device_key(0), {}, r), Status::value_out_of_domain);
  EXPECT_TRUE(r.empty());
}

TEST(Longitudinal, AReportNeedsTheDevicesKeyAndCarriesItsGeneration) {
  Mechanism m;
  ASSERT_EQ(Mechanism::configure(chain(MechanismId::l_osue, 8), m), Status::ok);
  port::InsecureTestSource src(3);
  Rng rng(src);
  std::vector<std::uint8_t> r;
  EXPECT_EQ(m.privatize(3, rng, {}, r), Status::bad_parameter);  // no key, no report
  EXPECT_TRUE(r.empty());
  port::MemoKey key = device_key(5);
  std::uint8_t secret[32] = {1};
  key.set(secret, 9);
  ASSERT_EQ(m.privatize(3, rng, key, {}, r), Status::ok);
  const ParseResult p = parse_report(r, m.description());
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p.report.header.fields & wire::field_memo_generation);
  EXPECT_EQ(p.report.header.memo_generation, 9u);
}

TEST(Longitudinal, ConfigurationsAreRefusedWithTheirReason) {
  // Each configuration is a chain's at ε∞ = 2, ε₁ = 1 (or another id's), changed by `change`.
  struct Case {
    MechanismId id;
    std::uint32_t domain;
    void (*change)(MechanismConfig&);
    const char* reason;
  };
  const Case cases[] = {
      {MechanismId::l_osue, 8, [](MechanismConfig& c) { c.epsilon_one = Epsilon{}; }, "needs epsilon-one"},
      {MechanismId::l_osue, 8, [](MechanismConfig& c) { c.epsilon_one = Epsilon::from_ratio(3, 1); },
       "must be below epsilon"},
      {MechanismId::oue, 8, [](MechanismConfig& c) { c.epsilon_one = Epsilon::from_ratio(1, 2); }, "memoized"},
      {MechanismId::rappor, 8,
       [](MechanismConfig& c) {
         c.epsilon = c.epsilon_one = Epsilon{};
         c.prr_f = Dyadic{1, 1};
         c.irr_p = Dyadic{3, 2};
         c.irr_q = Dyadic{1, 1};
       },
       "p must be below q"},
      // The GRR chains: the same budgets, their domains, and 1BitMean's range and grid.
      {MechanismId::l_grr, 8, [](MechanismConfig& c) { c.epsilon_one = Epsilon{}; }, "l-grr needs epsilon-one"},
      {MechanismId::loloha, 1, [](MechanismConfig&) {}, "loloha needs a domain"},
      {MechanismId::loloha, 8, [](MechanismConfig& c) { c.prr_f = Dyadic{1, 1}; }, "f, p and q are rappor's parameters"},
      {MechanismId::one_bit_mean, 0,
       [](MechanismConfig& c) {
         c.hi = 100;
         c.grid_step = 7;
       },
       "grid-step must divide hi − lo = 100 (got 7)"},
      {MechanismId::one_bit_mean, 0, [](MechanismConfig&) {}, "1bitmean needs a value range with hi above lo"},
      {MechanismId::one_bit_mean, 0, [](MechanismConfig& c) { c.hi = (1 << 30) + 1; }, "hi − lo ≤ 2^30"},
      {MechanismId::krr, 8,
       [](MechanismConfig& c) {
         c.epsilon_one = Epsilon{};
         c.grid_step = 4;
       },
       "grid-step is a parameter of 1bitmean and dbitflip, not krr"},
  };
  for (const Case& k : cases) {
    MechanismConfig c = chain(k.id, k.domain);
    k.change(c);
    Mechanism m;
    const auto r = Mechanism::configure(c, m);
    EXPECT_EQ(r, Status::bad_parameter) << k.reason;
    EXPECT_NE(r.reason.find(k.reason), std::string::npos) << r.reason;
  }
}

TEST(Longitudinal, OneBitMeansGridStepDefaultsToTheRangeAndIsKeptInTheHeader) {
  MechanismConfig c = chain(MechanismId::one_bit_mean, 0);
  c.lo = 10;
  c.hi = 110;
  Mechanism one_cell, four_cells;
  ASSERT_EQ(Mechanism::configure(c, one_cell), Status::ok);
  EXPECT_EQ(one_cell.config().grid_step, 100u);  // the ends only: two memos at most
  EXPECT_EQ(*one_cell.most_memos(), 2u);
  EXPECT_EQ(one_cell.config().noise_bits, 32u);  // the memo's rounding bits R
  c.grid_step = 25;
  ASSERT_EQ(Mechanism::configure(c, four_cells), Status::ok);
  EXPECT_NE(one_cell.description().digest, four_cells.description().digest);
  const auto header = report_file_header(four_cells);
  std::string error;
  const auto back = parse_report_file_config(header, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->mechanism.config().grid_step, 25u);
  EXPECT_EQ(back->mechanism.config().lo, 10);
  auto tampered = header;
  tampered[report_file_header_v3_bytes + 35] = 20;  // grid step 25 → 20: another digest
  EXPECT_FALSE(parse_report_file_config(tampered, error));
  EXPECT_NE(error.find("digest"), std::string::npos) << error;
  tampered[report_file_header_v3_bytes + 35] = 0;  // 0: not the canonical 25 (nor the digest's)
  EXPECT_FALSE(parse_report_file_config(tampered, error));
  // Devices report offsets from lo, so the digest does not see lo: states of another lo do
  // not merge all the same.
  c.lo = 0;
  c.hi = 100;
  Mechanism shifted;
  ASSERT_EQ(Mechanism::configure(c, shifted), Status::ok);
  EXPECT_EQ(shifted.description().digest, four_cells.description().digest);
  Aggregator a(four_cells), b(shifted);
  EXPECT_FALSE(a.merge(b));
}

TEST(Longitudinal, ReportFilesAndStatesKeepTheWholeConfiguration) {
  const MechanismConfig rappor = rappor_config(20, Dyadic{1, 2}, Dyadic{1, 1}, Dyadic{3, 2});
  for (const MechanismConfig& c : {chain(MechanismId::l_osue, 20), rappor, chain(MechanismId::l_grr, 20),
                                   chain(MechanismId::loloha, 20), chain(MechanismId::biloloha, 20)}) {
    Mechanism m;
    ASSERT_EQ(Mechanism::configure(c, m), Status::ok);
    const auto header = report_file_header(m);
    ASSERT_EQ(header.size(), report_file_header_v4_bytes);
    std::string error;
    const auto back = parse_report_file_config(header, error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(back->mechanism.description().digest, m.description().digest);
    EXPECT_EQ(back->mechanism.config().epsilon_one.q32, c.epsilon_one.q32);
    EXPECT_FALSE(back->labels.has_value());
    auto tampered = header;
    tampered.back() = 1;  // a reserved byte
    EXPECT_FALSE(parse_report_file_config(tampered, error));
    EXPECT_NE(error.find("reserved"), std::string::npos) << error;
    tampered = header;
    tampered[report_file_header_v3_bytes + 5] = 0x7F;  // ε₁ above ε∞, or f ≥ 1: refused
    EXPECT_FALSE(parse_report_file_config(tampered, error));
    // A saved state carries the same header and reads back to the same counts.
    Aggregator agg(m);
    port::InsecureTestSource src(5);
    Rng rng(src);
    for (std::uint32_t i = 0; i < 500; ++i) {
      std::vector<std::uint8_t> r;
      ASSERT_EQ(m.privatize(i % 20, rng, device_key(i), {}, r), Status::ok);
      ASSERT_EQ(agg.ingest(r), ParseError::none);
    }
    const auto bytes = agg.serialize();
    const auto restored = Aggregator::deserialize(bytes, error);
    ASSERT_TRUE(restored) << error;
    EXPECT_EQ(restored->serialize(), bytes);
    EXPECT_EQ(restored->support(), agg.support());
  }
}

}  // namespace
}  // namespace tinyldp::collector
