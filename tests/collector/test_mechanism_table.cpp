// SPDX-License-Identifier: Apache-2.0
// The collector's table of mechanisms (mechanism.hpp), row by row: every row's name and id find
// it; every row that configures by name configures its example, whose description survives the
// report-file header (version 1 … 5) and a saved aggregate state, digest and all; a wrong
// configuration is refused with a reason naming what is wrong. The record rows (ids 22 … 29)
// privatize records through the same core as `tinyldp multi` / `joint` (the payloads are byte
// for byte the schemas'), read back by inspect's fields, counted per attribute value.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "test_memo_key.hpp"
#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/mechanism.hpp"
#include "tinyldp/collector/multi_attribute_counts.hpp"
#include "tinyldp/collector/report_file.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::collector {
namespace {

using Rng = RandomBits<port::InsecureTestSource>;

std::vector<const MechanismRow*> configurable_rows() {
  std::vector<const MechanismRow*> out;
  for (const auto& row : mechanism_table())
    if (row.configure != nullptr) out.push_back(&row);
  return out;
}

TEST(MechanismTable, EveryRowIsFoundByItsIdAndName) {
  unsigned previous = 0;
  for (const auto& row : mechanism_table()) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(find_mechanism(row.id), &row);
    EXPECT_STREQ(name_of(row.id), row.name);
    EXPECT_GT(static_cast<unsigned>(row.id), previous) << "rows are in id order";
    previous = static_cast<unsigned>(row.id);
    if (row.configure != nullptr) {
      EXPECT_EQ(find_mechanism(std::string_view(row.name)), &row);
      EXPECT_NE(mechanism_names(row.kind).find(row.name), std::string::npos);
    }
  }
  // Every wire id of the records has its row: none is "unknown" any more.
  for (unsigned id = 22; id <= 29; ++id) {
    const MechanismRow* row = find_mechanism(static_cast<MechanismId>(id));
    ASSERT_NE(row, nullptr) << "wire id " << id;
    EXPECT_EQ(row->kind, MechanismKind::record);
  }
  EXPECT_STREQ(name_of(MechanismId::record_rr), "record");
  EXPECT_EQ(multi_attribute_names(), "spl-grr, spl-oue, smp-grr, smp-oue, rsfd-grr, rsfd-oue-z, rsfd-oue-r");
  EXPECT_EQ(multi_attribute_protocol("rsfd-oue-r"), MechanismId::rsfd_oue_r);
  EXPECT_FALSE(multi_attribute_protocol("record"));  // memoized: tinyldp joint's
  EXPECT_FALSE(multi_attribute_protocol("oue"));
}

// The table's rows as they were when the models were one header (recorded from main before
// the split into collector/…/models/): one row per wire id 1 … 30, in id order, with the same
// names (a later mechanism adds rows above 30).
TEST(MechanismTable, OneRowPerWireIdWithTheNamesItAlwaysHad) {
  const std::vector<std::pair<unsigned, std::string>> recorded = {
      {1, "rr"},        {2, "krr"},       {3, "sue"},       {4, "oue"},      {5, "ue"},
      {6, "blh"},       {7, "olh"},       {8, "hr"},        {9, "sd"},       {10, "dlaplace"},
      {11, "she"},      {12, "the"},      {13, "rappor"},   {14, "l-sue"},   {15, "l-osue"},
      {16, "l-oue"},    {17, "l-soue"},   {18, "l-grr"},    {19, "loloha"},  {20, "biloloha"},
      {21, "1bitmean"}, {22, "record"},   {23, "spl-grr"},  {24, "spl-oue"}, {25, "smp-grr"},
      {26, "smp-oue"},  {27, "rsfd-grr"}, {28, "rsfd-oue-z"}, {29, "rsfd-oue-r"}, {30, "dbitflip"}};
  std::vector<std::pair<unsigned, std::string>> rows;
  for (const auto& row : mechanism_table())
    if (static_cast<unsigned>(row.id) <= 30) rows.emplace_back(static_cast<unsigned>(row.id), row.name);
  EXPECT_EQ(rows, recorded);
  // Every row configures by name except custom-probability ue.
  for (const auto& row : mechanism_table()) EXPECT_EQ(row.configure == nullptr, row.id == MechanismId::ue) << row.name;
}

TEST(MechanismTable, EveryExampleSurvivesTheReportFileHeaderAndASavedState) {
  for (const MechanismRow* row : configurable_rows()) {
    SCOPED_TRACE(row->name);
    Mechanism m;
    const ConfigureResult r = Mechanism::configure(row->example, m);
    ASSERT_TRUE(r) << r.reason;
    EXPECT_EQ(m.record(), row->kind == MechanismKind::record);
    EXPECT_EQ(m.numeric(), row->kind == MechanismKind::numeric);
    EXPECT_EQ(m.description().id, row->id);
    const std::vector<std::uint8_t> header = report_file_header(m);
    if (m.record()) {
      EXPECT_EQ(header.size(), report_file_header_v5_bytes);
    }
    std::string error;
    const auto back = parse_report_file_header(header, error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(back->description().digest, m.description().digest);
    EXPECT_EQ(back->description().payload_bits, m.description().payload_bits);
    EXPECT_EQ(config_difference(back->config(), m.config()), "");
    EXPECT_EQ(report_file_header(*back), header);
    const Aggregator a(m);
    const auto state = Aggregator::deserialize(a.serialize(), error);
    ASSERT_TRUE(state) << error;
    EXPECT_EQ(state->mechanism().description().digest, m.description().digest);
  }
}

// Every memoized row refuses the forms without a key (no report, no default key), and writes
// a report with one.
TEST(MechanismTable, EveryMemoizedRowRefusesAReportWithoutTheKey) {
  const test::TestMemoKey key{0x51, 0};
  std::uint32_t memoized = 0;
  for (const MechanismRow* row : configurable_rows()) {
    SCOPED_TRACE(row->name);
    Mechanism m;
    ASSERT_TRUE(Mechanism::configure(row->example, m));
    if (!m.memoized()) continue;
    ++memoized;
    port::InsecureTestSource src(3);
    Rng rng(src);
    std::vector<std::uint8_t> out;
    if (m.record()) {
      const std::vector<std::uint32_t> zeros(row->example.attribute_sizes.size(), 0);
      EXPECT_EQ(m.privatize_record(zeros, rng, {}, out), Status::bad_parameter);
      EXPECT_TRUE(out.empty());
      EXPECT_EQ(m.privatize_record(zeros, rng, key, {}, out), Status::ok);
    } else {
      const std::int64_t value = m.numeric() ? row->example.lo : 0;
      EXPECT_EQ(m.privatize(value, rng, {}, out), Status::bad_parameter);
      EXPECT_TRUE(out.empty());
      EXPECT_EQ(m.privatize(value, rng, key, {}, out), Status::ok);
    }
    EXPECT_FALSE(out.empty());
  }
  EXPECT_GE(memoized, 11u);  // rappor, the four L-UE, l-grr, loloha, biloloha, 1bitmean, dbitflip, record
}

TEST(MechanismTable, AChangedRecordHeaderIsRefusedWithItsReason) {
  Mechanism m;
  ASSERT_TRUE(Mechanism::configure(find_mechanism(MechanismId::spl_oue)->example, m));
  std::vector<std::uint8_t> h = report_file_header(m);
  std::string error;
  auto changed = h;
  changed[report_file_header_v4_bytes] ^= 1;  // attribute 0's size: the digest no longer matches
  EXPECT_FALSE(parse_report_file_header(changed, error));
  EXPECT_NE(error.find("digest"), std::string::npos) << error;
  changed = h;
  changed[report_file_header_v5_bytes - 1] = 1;  // past the last attribute: reserved
  EXPECT_FALSE(parse_report_file_header(changed, error));
  EXPECT_NE(error.find("reserved"), std::string::npos) << error;
  changed = h;
  changed[17] = 65;  // 65 attributes
  EXPECT_FALSE(parse_report_file_header(changed, error));
  EXPECT_NE(error.find("65 attributes"), std::string::npos) << error;
}

// A wrong configuration of each record row, and the words its refusal must contain.
TEST(MechanismTable, RecordRowsRefuseAWrongConfigurationWithAReason) {
  for (const MechanismRow* row : configurable_rows()) {
    if (row->kind != MechanismKind::record) continue;
    SCOPED_TRACE(row->name);
    const bool memo = row->id == MechanismId::record_rr;
    const auto refused = [&](MechanismConfig c, const std::string& words) {
      Mechanism m;
      const ConfigureResult r = Mechanism::configure(c, m);
      EXPECT_FALSE(r);
      EXPECT_NE(r.reason.find(words), std::string::npos) << r.reason;
    };
    MechanismConfig c = row->example;
    c.attribute_sizes = {3, 1};
    refused(c, "attribute 1 has 1 values");
    c.attribute_sizes.assign(65, 2);
    refused(c, "not 65");
    c = row->example;
    c.attribute_sizes.clear();
    refused(c, "not 0");
    c = row->example;
    c.domain = 7;
    refused(c, "number of attributes, 3 here (got 7)");
    c = row->example;
    c.lo = 1;
    refused(c, "numeric mechanisms");
    c = row->example;
    if (memo) {
      c.epsilon = Epsilon::from_ratio(1, 1);
      refused(c, "configured by f, p and q");
      c = row->example;
      c.irr_q = Dyadic{1, 2};  // q = 1/4 below p = 1/2
      refused(c, "p must be below q");
    } else {
      c.prr_f = Dyadic{1, 1};
      refused(c, "for the memoized mechanisms");
      c = row->example;
      c.epsilon = Epsilon::from_ratio(21, 1);
      refused(c, "cannot configure");
    }
    // Attribute sizes on a mechanism of one attribute.
    MechanismConfig krr = find_mechanism(MechanismId::krr)->example;
    krr.attribute_sizes = {2, 2};
    refused(krr, "record mechanisms");
  }
}

TEST(MechanismTable, RecordRowsPrivatizeAsTheSchemasDoAndInspectCountsWhatTheyHold) {
  const std::vector<std::uint32_t> values = {2, 1, 1};
  for (const MechanismRow* row : configurable_rows()) {
    if (row->kind != MechanismKind::record) continue;
    SCOPED_TRACE(row->name);
    Mechanism m;
    ASSERT_TRUE(Mechanism::configure(row->example, m));
    const auto& sizes = row->example.attribute_sizes;
    const std::uint32_t items = std::accumulate(sizes.begin(), sizes.end(), 0u);
    EXPECT_EQ(m.domain(), items);
    EXPECT_EQ(m.parameters()[0].value, 3);
    port::InsecureTestSource src(5), again(5);
    Rng rng(src), rng_again(again);
    const test::TestMemoKey key{0x51, 0};
    std::vector<std::uint8_t> report;
    EXPECT_EQ(m.privatize(1, rng, {}, report), Status::bad_parameter) << "a record is d values";
    EXPECT_EQ(m.privatize_record(std::vector<std::uint32_t>{1, 1}, rng, key, {}, report), Status::bad_parameter);
    ASSERT_TRUE(report.empty());
    ASSERT_EQ(m.privatize_record(values, rng, key, {}, report), Status::ok);
    const ParseResult parsed = parse_report(report, m.description());
    ASSERT_TRUE(parsed.ok()) << to_string(parsed.error);
    const auto payload = parsed.report.payload;
    ASSERT_EQ(m.check_payload(payload), ParseError::none);
    // The payload is the schema's own, from the same draws.
    std::vector<std::uint8_t> direct(payload.size(), 0);
    std::vector<RecordAttribute> attrs;
    for (std::uint32_t k : sizes) attrs.push_back({"", k, {}});
    std::string error;
    if (m.memoized()) {
      ASSERT_FALSE(m.privatize_record(values, rng, {}, report) == Status::ok) << "record needs the memo key";
      auto schema = RecordSchema::make(attrs, row->example.prr_f, row->example.irr_p, row->example.irr_q, error);
      ASSERT_TRUE(schema) << error;
      ASSERT_EQ(schema->mechanism().privatize(values.data(), key, rng_again, direct.data(), direct.size()), Status::ok);
    } else {
      auto schema = MultiAttributeSchema::make(row->id, row->example.epsilon, attrs, error);
      ASSERT_TRUE(schema) << error;
      ASSERT_EQ(schema->privatize(values.data(), rng_again, direct.data()), Status::ok);
    }
    EXPECT_TRUE(std::equal(payload.begin(), payload.end(), direct.begin()));
    // inspect's fields: the sizes, then what the payload supports — the same as the counts.
    std::vector<std::uint64_t> support(items, 0);
    m.add_support(payload, support);
    const auto fields = m.payload_fields(payload);
    ASSERT_FALSE(fields.empty());
    EXPECT_EQ(fields[0].name, "attribute_sizes");
    EXPECT_EQ(std::get<std::vector<std::uint32_t>>(fields[0].value), sizes);
    std::uint64_t listed = 0;
    for (const auto& f : fields)
      if (f.name.starts_with("bits_set_") || f.name == "values")
        listed += std::get<std::vector<std::uint32_t>>(f.value).size();
    EXPECT_EQ(listed, std::accumulate(support.begin(), support.end(), std::uint64_t{0}));
    // A payload no device could send is refused, and an aggregator is left unchanged by it.
    std::vector<std::uint8_t> bad(payload.begin(), payload.end());
    const bool grr = row->id == MechanismId::spl_grr || row->id == MechanismId::rsfd_grr;
    if (grr || row->id == MechanismId::smp_grr || row->id == MechanismId::smp_oue) {
      if (grr) bad[0] |= 0x3;  // attribute 0 (k = 3, 2 bits) holds 3
      else bad[0] = 7;         // sampled attribute 7 of 3
      EXPECT_EQ(m.check_payload(bad), ParseError::value_out_of_range);
      Aggregator a(m);
      std::vector<std::uint8_t> framed(report.begin(), report.end() - static_cast<std::ptrdiff_t>(payload.size()));
      framed.insert(framed.end(), bad.begin(), bad.end());
      EXPECT_NE(a.ingest(framed), ParseError::none);
      EXPECT_EQ(a.reports(), 0u);
      EXPECT_EQ(a.ingest(report), ParseError::none);
      EXPECT_EQ(a.support(), support);
    }
  }
}

}  // namespace
}  // namespace tinyldp::collector
