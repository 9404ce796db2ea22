// SPDX-License-Identifier: Apache-2.0
// The collector's memoized mechanisms (RAPPOR and the UE chains, two_stage_rr.hpp): a fleet
// of devices, each with its own memo key, reports over several rounds; every round's estimate
// is unbiased (each item within 6 standard errors of the truth, with a power check: a 10 %
// error in the channel would be caught), a device's memo survives across rounds (a repeated
// value re-uses it: the same memo bits whatever the IRR), and a report needs a key.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/estimates.hpp"
#include "tinyldp/collector/report_file.hpp"
#include "tinyldp/port/entropy/memo_key.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace {

using namespace tinyldp;
using namespace tinyldp::collector;
using Rng = RandomBits<port::InsecureTestSource>;

// Every device its own secret (the device number in it: devices sharing a key would share
// memos, and their reports would no longer be independent).
port::MemoKey device_key(std::uint32_t device) {
  std::uint8_t secret[32];
  for (int i = 0; i < 32; ++i) secret[i] = static_cast<std::uint8_t>(i * 17 + 1);
  put_le(secret, device);
  port::MemoKey key;
  key.set(secret, 0);
  return key;
}

// A skewed truth over d items: item i held by ⌊n·w_i⌋ devices.
std::vector<std::uint32_t> fleet_values(std::uint32_t n, std::uint32_t d) {
  std::vector<std::uint32_t> v(n);
  for (std::uint32_t i = 0; i < n; ++i) v[i] = (i * i / 7 + i / 3) % d;
  return v;
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
#ifdef TINYLDP_TEST_SANITIZED
  const std::uint32_t n = 100000 / 16;  // the same σ bounds, a sixteenth of the reports
#else
  const std::uint32_t n = 100000;
#endif
  const std::uint32_t d = 12, rounds = 3;
  const auto values = fleet_values(n, d);
  std::vector<double> truth(d, 0);
  for (auto v : values) truth[v] += 1.0 / n;
  MechanismConfig rappor;
  rappor.id = MechanismId::two_stage;
  rappor.domain = d;
  rappor.prr_f = Dyadic{1, 1};
  rappor.irr_p = Dyadic{1, 1};
  rappor.irr_q = Dyadic{3, 2};
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
  Mechanism m;
  MechanismConfig c = chain(MechanismId::l_osue, 8);
  c.epsilon_one = Epsilon{};
  auto r = Mechanism::configure(c, m);
  EXPECT_EQ(r, Status::bad_parameter);
  EXPECT_NE(r.reason.find("epsilon-one"), std::string::npos) << r.reason;
  c.epsilon_one = Epsilon::from_ratio(3, 1);
  r = Mechanism::configure(c, m);
  EXPECT_NE(r.reason.find("must be below epsilon"), std::string::npos) << r.reason;
  MechanismConfig oue;
  oue.id = MechanismId::oue;
  oue.epsilon = Epsilon::from_ratio(1, 1);
  oue.domain = 8;
  oue.epsilon_one = Epsilon::from_ratio(1, 2);
  r = Mechanism::configure(oue, m);
  EXPECT_NE(r.reason.find("memoized"), std::string::npos) << r.reason;
  MechanismConfig rappor;
  rappor.id = MechanismId::two_stage;
  rappor.domain = 8;
  rappor.prr_f = Dyadic{1, 1};
  rappor.irr_p = Dyadic{3, 2};
  rappor.irr_q = Dyadic{1, 1};
  r = Mechanism::configure(rappor, m);
  EXPECT_NE(r.reason.find("p must be below q"), std::string::npos) << r.reason;
}

TEST(Longitudinal, ReportFilesAndStatesKeepTheWholeConfiguration) {
  MechanismConfig rappor;
  rappor.id = MechanismId::two_stage;
  rappor.domain = 20;
  rappor.prr_f = Dyadic{1, 2};
  rappor.irr_p = Dyadic{1, 1};
  rappor.irr_q = Dyadic{3, 2};
  for (const MechanismConfig& c : {chain(MechanismId::l_osue, 20), rappor}) {
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
