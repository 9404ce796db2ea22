// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/report_parser.hpp"

namespace tinyldp::collector {

std::vector<HeaderField> header_fields(const wire::Header& h) {
  std::vector<HeaderField> out;
  if (h.fields & wire::field_device_id) out.push_back({"device_id", h.device_id});
  if (h.fields & wire::field_epoch) out.push_back({"epoch", h.epoch});
  if (h.fields & wire::field_cohort) out.push_back({"cohort", h.cohort});
  if (h.fields & wire::field_memo_generation) out.push_back({"memo_generation", h.memo_generation});
  return out;
}

const char* to_string(ParseError e) {
  switch (e) {
    case ParseError::none: return "ok";
    case ParseError::truncated: return "truncated report";
    case ParseError::oversized: return "report longer than its mechanism's";
    case ParseError::bad_version: return "unsupported format version";
    case ParseError::wrong_mechanism: return "report of another mechanism";
    case ParseError::wrong_parameters: return "parameter digest mismatch (other epsilon, domain or precision)";
    case ParseError::unknown_fields: return "unknown header field bits";
    case ParseError::nonzero_padding: return "nonzero padding bits";
    case ParseError::value_out_of_range: return "value outside the domain";
    case ParseError::missing_cohort: return "a Bloom-filter report without its cohort field";
    case ParseError::other_epoch:
      return "a memoized report of another epoch than the aggregate's (epochs share memos: aggregate them per "
             "epoch, or pool them explicitly)";
    case ParseError::authenticated:
      return "an authenticated report (format version 2, with its sender's identity): `tinyldp gate` verifies it "
             "and releases it anonymously in a batch";
  }
  return "unknown error";
}

namespace {
std::uint32_t le32(const std::uint8_t* p) { return get_le<std::uint32_t>(p); }
}  // namespace

ParseResult parse_report(std::span<const std::uint8_t> bytes, const wire::Description& expected) {
  ParseResult r;
  if (bytes.size() < wire::fixed_header_bytes) return {ParseError::truncated, {}};
  if (bytes[0] == 2) return {ParseError::authenticated, {}};
  if (bytes[0] != wire::format_version) return {ParseError::bad_version, {}};
  if (bytes[1] != static_cast<std::uint8_t>(expected.id)) return {ParseError::wrong_mechanism, {}};
  if (le32(&bytes[2]) != expected.digest) return {ParseError::wrong_parameters, {}};
  const std::uint8_t fields = bytes[6];
  if ((fields & ~wire::known_fields) != 0) return {ParseError::unknown_fields, {}};
  const std::size_t size = expected.report_bytes(fields);
  if (bytes.size() < size) return {ParseError::truncated, {}};
  if (bytes.size() > size) return {ParseError::oversized, {}};
  std::size_t at = wire::fixed_header_bytes;
  r.report.header.fields = fields;
  if (fields & wire::field_device_id) {
    r.report.header.device_id = le32(&bytes[at]);
    at += 4;
  }
  if (fields & wire::field_epoch) {
    r.report.header.epoch = le32(&bytes[at]);
    at += 4;
  }
  if (fields & wire::field_cohort) {
    r.report.header.cohort = get_le<std::uint16_t>(&bytes[at]);
    at += 2;
  }
  if (fields & wire::field_memo_generation) {
    r.report.header.memo_generation = le32(&bytes[at]);
    at += 4;
  }
  r.report.payload = bytes.subspan(at);
  const unsigned spare = static_cast<unsigned>(expected.payload_bytes() * 8 - expected.payload_bits);
  if (spare != 0 && (r.report.payload.back() >> (8 - spare)) != 0)
    return {ParseError::nonzero_padding, {}};
  return r;
}

}  // namespace tinyldp::collector
