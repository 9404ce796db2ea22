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
#include <fstream>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli_common.hpp"  // BadInput

#include "tinyldp/collector/mechanism.hpp"
#include "tinyldp/collector/report_parser.hpp"

namespace tinyldp::tools {

// The mechanism a report file's header describes, or nullopt if `path` is not a report file
// (then it is read as framed reports); throws BadInput for a report file with a bad header.
std::optional<collector::Mechanism> record_file_mechanism(const std::string& path);

// Calls count(payload) for every report of `path` in order, expecting reports of `expected`;
// throws BadInput at the first that does not parse or that count refuses (its index, byte
// offset and reason; `counted` reports were good before it), or when a report file's header
// describes another mechanism. Returns the reports read.
std::uint64_t read_record_reports(const std::string& path, const wire::Description& expected,
                                  const std::string& expected_text,
                                  const std::function<collector::ParseError(std::span<const std::uint8_t>)>& count);

// The device reports as they leave, written for `--framed`: the wire header (no optional
// fields) around each payload, back to back — what read_record_reports reads as framed reports.
// No file when `path` is empty; a file that cannot be opened or written shows in ok().
class FramedReportWriter {
 public:
  FramedReportWriter(const std::string& path, const wire::Description& description);
  // Frames and writes one payload (nothing without a file); false if it cannot be framed.
  bool write(const std::uint8_t* payload);
  bool ok() const { return !out_.fail(); }

 private:
  wire::Description description_;
  std::vector<std::uint8_t> frame_;
  std::ofstream out_;
};

}  // namespace tinyldp::tools

#endif
