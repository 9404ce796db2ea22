// SPDX-License-Identifier: Apache-2.0
// tools/tinyldp/record_reports.hpp — the device reports `multi ingest` and `joint ingest` read,
// in every form the single-attribute commands read them: a report file (what `tinyldp wrap`
// makes of a raw capture, TLDPREP5 for records; its header must describe the schema's
// mechanism) or wire reports framed back to back (`multi simulate --framed`, a gateway's log).
// Which one a file is, its first 8 bytes say (a report file's magic). Each report is parsed
// strictly (collector/report_parser.hpp) before its payload is counted.
#ifndef TINYLDP_TOOLS_RECORD_REPORTS_HPP
#define TINYLDP_TOOLS_RECORD_REPORTS_HPP

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "tinyldp/collector/mechanism.hpp"
#include "tinyldp/collector/record_counts.hpp"

namespace tinyldp::tools {

// The mechanism a report file's header describes, or nullopt if `path` is not a report file
// (then it is read as framed reports); throws BadInput for a report file with a bad header.
std::optional<collector::Mechanism> record_file_mechanism(const std::string& path);
// When no --schema is given: the report file's mechanism, whose attributes (numbered_attributes)
// make the schema; throws BadInput naming `command` and the --schema file it needs (`schema`)
// when `path` holds framed reports, which do not say their attributes.
collector::Mechanism schema_mechanism(const std::string& path, const std::string& command, const std::string& schema);
// Attributes of these sizes named 0, 1, … (no labels).
std::vector<collector::RecordAttribute> numbered_attributes(const std::vector<std::uint32_t>& sizes);

// Calls count(payload) for every report of `path` in order, expecting reports of `expected`;
// throws BadInput at the first that does not parse or that count refuses (its index, byte
// offset and reason; `counted` reports were good before it), or when a report file's header
// describes another mechanism. Returns the reports read.
std::uint64_t read_record_reports(const std::string& path, const wire::Description& expected,
                                  const std::string& expected_text,
                                  const std::function<collector::ParseError(std::span<const std::uint8_t>)>& count);

}  // namespace tinyldp::tools

#endif
