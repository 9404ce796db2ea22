// SPDX-License-Identifier: Apache-2.0
// Strict parsing: every kind of malformed report is rejected with its reason.
#include "tinyldp/collector/report_parser.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "tinyldp/collector/mechanism.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::collector {
namespace {

using Rng = RandomBits<port::InsecureTestSource>;

Mechanism make(MechanismId id, std::uint32_t d, double eps = 1.0) {
  Mechanism m;
  MechanismConfig c{id, Epsilon::from_q32(static_cast<std::uint64_t>(eps * 4294967296.0)), d, {}};
  EXPECT_EQ(Mechanism::configure(c, m), Status::ok);
  return m;
}

std::vector<std::uint8_t> one_report(const Mechanism& m, std::uint32_t v, wire::Header h = {}) {
  port::InsecureTestSource src(5);
  Rng rng(src);
  std::vector<std::uint8_t> out;
  EXPECT_EQ(m.privatize(v, rng, h, out), Status::ok);
  return out;
}

TEST(ReportParser, AcceptsAValidReportWithEveryOptionalField) {
  const Mechanism m = make(MechanismId::oue, 20);
  wire::Header h;
  h.fields = wire::field_device_id | wire::field_epoch | wire::field_cohort;
  h.device_id = 0xDEADBEEF;
  h.epoch = 7;
  h.cohort = 300;
  const auto bytes = one_report(m, 3, h);
  ASSERT_EQ(bytes.size(), 7u + 10u + 3u);
  const ParseResult r = parse_report(bytes, m.description());
  ASSERT_TRUE(r.ok()) << to_string(r.error);
  EXPECT_EQ(r.report.header.device_id, 0xDEADBEEFu);
  EXPECT_EQ(r.report.header.epoch, 7u);
  EXPECT_EQ(r.report.header.cohort, 300u);
  EXPECT_EQ(r.report.payload.size(), 3u);
}

TEST(ReportParser, RejectsEachKindOfMalformedReport) {
  const Mechanism m = make(MechanismId::oue, 20);
  const auto good = one_report(m, 3);
  const auto& d = m.description();
  auto expect = [&](std::vector<std::uint8_t> bytes, ParseError e) {
    EXPECT_EQ(parse_report(bytes, d).error, e) << to_string(e);
  };
  expect({}, ParseError::truncated);
  expect({good.begin(), good.begin() + 6}, ParseError::truncated);
  expect({good.begin(), good.end() - 1}, ParseError::truncated);
  auto longer = good;
  longer.push_back(0);
  expect(longer, ParseError::oversized);
  auto version = good;
  version[0] = 3;
  expect(version, ParseError::bad_version);
  version[0] = 2;  // authenticated: the gate's to verify and strip, never counted here
  expect(version, ParseError::authenticated);
  auto other = good;
  other[1] = static_cast<std::uint8_t>(MechanismId::sue);
  expect(other, ParseError::wrong_mechanism);
  auto digest = good;
  digest[3] ^= 1;
  expect(digest, ParseError::wrong_parameters);
  auto fields = good;
  fields[6] = 0x10;
  expect(fields, ParseError::unknown_fields);
  auto padding = good;
  padding.at(9) |= 0x10;  // bit 20 of a 20-bit payload (last byte)
  expect(padding, ParseError::nonzero_padding);
}

TEST(ReportParser, ReportsOfOtherParametersAreRejected) {
  const auto report = one_report(make(MechanismId::oue, 20, 1.0), 1);
  EXPECT_EQ(parse_report(report, make(MechanismId::oue, 20, 2.0).description()).error,
            ParseError::wrong_parameters);
  EXPECT_EQ(parse_report(report, make(MechanismId::oue, 21, 1.0).description()).error,
            ParseError::wrong_parameters);
}

TEST(ReportParser, KaryValuesOutsideTheDomainAreRejected) {
  const Mechanism m = make(MechanismId::krr, 5);
  auto bytes = one_report(m, 2);
  ASSERT_EQ(bytes.size(), 8u);  // 3-bit payload
  bytes[7] = 6;                 // 6 ≥ k
  const ParseResult r = parse_report(bytes, m.description());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(m.check_payload(r.report.payload), ParseError::value_out_of_range);
}

TEST(ReportParser, DecodesTheCoreGoldenVector) {
  // tests/core/test_wire.cpp: OUE, ε = 1, d = 20, all fields, made on every target alike.
  const std::vector<std::uint8_t> golden = {0x01, 0x04, 0xc9, 0x66, 0x9c, 0x37, 0x07,
                                            0xef, 0xbe, 0xad, 0xde, 0x2a, 0x00, 0x00,
                                            0x00, 0x03, 0x00, 0x23, 0xa2, 0x00};
  const Mechanism m = make(MechanismId::oue, 20);
  const ParseResult r = parse_report(golden, m.description());
  ASSERT_TRUE(r.ok()) << to_string(r.error);
  EXPECT_EQ(r.report.header.device_id, 0xDEADBEEFu);
  EXPECT_EQ(r.report.header.epoch, 42u);
  EXPECT_EQ(r.report.header.cohort, 3u);
  std::vector<std::uint64_t> support(20, 0);
  m.add_support(r.report.payload, support);
  const std::vector<std::uint64_t> expected = {1, 1, 0, 0, 0, 1, 0, 0, 0, 1,
                                               0, 0, 0, 1, 0, 1, 0, 0, 0, 0};
  EXPECT_EQ(support, expected);
}

}  // namespace
}  // namespace tinyldp::collector
