// SPDX-License-Identifier: Apache-2.0
#include "input.hpp"

#include <csv.h>
#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include "tinyldp/collector/bloom_decode.hpp"
#include <stdexcept>
#include <vector>

#include "progress.hpp"

namespace tinyldp::tools {

namespace {

// A file read in chunks; every failure says why (strerror).
class InputFile {
 public:
  explicit InputFile(const std::string& path) : path_(path), file_(std::fopen(path.c_str(), "rb"), std::fclose) {
    if (!file_) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
    struct stat st {};
    if (fstat(fileno(file_.get()), &st) == 0 && S_ISREG(st.st_mode)) size_ = static_cast<std::uint64_t>(st.st_size);
  }
  // The next chunk, empty at the end of the file.
  std::string_view read() {
    const std::size_t n = std::fread(buffer_.data(), 1, buffer_.size(), file_.get());
    if (n == 0 && std::ferror(file_.get())) throw std::runtime_error("cannot read " + path_ + ": " + std::strerror(errno));
    done_ += n;
    return {buffer_.data(), n};
  }
  std::uint64_t size() const { return size_; }
  std::uint64_t done() const { return done_; }

 private:
  std::string path_;
  std::unique_ptr<FILE, int (*)(FILE*)> file_;
  std::vector<char> buffer_ = std::vector<char>(1 << 20);
  std::uint64_t size_ = 0, done_ = 0;
};

bool parse_whole(std::string_view text, std::size_t& out) {
  return !text.empty() && std::from_chars(text.data(), text.data() + text.size(), out).ptr == text.data() + text.size();
}

bool looks_like_a_number(const std::string& field) {
  if (field.empty()) return false;
  char* end = nullptr;
  std::strtod(field.c_str(), &end);
  return end == field.c_str() + field.size();
}

// One field of the chosen column in the chunk being parsed (or its absence from a short row).
struct Entry {
  std::uint64_t row;
  std::size_t begin, length;
  bool present;
};

// libcsv's callbacks keep the header row, then only the chosen column's fields of the current
// chunk; problems found inside a callback are recorded and thrown once libcsv has returned.
struct CsvColumn {
  const ValueSource* source;
  std::optional<std::size_t> column;  // resolved from the header (or given as an index)
  bool in_header;
  std::vector<std::string> header;
  std::string error;
  bool header_looks_like_data = false;
  std::uint64_t row = 0;  // rows completed, header included
  std::size_t field = 0, row_bytes = 0;
  std::string text;
  std::vector<Entry> entries;

  void resolve_column() {
    const std::string& c = *source->column;
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == c) column = i;
    std::size_t index = 0;
    if (!column && parse_whole(c, index)) {
      if (index >= header.size())
        error = source->path + ": no column " + c + " (the header has " + std::to_string(header.size()) + ")";
      column = index;
    }
    if (!column) {
      std::string names;
      for (const auto& h : header) names += (names.empty() ? "" : ", ") + h;
      error = source->path + ": no column named \"" + c + "\" (the header has: " + names + ")";
      // One header field holding another separator: the file is not comma-separated.
      if (header.size() == 1)
        for (const char sep : {';', '\t', '|'})
          if (header[0].find(sep) != std::string::npos) {
            error += "; its fields look separated by '" + std::string(sep == '\t' ? "tab" : std::string(1, sep)) +
                     "': pass --delimiter " + (sep == '\t' ? "tab" : "'" + std::string(1, sep) + "'");
            break;
          }
    }
    header_looks_like_data = true;
    for (const auto& h : header) header_looks_like_data = header_looks_like_data && looks_like_a_number(h);
  }
};

void on_field(void* data, std::size_t length, void* context) {
  auto* s = static_cast<CsvColumn*>(context);
  if (!s->error.empty()) return;
  s->row_bytes += length;
  if (s->in_header) {
    s->header.emplace_back(static_cast<const char*>(data), length);
  } else if (s->field == *s->column) {
    s->entries.push_back({s->row + 1, s->text.size(), length, true});
    s->text.append(static_cast<const char*>(data), length);
  }
  ++s->field;
}

void on_row(int, void* context) {
  auto* s = static_cast<CsvColumn*>(context);
  const bool blank = s->field == 1 && s->row_bytes == 0;  // a line of spaces: no row
  const std::size_t fields = s->field;
  s->field = s->row_bytes = 0;
  if (!s->error.empty() || blank) {
    if (blank && s->in_header) s->header.clear();
    if (blank && !s->in_header && *s->column == 0) s->entries.pop_back();
    return;
  }
  ++s->row;
  if (s->in_header) {
    s->in_header = false;
    s->resolve_column();
  } else if (fields <= *s->column) {
    s->entries.push_back({s->row, 0, 0, false});
  }
}

// The fields of a line split at the delimiter outside double quotes, spaces around each
// dropped and one level of quotes removed: what the first line of a column-less input holds.
std::vector<std::string> line_fields(std::string_view line, char delimiter) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == delimiter && !quoted) fields.emplace_back();
    else fields.back() += c;
  }
  for (auto& f : fields) {
    const auto a = f.find_first_not_of(" \t\r"), b = f.find_last_not_of(" \t\r");
    f = a == std::string::npos ? "" : f.substr(a, b - a + 1);
  }
  return fields;
}

void check_one_column(const std::string& path, std::string_view first_line, char delimiter) {
  const std::vector<std::string> fields = line_fields(first_line, delimiter);
  if (fields.size() < 2) return;
  std::string names;
  for (std::size_t i = 0; i < fields.size() && i < 12; ++i) names += (i ? ", " : "") + fields[i];
  if (fields.size() > 12) names += ", …";
  throw std::runtime_error(path + " has " + std::to_string(fields.size()) + " columns (" + names +
                           "): choose one with --column NAME (or a 0-based index, with --no-header when the "
                           "first line is data); without --column a file is one value per line");
}

// Calls take(field, row) for every value of the column; row is the CSV record number (the
// header is row 1) or the line number.
template <class Take>
void for_each_field(const ValueSource& source, Take take) {
  InputFile file(source.path);
  Progress progress("reading " + source.path, "rows", file.size());
  std::uint64_t rows = 0;
  const char delimiter = parse_delimiter(source.delimiter);
  bool first_chunk = true;
  // A byte-order mark is not part of the first field (it would make the header "\uFEFFage").
  const auto next_chunk = [&] {
    std::string_view chunk = file.read();
    if (first_chunk && chunk.substr(0, utf8_bom.size()) == utf8_bom) chunk.remove_prefix(utf8_bom.size());
    first_chunk = false;
    return chunk;
  };
  if (!source.column) {  // one value per line; blank lines are not rows
    std::string line;
    std::uint64_t number = 0;
    bool first_line = true;
    const auto finish_line = [&] {
      ++number;
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
      if (!line.empty()) {
        // A CSV of several columns read as whole lines would make every line one value (and
        // its header one more): refused, naming the columns found.
        if (first_line) check_one_column(source.path, line, delimiter);
        first_line = false;
        take(std::string_view(line), number);
        ++rows;
      }
      line.clear();
    };
    for (std::string_view chunk = next_chunk(); !chunk.empty(); chunk = next_chunk()) {
      for (std::size_t at = 0; at < chunk.size();) {
        const std::size_t end = chunk.find('\n', at);
        line.append(chunk.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
        if (end == std::string_view::npos) break;
        finish_line();
        at = end + 1;
      }
      progress.update(file.done(), rows);
    }
    if (!line.empty()) finish_line();
    progress.finish(file.done(), rows);
    return;
  }
  CsvColumn state{&source, std::nullopt, source.has_header, {}, {}, false, 0, 0, 0, {}, {}};
  if (!source.has_header) {
    std::size_t index = 0;
    if (!parse_whole(*source.column, index))
      throw std::runtime_error("--column must be an index when the CSV has no header (--no-header)");
    state.column = index;
  }
  csv_parser parser;
  if (csv_init(&parser, 0) != 0) throw std::runtime_error("cannot initialise libcsv");
  const std::unique_ptr<csv_parser, void (*)(csv_parser*)> guard(&parser, csv_free);
  csv_set_delim(&parser, static_cast<unsigned char>(delimiter));
  // libcsv trims spaces and tabs around unquoted fields by default: "a, b" (Adult's style) →
  // fields "a" and "b". (A custom space function would cost a call per byte.)
  bool warned = false;
  const auto deliver = [&] {
    if (!state.error.empty()) throw std::runtime_error(state.error);
    if (state.header_looks_like_data && !warned) {
      warned = true;
      std::cerr << "tinyldp: warning: the first row of " << source.path
                << " looks like data (every field is a number) but is read as the header; if the file "
                   "has no header, pass --no-header (--truth-no-header for aggregate --truth) and an "
                   "index as --column\n";
    }
    for (const Entry& e : state.entries) {
      const std::string where = source.path + ":" + std::to_string(e.row);
      if (!e.present) throw std::runtime_error(where + ": row has no column " + std::to_string(*state.column));
      take(std::string_view(state.text).substr(e.begin, e.length), e.row);
    }
    rows += state.entries.size();
    state.entries.clear();
    state.text.clear();
  };
  for (std::string_view chunk = next_chunk(); !chunk.empty(); chunk = next_chunk()) {
    const std::size_t parsed = csv_parse(&parser, chunk.data(), chunk.size(), on_field, on_row, &state);
    if (!state.error.empty()) deliver();  // throws: the column is checked before any data
    if (parsed != chunk.size())
      throw std::runtime_error(source.path + ": CSV error: " + csv_strerror(csv_error(&parser)));
    deliver();
    progress.update(file.done(), rows);
  }
  csv_fini(&parser, on_field, on_row, &state);
  if (state.in_header && source.has_header) throw std::runtime_error(source.path + ": no rows (not even a header)");
  deliver();
  progress.finish(file.done(), rows);
}

std::uint32_t parse_index(std::string_view text, std::uint32_t domain, const std::string& where) {
  std::uint32_t v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || text.empty())
    throw std::runtime_error(where + ": \"" + std::string(text) +
                             "\" is not a category index (use --labels for text values)");
  if (v >= domain)
    throw std::runtime_error(where + ": value " + std::string(text) + " is outside the domain [0, " +
                             std::to_string(domain) + ")");
  return v;
}

}  // namespace

char parse_delimiter(const std::string& text) {
  if (text == "tab" || text == "\\t" || text == "\t") return '\t';
  if (text.size() != 1 || text[0] == '"' || text[0] == '\n' || text[0] == '\r')
    throw std::runtime_error("--delimiter \"" + text +
                             "\": give one character (e.g. ; or |, or tab), not a quote or a line break");
  return text[0];
}

InputCounts for_each_private_value(const ValueSource& source, const collector::Mechanism& m,
                                   LabelMap* labels, const std::function<void(std::int64_t)>& take) {
  if (m.numeric() && labels != nullptr) throw std::runtime_error("--labels is for categorical mechanisms");
  if (source.missing == Missing::category && labels == nullptr)
    throw std::runtime_error("--missing category makes an empty field the label \"\": it needs a labelled "
                             "categorical column (--labels); use --missing skip or error");
  if (source.clamp && !m.numeric())
    throw std::runtime_error("--clamp is for the numeric mechanisms (values of [--lo, --hi])");
  InputCounts counts;
  const std::int32_t lo = m.config().lo, hi = m.config().hi;
  const std::string column = source.column ? " of column \"" + *source.column + "\"" : "";
  for_each_field(source, [&](std::string_view field, std::uint64_t row) {
    const auto where = [&] { return source.path + ":" + std::to_string(row); };
    for (const auto& m : source.missing_as)
      if (field == m) field = {};
    if (field.empty() && source.missing != Missing::category) {
      if (source.missing == Missing::skip) {
        ++counts.skipped;
        return;
      }
      throw std::runtime_error(where() + ": missing value" + column +
                               " (--missing skip drops such rows; --missing category makes them a label)");
    }
    ++counts.values;
    if (m.bloom()) return take(collector::bloom_value(field));  // a string, hashed as the device does
    if (labels != nullptr) {
      const auto known = labels->find(field);
      return take(known ? *known : labels->index(field, where()));
    }
    if (!m.numeric()) return take(parse_index(field, m.domain(), where()));
    std::int64_t v = 0;
    const char* begin = field.data() + (field[0] == '+' ? 1 : 0);
    const char* end = field.data() + field.size();
    const auto [ptr, ec] = std::from_chars(begin, end, v);
    if (ec != std::errc() || ptr != end || begin == end)
      throw std::runtime_error(where() + ": \"" + std::string(field) +
                               "\" is not an integer (numeric mechanisms take integers of [--lo, --hi])");
    if (v < lo || v > hi) {
      if (!source.clamp)
        throw std::runtime_error(where() + ": value " + std::string(field) + " is outside [" + std::to_string(lo) +
                                 ", " + std::to_string(hi) + "] (--lo, --hi; --clamp moves it to the nearer end)");
      ++counts.clamped;
      v = v < lo ? lo : hi;
    }
    take(v);
  });
  return counts;
}

}  // namespace tinyldp::tools
