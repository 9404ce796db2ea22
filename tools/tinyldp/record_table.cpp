// SPDX-License-Identifier: Apache-2.0
#include "record_table.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>

#include "cli_common.hpp"
#include "input.hpp"

namespace tinyldp::tools {

using collector::RecordAttribute;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) {
    const auto a = cur.find_first_not_of(" \t\r"), b = cur.find_last_not_of(" \t\r");
    out.push_back(a == std::string::npos ? "" : cur.substr(a, b - a + 1));
  }
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

// "2x16" or "2,3,5" → domain sizes.
std::vector<std::uint32_t> parse_domains(const std::string& text) {
  std::vector<std::uint32_t> sizes;
  for (const auto& part : split(text, ',')) {
    const auto x = part.find('x');
    try {
      const std::uint32_t size = static_cast<std::uint32_t>(std::stoul(part.substr(0, x)));
      const std::uint32_t times = x == std::string::npos ? 1 : static_cast<std::uint32_t>(std::stoul(part.substr(x + 1)));
      if (times > collector::max_record_attributes) throw std::out_of_range("too many");
      sizes.insert(sizes.end(), times, size);
    } catch (const std::exception&) {
      throw BadInput("--domains: '" + part + "' is not a size or SIZExCOUNT (e.g. 2x16 or 3,5,2)");
    }
  }
  return sizes;
}

Table read_table(const std::string& path, bool header, char delimiter) {
  std::ifstream in(path);
  if (!in) throw BadInput("cannot open " + path + ": " + std::strerror(errno));
  Table t;
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line_no == 1 && line.starts_with(utf8_bom)) line.erase(0, utf8_bom.size());
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line.find('"') != std::string::npos)
      throw BadInput(path + ":" + std::to_string(line_no) + ": quoted fields are not supported by joint simulate");
    auto fields = split(line, delimiter);
    if (t.names.empty() && t.rows.empty()) {
      if (header) {
        t.names = fields;
        continue;
      }
      for (std::size_t i = 0; i < fields.size(); ++i) t.names.push_back(std::to_string(i));
    }
    if (fields.size() != t.names.size())
      throw BadInput(path + ":" + std::to_string(line_no) + ": " + std::to_string(fields.size()) + " fields, expected " +
                     std::to_string(t.names.size()));
    t.rows.push_back(std::move(fields));
  }
  if (t.rows.empty()) throw BadInput(path + ": no rows");
  return t;
}

bool numeric(const std::string& s, double& x) {
  if (s.empty()) return false;
  char* end = nullptr;
  x = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

// The chosen columns as attributes: labels sorted (numerically when all are numbers), or, for
// a column in --bins NAME=B, B equal-width bins over its range ("lo..hi" labels).
Encoded encode(const Table& t, const std::vector<std::size_t>& columns, const std::map<std::string, std::uint32_t>& bins) {
  Encoded e;
  e.values.assign(t.rows.size(), std::vector<std::uint32_t>(columns.size()));
  for (std::size_t a = 0; a < columns.size(); ++a) {
    const std::size_t col = columns[a];
    RecordAttribute attr;
    attr.name = t.names[col];
    const auto bin = bins.find(attr.name);
    if (bin != bins.end()) {
      double lo = 1e300, hi = -1e300, x = 0;
      for (const auto& r : t.rows) {
        if (!numeric(r[col], x)) throw BadInput("--bins " + attr.name + ": '" + r[col] + "' is not a number");
        lo = std::min(lo, x), hi = std::max(hi, x);
      }
      const std::uint32_t b = bin->second;
      const double width = (hi - lo) / b;
      for (std::uint32_t i = 0; i < b; ++i)
        attr.labels.push_back(value_text(lo + i * width) + ".." + value_text(i + 1 == b ? hi : lo + (i + 1) * width));
      for (std::size_t r = 0; r < t.rows.size(); ++r) {
        numeric(t.rows[r][col], x);
        e.values[r][a] = width > 0 ? std::min(b - 1, static_cast<std::uint32_t>((x - lo) / width)) : 0;
      }
      attr.size = b;
    } else {
      std::set<std::string> seen;
      bool all_numbers = true;
      double x = 0;
      for (const auto& r : t.rows) {
        seen.insert(r[col]);
        all_numbers = all_numbers && numeric(r[col], x);
      }
      attr.labels.assign(seen.begin(), seen.end());
      if (all_numbers)
        std::sort(attr.labels.begin(), attr.labels.end(),
                  [](const std::string& a, const std::string& b) { return std::stod(a) < std::stod(b); });
      if (attr.labels.size() == 1) attr.labels.push_back("(unseen)");
      std::map<std::string, std::uint32_t> index;
      for (std::uint32_t i = 0; i < attr.labels.size(); ++i) index[attr.labels[i]] = i;
      for (std::size_t r = 0; r < t.rows.size(); ++r) e.values[r][a] = index[t.rows[r][col]];
      attr.size = static_cast<std::uint32_t>(attr.labels.size());
    }
    e.attributes.push_back(std::move(attr));
  }
  return e;
}

std::vector<std::size_t> choose_columns(const Table& t, const std::string& spec) {
  std::vector<std::size_t> cols;
  if (spec == "all") {
    cols.resize(t.names.size());
    std::iota(cols.begin(), cols.end(), std::size_t{0});
    return cols;
  }
  for (const auto& name : split(spec, ',')) {
    const auto it = std::find(t.names.begin(), t.names.end(), name);
    if (it == t.names.end()) throw BadInput("--columns: no column '" + name + "' in the input");
    cols.push_back(static_cast<std::size_t>(it - t.names.begin()));
  }
  return cols;
}

std::map<std::string, std::uint32_t> parse_bins(const std::string& spec) {
  std::map<std::string, std::uint32_t> bins;
  if (spec.empty()) return bins;
  for (const auto& part : split(spec, ',')) {
    const auto eq = part.find('=');
    try {
      if (eq == std::string::npos) throw std::invalid_argument("");
      const auto b = std::stoul(part.substr(eq + 1));
      if (b < 2 || b > 65536) throw std::invalid_argument("");
      bins[part.substr(0, eq)] = static_cast<std::uint32_t>(b);
    } catch (const std::exception&) {
      throw BadInput("--bins: '" + part + "' is not COLUMN=BINS (2 … 65536 bins)");
    }
  }
  return bins;
}

std::string pad(const std::string& s, std::size_t width) {
  std::size_t chars = 0;
  for (unsigned char c : s) chars += (c & 0xC0) != 0x80;
  return s + std::string(width > chars ? width - chars : 1, ' ');
}

}  // namespace tinyldp::tools
