// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/report_parser.hpp — strict parsing of untrusted report bytes.
//
// A report is accepted only if every byte is as the wire format (docs/wire-format.md) and
// the expected mechanism say: version 1 (an authenticated version-2 report is refused as such:
// tinyldp/gate verifies it and strips its identity), the expected mechanism id and parameter digest, no
// unknown field bits, the exact length, zero padding bits. The parser never allocates and
// never loops over a length the input declares; its cost is O(header) plus a view of the
// payload. Host only (the device never parses).
#ifndef TINYLDP_COLLECTOR_REPORT_PARSER_HPP
#define TINYLDP_COLLECTOR_REPORT_PARSER_HPP

#include <cstdint>
#include <span>
#include <vector>

#include "tinyldp/wire.hpp"

namespace tinyldp::collector {

// An authenticated report (format version 2, docs/wire-format.md) is its version-1 form plus a
// 4-byte counter and a 16-byte tag: the largest report a file or capture may hold grows by it.
inline constexpr std::size_t authenticated_trailer_bytes = wire::authenticated_trailer_bytes;

enum class ParseError : std::uint8_t {
  none = 0,
  truncated,          // shorter than the header, its fields and the payload
  oversized,          // longer than that
  bad_version,        // format version is not 1
  wrong_mechanism,    // another mechanism's report
  wrong_parameters,   // same mechanism, other probabilities or domain (digest mismatch)
  unknown_fields,     // reserved field bits set
  nonzero_padding,    // payload bits beyond payload_bits are not zero
  value_out_of_range, // payload decodes to a value outside the domain
  missing_cohort,     // a Bloom-filter report without its cohort field
  other_epoch,        // memoized: another epoch than the aggregate's (Aggregator::ingest)
  authenticated,      // format version 2 (a tag, the sender's identity): the gate's to verify
};

const char* to_string(ParseError e);

struct ParsedReport {
  wire::Header header;
  std::span<const std::uint8_t> payload;
};

struct ParseResult {
  ParseError error = ParseError::none;
  ParsedReport report{};
  bool ok() const { return error == ParseError::none; }
};

ParseResult parse_report(std::span<const std::uint8_t> bytes, const wire::Description& expected);

// The optional header fields a report carries, by name ("device_id", "epoch", "cohort",
// "memo_generation"), in wire order: what `inspect` and the Python bindings show.
struct HeaderField {
  const char* name;
  std::uint32_t value;
};
std::vector<HeaderField> header_fields(const wire::Header& h);

}  // namespace tinyldp::collector

#endif
