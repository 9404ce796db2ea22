// SPDX-License-Identifier: Apache-2.0
// Reading private values (and ground truth) for `tinyldp simulate` / `aggregate --truth`:
// one column of a CSV file (parsed with libcsv) or a file of integers, one per line.
#ifndef TINYLDP_TOOLS_INPUT_HPP
#define TINYLDP_TOOLS_INPUT_HPP

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tinyldp::tools {

struct ValueSource {
  std::string path;
  std::optional<std::string> column;  // header name or 0-based index; absent: one value per line
  bool has_header = true;             // CSV only: the first row names the columns
  bool labels = false;                // values are labels, mapped to 0, 1, … by first appearance
};

struct Values {
  std::vector<std::uint32_t> values;
  std::vector<std::string> labels;  // index → label, when ValueSource::labels
};

// Reads the values; throws std::runtime_error with a message naming file, row and problem.
// `known_labels` (when given) fixes the label → index mapping (labels not in it are errors).
Values read_values(const ValueSource& source, std::uint32_t domain,
                   const std::vector<std::string>* known_labels = nullptr);

// Reads integers of [lo, hi] (the numeric mechanisms' input); throws like read_values.
std::vector<std::int32_t> read_numbers(const ValueSource& source, std::int32_t lo, std::int32_t hi);

std::vector<std::string> read_label_file(const std::string& path);
void write_label_file(const std::string& path, const std::vector<std::string>& labels);

}  // namespace tinyldp::tools

#endif
