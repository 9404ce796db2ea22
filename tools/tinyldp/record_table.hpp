// SPDX-License-Identifier: Apache-2.0
// tools/tinyldp/record_table.hpp — a CSV of several columns as records of categorical
// attributes, for the subcommands that report whole records (`joint`, `multi`): the table, the
// chosen columns, numeric columns cut into bins, each column's labels numbered (sorted, or
// numerically when all are numbers), and the domain lists of the plans ("2x16", "3,5,2").
#ifndef TINYLDP_TOOLS_RECORD_TABLE_HPP
#define TINYLDP_TOOLS_RECORD_TABLE_HPP

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tinyldp/collector/record_counts.hpp"

namespace tinyldp::tools {

// Fields split at sep, spaces around each dropped (a trailing sep gives an empty last field).
std::vector<std::string> split(const std::string& s, char sep);
// "2x16" or "2,3,5" → domain sizes.
std::vector<std::uint32_t> parse_domains(const std::string& text);

// The CSV: rows of fields (split at `delimiter`, --delimiter; spaces around fields dropped; a
// UTF-8 byte-order mark before the first field dropped). Simple files only: no quotes.
struct Table {
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> rows;
};
Table read_table(const std::string& path, bool header, char delimiter = ',');
bool numeric(const std::string& s, double& x);

// The chosen columns as attributes, and every row's values.
struct Encoded {
  std::vector<collector::RecordAttribute> attributes;
  std::vector<std::vector<std::uint32_t>> values;  // per row, per attribute
};
Encoded encode(const Table& t, const std::vector<std::size_t>& columns, const std::map<std::string, std::uint32_t>& bins);
// "all" or comma-separated names → column indices.
std::vector<std::size_t> choose_columns(const Table& t, const std::string& spec);
// "COLUMN=B,…" → bins per column.
std::map<std::string, std::uint32_t> parse_bins(const std::string& spec);

// Left-aligned in `width` columns, counting UTF-8 characters (ε, …), not bytes: the plans' tables.
std::string pad(const std::string& s, std::size_t width);

}  // namespace tinyldp::tools

#endif
