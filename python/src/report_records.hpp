// SPDX-License-Identifier: Apache-2.0
// What the Python bindings hold reports in, and how they read a report file's records from a
// byte range — the unit a Dask worker aggregates (python/tinyldp/dask.py).
//
// Reports: many wire reports in one buffer with an offset per report (numpy views of both, no
// copy per report). A byte range of a report file is read in 1 MiB blocks; it must start where
// a record starts and its last record must end exactly at the range's end, so that ranges which
// chain from the header to the end of the file are known to have split it at record boundaries
// (every range then starts where the previous one ended, and the first where the header does).
// Host only.
#ifndef TINYLDP_PYTHON_REPORT_RECORDS_HPP
#define TINYLDP_PYTHON_REPORT_RECORDS_HPP

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/epoch_series.hpp"
#include "tinyldp/collector/report_file.hpp"

namespace tinyldp::python {

struct Reports {
  std::vector<std::uint8_t> data;
  std::vector<std::uint64_t> offsets{0};  // report i is data[offsets[i], offsets[i + 1])

  std::size_t size() const { return offsets.size() - 1; }
  std::span<const std::uint8_t> operator[](std::size_t i) const {
    return {data.data() + offsets[i], static_cast<std::size_t>(offsets[i + 1] - offsets[i])};
  }
  void push_back(std::span<const std::uint8_t> report) {
    data.insert(data.end(), report.begin(), report.end());
    offsets.push_back(data.size());
  }
};

// A report file's header: the configuration it records, where its records start and end, and
// the file's size. A file written now promises a trailer (report_file.hpp): its records
// start after the promise and end before the trailer, which read_file_header reads (a promised
// file without one is cut short: refused); an older file's records run from the header to the end.
struct FileHeader {
  collector::ReportFileConfig config;
  std::uint64_t header_bytes = 0;  // where the records start (after the promise, if any)
  std::uint64_t file_bytes = 0;
  std::uint64_t records_end = 0;   // where they end (before the trailer, if any)
  std::optional<collector::RecordsDigest> trailer;
  // The length of the first record (0 if the file has none): a file whose records all have it
  // splits at header_bytes + k·(2 + first_record_bytes).
  std::uint64_t first_record_bytes = 0;
};
// Throws FileError, or std::invalid_argument naming the file and what is wrong with it.
FileHeader read_file_header(const std::string& path);

// A file that cannot be opened or read: errno and a message naming the file (OSError in Python).
struct FileError : std::runtime_error {
  FileError(int error, const std::string& message) : std::runtime_error(message), error_number(error) {}
  int error_number;
};

// A range whose last record runs past its end: the range was not cut at a record boundary.
struct RangeNotAtRecords : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// What reading a range produced: its aggregate (per epoch), the rejected reports by reason, the
// records read and their digest. A range that is the whole file is checked against the trailer
// (a mismatch throws) and records the file as the series' source (aggregator.hpp's Source).
struct RangeAggregate {
  collector::EpochSeries series;
  std::map<std::string, std::uint64_t> rejected;
  collector::RecordsDigest digest;
  std::uint64_t records() const { return digest.records; }
};
// Aggregates the records of path in [start, end) (defaults: after the header; the end of the
// file's records). Throws as read_file_header, and std::invalid_argument if the range is not within the records, a record is
// broken (longer than any report of the mechanism, or cut by the end of the file), or the last
// record crosses `end`.
RangeAggregate aggregate_file_range(const std::string& path, std::optional<std::uint64_t> start,
                                    std::optional<std::uint64_t> end);
// Whether a whole file's records match its trailer: throws std::invalid_argument naming the
// file if not (nothing to check in a file written before trailers).
void check_trailer(const std::string& where, const FileHeader& h, const collector::RecordsDigest& read);
// Every record of the file, read whole; the same errors.
Reports read_file_records(const std::string& path, const FileHeader& header);
// The same from a report file held in memory (its header first).
std::pair<collector::ReportFileConfig, Reports> parse_report_file_bytes(std::span<const std::uint8_t> bytes);

// The offsets at which `parts` ranges of about equal size start (a full pass over the length
// prefixes; ranges end where the next starts, the last at the end of the file).
std::vector<std::uint64_t> record_boundaries(const std::string& path, std::size_t parts);

}  // namespace tinyldp::python

#endif
