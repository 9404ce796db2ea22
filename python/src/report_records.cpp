// SPDX-License-Identifier: Apache-2.0
#include "report_records.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "tinyldp/endian.hpp"

namespace tinyldp::python {

namespace {

std::invalid_argument failure(const std::string& where, const std::string& why) {
  return std::invalid_argument(where + ": " + why);
}

FileError file_error(const std::string& what) {
  const int e = errno;
  return FileError(e, what + ": " + std::strerror(e));
}

// A file descriptor closed on every path.
class File {
 public:
  explicit File(const std::string& path) : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw file_error("cannot open " + path);
  }
  ~File() { ::close(fd_); }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  std::uint64_t size() const {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) throw file_error("cannot stat " + path_);
    return static_cast<std::uint64_t>(st.st_size);
  }
  // Reads up to n bytes at offset (fewer only at the end of the file).
  std::size_t read_at(std::uint64_t offset, std::uint8_t* out, std::size_t n) const {
    std::size_t done = 0;
    while (done < n) {
      const ssize_t got = ::pread(fd_, out + done, n - done, static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw file_error("cannot read " + path_);
      if (got == 0) break;
      done += static_cast<std::size_t>(got);
    }
    return done;
  }

 private:
  std::string path_;
  int fd_;
};

// The bytes of [start, end) of a file, handed out in order through take(n), read in 1 MiB blocks.
class FileRangeReader {
 public:
  FileRangeReader(const File& file, std::uint64_t start, std::uint64_t end)
      : file_(file), next_(start), end_(end), buffer_(block + 65536) {}
  // The next n bytes (n ≤ 65535 + 2), or fewer at the end of the range.
  std::span<const std::uint8_t> take(std::size_t n) {
    if (hi_ - lo_ < n && next_ < end_) {
      std::memmove(buffer_.data(), buffer_.data() + lo_, hi_ - lo_);
      hi_ -= lo_;
      lo_ = 0;
      const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer_.size() - hi_, end_ - next_));
      const std::size_t got = file_.read_at(next_, buffer_.data() + hi_, want);
      hi_ += got;
      next_ = got < want ? end_ : next_ + got;  // a short read is the end of the file
    }
    const std::size_t k = std::min(n, hi_ - lo_);
    const std::span<const std::uint8_t> out(buffer_.data() + lo_, k);
    lo_ += k;
    return out;
  }

 private:
  static constexpr std::size_t block = std::size_t{1} << 20;
  const File& file_;
  std::uint64_t next_, end_;
  std::vector<std::uint8_t> buffer_;
  std::size_t lo_ = 0, hi_ = 0;
};

// The same over bytes in memory.
class SpanReader {
 public:
  explicit SpanReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  std::span<const std::uint8_t> take(std::size_t n) {
    const auto out = bytes_.first(std::min(n, bytes_.size()));
    bytes_ = bytes_.subspan(out.size());
    return out;
  }

 private:
  std::span<const std::uint8_t> bytes_;
};

// Calls on_record(offset, report) for every record the reader yields from `offset` on, until the
// reader ends cleanly between records; throws, naming `where`, for a broken record. A record
// cut short calls cut_short(offset of the record), which throws.
template <class Reader, class OnRecord, class CutShort>
collector::RecordsDigest scan_records(Reader& reader, std::uint64_t offset, const collector::Mechanism& m,
                                      const std::string& where, OnRecord&& on_record, CutShort&& cut_short) {
  // The declared length is bounded by the mechanism's largest report, as ReportFileReader does.
  const std::size_t largest = m.description().report_bytes(wire::known_fields);
  collector::RecordsDigest digest;
  for (;;) {
    const auto length = reader.take(2);
    if (length.empty()) return digest;
    if (length.size() != 2) {
      cut_short(offset);  // throws
      return digest;
    }
    const std::size_t n = get_le<std::uint16_t>(length.data());
    if (n == 0) throw failure(where, "an empty record at byte " + std::to_string(offset) + " inside the records");
    if (n > largest)
      throw failure(where, "the record at byte " + std::to_string(offset) + " declares " + std::to_string(n) +
                               " bytes, more than any report of this mechanism (" + std::to_string(largest) + ")");
    const auto report = reader.take(n);
    if (report.size() != n) {
      cut_short(offset);  // throws
      return digest;
    }
    on_record(offset, report);
    digest.add(report);
    offset += 2 + n;
  }
}

// Where the records of a file of `size` bytes start and end, and its trailer: after the promise
// and before the trailer when it promised one (read here), else after the header and at the end.
template <class ReadAt>
void locate_records(FileHeader& h, std::uint64_t size, ReadAt&& read_at, const std::string& where) {
  h.file_bytes = size;
  h.records_end = size;
  std::uint8_t promise[collector::report_file_promise_bytes];
  if (read_at(h.header_bytes, promise, sizeof promise) != sizeof promise || !collector::is_report_file_promise(promise))
    return;
  h.header_bytes += sizeof promise;
  std::uint8_t trailer[collector::report_file_trailer_bytes];
  const auto parsed = size >= h.header_bytes + sizeof trailer &&
                              read_at(size - sizeof trailer, trailer, sizeof trailer) == sizeof trailer
                          ? collector::parse_report_file_trailer(trailer)
                          : std::nullopt;
  if (!parsed) throw failure(where, "cut short: the file promised a trailer and does not end with one");
  h.trailer = parsed;
  h.records_end = size - sizeof trailer;
}

}  // namespace

void check_trailer(const std::string& where, const FileHeader& h, const collector::RecordsDigest& read) {
  if (!h.trailer || *h.trailer == read) return;
  throw failure(where, "the trailer counts " + std::to_string(h.trailer->records) + " record(s) with digest " +
                           std::to_string(h.trailer->sum) + "; the file holds " + std::to_string(read.records) +
                           " with digest " + std::to_string(read.sum) + " (records lost, added or changed)");
}

FileHeader read_file_header(const std::string& path) {
  const File file(path);
  FileHeader h{.config = {}, .header_bytes = 0, .file_bytes = file.size(), .records_end = 0, .trailer = {},
               .first_record_bytes = 0};
  std::vector<std::uint8_t> bytes(8);
  if (file.read_at(0, bytes.data(), 8) != 8 || (h.header_bytes = collector::report_file_header_size(bytes)) == 0)
    throw failure(path, "not a tinyldp report file (bad magic)");
  bytes.resize(h.header_bytes);
  if (file.read_at(8, bytes.data() + 8, h.header_bytes - 8) != h.header_bytes - 8)
    throw failure(path, "too short for a report file header");
  std::string error;
  auto config = collector::parse_report_file_config(bytes, error);
  if (!config) throw failure(path, error);
  h.config = std::move(*config);
  locate_records(h, h.file_bytes, [&](std::uint64_t at, std::uint8_t* out, std::size_t n) { return file.read_at(at, out, n); },
                 path);
  std::uint8_t length[2];
  if (h.records_end >= h.header_bytes + 2 && file.read_at(h.header_bytes, length, 2) == 2)
    h.first_record_bytes = get_le<std::uint16_t>(length);
  return h;
}

RangeAggregate aggregate_file_range(const std::string& path, std::optional<std::uint64_t> start,
                                    std::optional<std::uint64_t> end) {
  const FileHeader h = read_file_header(path);
  const std::uint64_t from = start.value_or(h.header_bytes), to = end.value_or(h.records_end);
  if (from < h.header_bytes || from > to || to > h.records_end)
    throw failure(path, "byte range [" + std::to_string(from) + ", " + std::to_string(to) +
                            ") is not within the records (bytes " + std::to_string(h.header_bytes) + " to " +
                            std::to_string(h.records_end) + ")");
  RangeAggregate out{collector::EpochSeries(h.config.mechanism, h.config.labels), {}, {}};
  const File file(path);
  FileRangeReader reader(file, from, to);
  const auto cut_short = [&](std::uint64_t at) {
    if (to < h.records_end)
      throw RangeNotAtRecords(path + ": the record at byte " + std::to_string(at) + " runs past the range's end " +
                               std::to_string(to) + ": the range does not end at a record boundary");
    throw failure(path, "truncated record at byte " + std::to_string(at));
  };
  out.digest = scan_records(reader, from, h.config.mechanism, path, [&](std::uint64_t, std::span<const std::uint8_t> r) {
    const collector::ParseError e = out.series.ingest(r);
    if (e != collector::ParseError::none) ++out.rejected[collector::to_string(e)];
  }, cut_short);
  if (from == h.header_bytes && to == h.records_end) {  // the whole file
    check_trailer(path, h, out.digest);
    if (out.digest.records > 0) out.series.add_source({out.digest.sum, std::nullopt});
  }
  return out;
}

Reports read_file_records(const std::string& path, const FileHeader& h) {
  const File file(path);
  FileRangeReader reader(file, h.header_bytes, h.records_end);
  Reports out;
  out.data.reserve(h.records_end - h.header_bytes);
  const auto digest = scan_records(reader, h.header_bytes, h.config.mechanism, path,
                                   [&](std::uint64_t, std::span<const std::uint8_t> r) { out.push_back(r); },
                                   [&](std::uint64_t at) { throw failure(path, "truncated record at byte " + std::to_string(at)); });
  check_trailer(path, h, digest);
  return out;
}

std::pair<collector::ReportFileConfig, Reports> parse_report_file_bytes(std::span<const std::uint8_t> bytes) {
  const std::string where = "report file bytes";
  const std::size_t size = bytes.size() >= 8 ? collector::report_file_header_size(bytes.first(8)) : 0;
  if (size == 0) throw failure(where, "not a tinyldp report file (bad magic)");
  if (bytes.size() < size) throw failure(where, "too short for a report file header");
  std::string error;
  auto config = collector::parse_report_file_config(bytes.first(size), error);
  if (!config) throw failure(where, error);
  FileHeader h{.config = *config, .header_bytes = size, .file_bytes = 0, .records_end = 0, .trailer = {},
               .first_record_bytes = 0};
  locate_records(h, bytes.size(), [&](std::uint64_t at, std::uint8_t* out, std::size_t n) {
    const std::size_t k = at < bytes.size() ? std::min<std::size_t>(n, bytes.size() - static_cast<std::size_t>(at)) : 0;
    if (k > 0) std::memcpy(out, bytes.data() + at, k);
    return k;
  }, where);
  SpanReader reader(bytes.subspan(h.header_bytes, h.records_end - h.header_bytes));
  Reports out;
  out.data.reserve(bytes.size() - size);
  const auto digest = scan_records(reader, h.header_bytes, config->mechanism, where,
                                   [&](std::uint64_t, std::span<const std::uint8_t> r) { out.push_back(r); },
                                   [&](std::uint64_t at) { throw failure(where, "truncated record at byte " + std::to_string(at)); });
  check_trailer(where, h, digest);
  return {std::move(*config), std::move(out)};
}

std::vector<std::uint64_t> record_boundaries(const std::string& path, std::size_t parts) {
  const FileHeader h = read_file_header(path);
  if (parts == 0) parts = 1;
  const std::uint64_t body = h.records_end - h.header_bytes;
  std::vector<std::uint64_t> starts{h.header_bytes};
  const File file(path);
  FileRangeReader reader(file, h.header_bytes, h.records_end);
  const auto digest = scan_records(reader, h.header_bytes, h.config.mechanism, path,
               [&](std::uint64_t at, std::span<const std::uint8_t>) {
                 // The first record at or after the next k/parts of the body starts range k.
                 const std::uint64_t target = h.header_bytes + body / parts * starts.size();
                 if (starts.size() < parts && at >= target && at > starts.back()) starts.push_back(at);
               },
               [&](std::uint64_t at) { throw failure(path, "truncated record at byte " + std::to_string(at)); });
  check_trailer(path, h, digest);
  return starts;
}

}  // namespace tinyldp::python
