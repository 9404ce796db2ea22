// SPDX-License-Identifier: Apache-2.0
// Reading private values (and ground truth) for `tinyldp simulate` / `aggregate --truth`, in
// one streaming pass: one column of a CSV file (parsed with libcsv) or a file of one value per
// line. Only the chosen column's fields are kept, a chunk (1 MiB) at a time, so memory does
// not grow with the file; the column is checked against the header before any data row is
// looked at. A file of several columns needs --column (its first line is never read as whole
// values); a UTF-8 byte-order mark before the first field is dropped. Errors name the file,
// the row and the problem.
#ifndef TINYLDP_TOOLS_INPUT_HPP
#define TINYLDP_TOOLS_INPUT_HPP

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "labels.hpp"
#include "tinyldp/collector/mechanism.hpp"

namespace tinyldp::tools {

// What an empty field of the column is: an error (naming the row), a row to skip, or a
// category of its own (the label "", for labelled columns).
enum class Missing { error, skip, category };

struct ValueSource {
  std::string path;
  std::optional<std::string> column;  // header name or 0-based index; absent: one value per line
  std::string delimiter = ",";        // --delimiter: one byte (or "tab"), checked when read
  bool has_header = true;             // CSV only: the first row names the columns
  Missing missing = Missing::error;
  std::vector<std::string> missing_as;  // fields that also count as empty ("?" in Adult)
  bool clamp = false;                 // numeric: values outside [lo, hi] become lo or hi
};

// What one pass read.
struct InputCounts {
  std::uint64_t values = 0;   // handed on
  std::uint64_t skipped = 0;  // rows with an empty field (--missing skip)
  std::uint64_t clamped = 0;  // values moved into [lo, hi] (--clamp)
};

// The field separator --delimiter names: one byte other than a quote or a line break, or "tab"
// ("\t"). Throws std::runtime_error naming the option otherwise.
char parse_delimiter(const std::string& text);

// A UTF-8 byte-order mark (EF BB BF), which spreadsheet programs write before the first field.
inline constexpr std::string_view utf8_bom = "\xEF\xBB\xBF";

// Calls take(value) for each value of the column, as m takes it: a category index (through
// `labels` when given: a label's index, numbered by first appearance or from a labels file) or
// an integer of [lo, hi]. Throws std::runtime_error naming file, row and problem.
InputCounts for_each_private_value(const ValueSource& source, const collector::Mechanism& m,
                                   LabelMap* labels, const std::function<void(std::int64_t)>& take);

}  // namespace tinyldp::tools

#endif
