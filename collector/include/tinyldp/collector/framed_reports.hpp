// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/framed_reports.hpp — a run of wire reports of one configured mechanism,
// back to back (what a device log or a gateway's file holds: each report its 7-byte header,
// its optional fields, its payload; docs/wire-format.md), split and checked one by one.
//
// Each report's length follows from its own fields byte and the expected payload size, so the
// run needs no other framing. Every report goes through parse_report (version, id, digest,
// fields, exact length, zero padding); the first one that fails stops the walk with its index,
// its byte offset and the reason. Nothing is counted by this header: the caller's function
// receives each payload. Host only. Cost: O(bytes), no allocation.
#ifndef TINYLDP_COLLECTOR_FRAMED_REPORTS_HPP
#define TINYLDP_COLLECTOR_FRAMED_REPORTS_HPP

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "tinyldp/collector/report_parser.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp::collector {

struct FramedReportError {
  std::uint64_t index = 0;   // the report's number in the run (0-based)
  std::uint64_t offset = 0;  // where it starts
  ParseError error = ParseError::none;
  std::string reason;  // a sentence with the above
};

// Calls on_payload for every report of the run, in order; returns the first failure (a
// ParseError from parsing, or value_out_of_range when on_payload returns a ParseError of its
// own), or nullopt when every report passed.
std::optional<FramedReportError> for_each_framed_report(
    std::span<const std::uint8_t> bytes, const wire::Description& expected,
    const std::function<ParseError(std::span<const std::uint8_t> payload)>& on_payload);

}  // namespace tinyldp::collector

#endif
