// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/report_file.hpp — a file of reports, as `tinyldp simulate` writes and
// `tinyldp aggregate` / `inspect` read.
//
// Layout (docs/wire-format.md): a header — version 1: 40 bytes, "TLDPREP1", the mechanism id,
// ε·2^32, domain, precision bits, tolerance·2^32, the parameter digest; version 2: 64 bytes,
// "TLDPREP2", the same and the numeric parameters (lo, hi, levels, sensitivity, noise bits) —
// then records, each a u16 little-endian length followed by one wire report. Writers use
// version 1 for the categorical mechanisms (files older readers still read) and version 2 for
// sd and dlaplace; readers accept both, version 2 for any mechanism. The header lets a reader
// rebuild the exact mechanism; every record is still parsed strictly on its own. The header is
// the collector's one serialized configuration: saved aggregate states embed it too. Host only.
#ifndef TINYLDP_COLLECTOR_REPORT_FILE_HPP
#define TINYLDP_COLLECTOR_REPORT_FILE_HPP

#include <cstdint>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tinyldp/collector/mechanism.hpp"

namespace tinyldp::collector {

inline constexpr std::size_t report_file_header_bytes = 40;     // version 1
inline constexpr std::size_t report_file_header_v2_bytes = 64;  // version 2

// The header writers use: version 1 if it can describe m, else version 2.
std::vector<std::uint8_t> report_file_header(const Mechanism& m);
std::vector<std::uint8_t> report_file_header_v2(const Mechanism& m);
// The header size its first 8 bytes (the magic) announce: 40, 64, or 0 if not a report file.
std::size_t report_file_header_size(std::span<const std::uint8_t> magic);
// Rebuilds the mechanism a header describes; nullopt with a reason if the header is invalid.
std::optional<Mechanism> parse_report_file_header(std::span<const std::uint8_t> header,
                                                  std::string& error);

class ReportFileWriter {
 public:
  ReportFileWriter(const std::string& path, const Mechanism& m);
  bool ok() const { return static_cast<bool>(out_); }
  void write(std::span<const std::uint8_t> report);

 private:
  std::ofstream out_;
};

class ReportFileReader {
 public:
  // Opens and checks the header; ok() is false with error() set if anything is wrong.
  explicit ReportFileReader(const std::string& path);
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  const Mechanism& mechanism() const { return *mechanism_; }
  // The next record, or false at the end of the file or on a broken record (error() set).
  bool next(std::vector<std::uint8_t>& report);
  std::uint64_t records_read() const { return records_; }

 private:
  std::ifstream in_;
  std::optional<Mechanism> mechanism_;
  std::string error_;
  std::uint64_t records_ = 0;
};

}  // namespace tinyldp::collector

#endif
