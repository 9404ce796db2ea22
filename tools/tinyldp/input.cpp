// SPDX-License-Identifier: Apache-2.0
#include "input.hpp"

#include <csv.h>

#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tinyldp::tools {

namespace {

struct CsvState {
  std::vector<std::string> row;
  std::vector<std::vector<std::string>> rows;
};

void on_field(void* data, std::size_t length, void* context) {
  static_cast<CsvState*>(context)->row.emplace_back(static_cast<const char*>(data), length);
}
void on_row(int, void* context) {
  auto* s = static_cast<CsvState*>(context);
  if (!(s->row.size() == 1 && s->row[0].empty())) s->rows.push_back(std::move(s->row));
  s->row.clear();
}
int is_space(unsigned char c) { return c == ' ' || c == '\t' ? CSV_SPACE : 0; }

std::vector<std::vector<std::string>> parse_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  csv_parser parser;
  if (csv_init(&parser, CSV_APPEND_NULL) != 0) throw std::runtime_error("cannot initialise libcsv");
  csv_set_space_func(&parser, is_space);  // "a, b" (Adult's style) → fields "a" and "b"
  CsvState state;
  char buffer[1 << 16];
  while (in) {
    in.read(buffer, sizeof buffer);
    const auto n = static_cast<std::size_t>(in.gcount());
    if (csv_parse(&parser, buffer, n, on_field, on_row, &state) != n) {
      const std::string error = csv_strerror(csv_error(&parser));
      csv_free(&parser);
      throw std::runtime_error(path + ": CSV error: " + error);
    }
  }
  csv_fini(&parser, on_field, on_row, &state);
  csv_free(&parser);
  return state.rows;
}

std::uint32_t parse_index(const std::string& text, std::uint32_t domain, const std::string& where) {
  std::uint32_t v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || text.empty())
    throw std::runtime_error(where + ": \"" + text + "\" is not a category index (use --labels for text values)");
  if (v >= domain)
    throw std::runtime_error(where + ": value " + text + " is outside the domain [0, " +
                             std::to_string(domain) + ")");
  return v;
}

}  // namespace

namespace {

// Calls take(field, "file:row") for every value: one per non-blank line, or one column of a CSV.
template <class Take>
void for_each_field(const ValueSource& source, Take take) {
  if (!source.column) {  // one value per line
    std::ifstream in(source.path);
    if (!in) throw std::runtime_error("cannot open " + source.path);
    std::string line;
    for (std::size_t row = 1; std::getline(in, line); ++row) {
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
      if (line.empty()) continue;
      take(line, source.path + ":" + std::to_string(row));
    }
    return;
  }
  const auto rows = parse_csv(source.path);
  if (rows.empty()) throw std::runtime_error(source.path + ": no rows");
  std::size_t col = 0;
  std::size_t first = 0;
  const std::string& c = *source.column;
  std::size_t numeric = 0;
  const bool is_number =
      !c.empty() && std::from_chars(c.data(), c.data() + c.size(), numeric).ptr == c.data() + c.size();
  if (source.has_header) {
    first = 1;
    col = rows[0].size();
    for (std::size_t i = 0; i < rows[0].size(); ++i)
      if (rows[0][i] == c) col = i;
    if (col == rows[0].size()) {
      if (!is_number) throw std::runtime_error(source.path + ": no column named \"" + c + "\"");
      col = numeric;
    }
  } else {
    if (!is_number) throw std::runtime_error("--column must be an index when the CSV has no header");
    col = numeric;
  }
  for (std::size_t r = first; r < rows.size(); ++r) {
    const std::string where = source.path + ":" + std::to_string(r + 1);
    if (col >= rows[r].size())
      throw std::runtime_error(where + ": row has no column " + std::to_string(col));
    take(rows[r][col], where);
  }
}

}  // namespace

Values read_values(const ValueSource& source, std::uint32_t domain,
                   const std::vector<std::string>* known_labels) {
  Values out;
  std::map<std::string, std::uint32_t> index;
  if (known_labels != nullptr) {
    out.labels = *known_labels;
    for (std::uint32_t i = 0; i < known_labels->size(); ++i) index[(*known_labels)[i]] = i;
  }
  for_each_field(source, [&](const std::string& field, const std::string& where) {
    if (!source.labels) {
      out.values.push_back(parse_index(field, domain, where));
      return;
    }
    auto it = index.find(field);
    if (it == index.end()) {
      if (known_labels != nullptr) throw std::runtime_error(where + ": unknown label \"" + field + "\"");
      if (out.labels.size() >= domain)
        throw std::runtime_error(where + ": more than " + std::to_string(domain) +
                                 " distinct labels (raise --domain)");
      it = index.emplace(field, static_cast<std::uint32_t>(out.labels.size())).first;
      out.labels.push_back(field);
    }
    out.values.push_back(it->second);
  });
  return out;
}

std::vector<std::int32_t> read_numbers(const ValueSource& source, std::int32_t lo, std::int32_t hi) {
  std::vector<std::int32_t> out;
  for_each_field(source, [&](const std::string& field, const std::string& where) {
    std::int32_t v = 0;
    const char* begin = field.data() + (!field.empty() && field[0] == '+' ? 1 : 0);
    const char* end = field.data() + field.size();
    const auto [ptr, ec] = std::from_chars(begin, end, v);
    if (ec != std::errc() || ptr != end || begin == end)
      throw std::runtime_error(where + ": \"" + field + "\" is not an integer (numeric mechanisms take integers of [--lo, --hi])");
    if (v < lo || v > hi)
      throw std::runtime_error(where + ": value " + field + " is outside [" + std::to_string(lo) + ", " +
                               std::to_string(hi) + "] (--lo, --hi)");
    out.push_back(v);
  });
  return out;
}

std::vector<std::string> read_label_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open label file " + path);
  std::vector<std::string> labels;
  std::string line;
  while (std::getline(in, line)) labels.push_back(line);
  return labels;
}

void write_label_file(const std::string& path, const std::vector<std::string>& labels) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write label file " + path);
  for (const auto& l : labels) out << l << '\n';
}

}  // namespace tinyldp::tools
