// SPDX-License-Identifier: Apache-2.0
// tools/tinyldp/record_reports.hpp — the device reports `multi ingest` and `joint ingest` read,
// in every form the single-attribute commands read them: a report file (what `tinyldp wrap`
// makes of a raw capture, TLDPREP5 for records; its header must describe the schema's
// mechanism) or wire reports framed back to back (`multi simulate --framed`, a gateway's log).
// Which one a file is, its first 8 bytes say (a report file's magic). Each report is parsed
// strictly (collector/report_parser.hpp) before its payload is counted.
#ifndef TINYLDP_TOOLS_RECORD_REPORTS_HPP
#define TINYLDP_TOOLS_RECORD_REPORTS_HPP

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cli_common.hpp"  // BadInput

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

// Counts files of one kind (collector::RecordCounts for joint, MultiAttributeCounts for multi)
// merged in order and written to `output`; `schema` names what must match ("record schema
// (attributes, labels or f, p, q)"). A file given twice — the same path, or another file with
// the same counts (a copy) — is refused: counts files keep no record of the reports they hold,
// so its reports would add twice. Empty counts may repeat (they add nothing). Throws BadInput.
template <class Counts>
Counts merge_counts_files(const std::vector<std::string>& inputs, const std::string& output,
                          const std::string& schema) {
  if (inputs.empty() || output.empty()) throw BadInput("merge: input files and --output are required");
  std::optional<Counts> all;
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> seen;  // path, its counts
  for (const auto& path : inputs) {
    std::string error;
    auto c = Counts::load(path, error);
    if (!c) throw BadInput(error);
    if (c->reports() > 0) {
      auto bytes = c->serialize();
      for (const auto& [earlier, earlier_bytes] : seen)
        if (earlier_bytes == bytes)
          throw BadInput(path + " holds the same counts as " + earlier +
                         (path == earlier ? " (the same file given twice)" : " (a copy)") +
                         ": merged, its reports would count twice");
      seen.emplace_back(path, std::move(bytes));
    }
    if (!all)
      all = std::move(c);
    else if (!all->merge(*c))
      throw BadInput(path + ": another " + schema + " than " + inputs[0]);
  }
  if (!all->save(output)) throw BadInput("cannot write " + output + ": " + std::strerror(errno));
  return std::move(*all);
}

// Calls count(payload) for every report of `path` in order, expecting reports of `expected`;
// throws BadInput at the first that does not parse or that count refuses (its index, byte
// offset and reason; `counted` reports were good before it), or when a report file's header
// describes another mechanism. Returns the reports read.
std::uint64_t read_record_reports(const std::string& path, const wire::Description& expected,
                                  const std::string& expected_text,
                                  const std::function<collector::ParseError(std::span<const std::uint8_t>)>& count);

}  // namespace tinyldp::tools

#endif
