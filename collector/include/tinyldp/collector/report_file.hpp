// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/report_file.hpp — a file of reports, as `tinyldp simulate` writes and
// `tinyldp aggregate` / `inspect` read.
//
// Layout (docs/wire-format.md): a header — version 1: 40 bytes, "TLDPREP1", the mechanism id,
// ε·2^32, domain, precision bits, tolerance·2^32, the parameter digest; version 2: 64 bytes,
// "TLDPREP2", the same and the numeric parameters (lo, hi, levels, sensitivity, noise bits);
// version 3: 96 bytes, "TLDPREP3", version 2's fields and the digest of the label mapping
// (label_digest.hpp); version 4: 160 bytes, "TLDPREP4", version 3's fields (an all-zero digest:
// no mapping) and the memoized mechanisms' parameters (ε₁, RAPPOR's f, p, q, 1BitMean's grid
// step); version 5: 416 bytes, "TLDPREP5", version 4's fields (domain: the number of attributes)
// and the record mechanisms' attribute sizes (up to 64) — then records, each a u16
// little-endian length (a report longer than 65535 bytes cannot be written) followed by one wire
// report. Writers use version 3 when the items have labels, else version 1 for the categorical
// mechanisms (files older readers still read) and version 2 for sd, dlaplace, pm and hm; readers accept
// all three, version 2 for any mechanism. The header lets a reader rebuild the exact mechanism;
// every record is still parsed strictly on its own. The header is the collector's one
// serialized configuration: saved aggregate states embed it too.
//
// Completeness: files written now carry, right after the header, a zero-length record
// followed by "TLDPTRL1" (the promise of a trailer) and end with a zero-length record followed
// by the trailer, "TLDPEND1", the record count (u64) and the records' digest (u64: the sum mod
// 2^64 of record_digest over the records, so ranges of a file can be digested apart and added).
// A reader of such a file refuses one that ends without its trailer (cut short, even at a record
// boundary), whose count or digest differs, or that goes on after it. A file without the promise
// (written before trailers) is read as before, with a warning: a cut at a record boundary cannot be
// seen there. The digest also identifies a file's contents: the same file given twice, or a
// copy of it, is refused by `aggregate` (and by merges of states that counted it). Host only.
#ifndef TINYLDP_COLLECTOR_REPORT_FILE_HPP
#define TINYLDP_COLLECTOR_REPORT_FILE_HPP

#include <cstdint>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tinyldp/collector/label_digest.hpp"
#include "tinyldp/collector/mechanism.hpp"

namespace tinyldp::collector {

inline constexpr std::size_t report_file_header_bytes = 40;     // version 1
inline constexpr std::size_t report_file_header_v2_bytes = 64;  // version 2
inline constexpr std::size_t report_file_header_v3_bytes = 96;  // version 3 (labelled items)
inline constexpr std::size_t report_file_header_v4_bytes = 160;  // version 4 (memoized mechanisms)
inline constexpr std::size_t report_file_header_v5_bytes = 416;  // version 5 (record mechanisms)

// The header writers use: version 5 for a record mechanism, version 4 for a memoized one, else
// version 3 if the items have labels, else version 1 if it can describe m, else version 2.
std::vector<std::uint8_t> report_file_header(const Mechanism& m, const LabelMappingId& labels = {});
std::vector<std::uint8_t> report_file_header_v2(const Mechanism& m);
// The header size its first 8 bytes (the magic) announce: 40, 64, 96, 160, 416, or 0 if not a
// report file.
std::size_t report_file_header_size(std::span<const std::uint8_t> magic);

// A zero-length record is never a report: it introduces the promise or the trailer.
inline constexpr std::size_t report_file_promise_bytes = 2 + 8;
inline constexpr std::size_t report_file_trailer_bytes = 2 + 8 + 8 + 8;
// The promise's 10 bytes (a zero length, "TLDPTRL1") and whether `bytes` starts with them.
std::vector<std::uint8_t> report_file_promise();
bool is_report_file_promise(std::span<const std::uint8_t> bytes);
// The trailer's 26 bytes for `records` records with `digest`, and reading them back (nullopt:
// not a trailer).
struct RecordsDigest {
  std::uint64_t records = 0;
  std::uint64_t sum = 0;  // Σ record_digest mod 2^64
  void add(std::span<const std::uint8_t> report);
  void add(const RecordsDigest& other) {
    records += other.records;
    sum += other.sum;
  }
  bool operator==(const RecordsDigest&) const = default;
};
std::vector<std::uint8_t> report_file_trailer(const RecordsDigest& d);
std::optional<RecordsDigest> parse_report_file_trailer(std::span<const std::uint8_t> bytes);
// A 64-bit hash of one record (its length and its bytes): not cryptographic — it tells
// accidents (a cut, a flipped byte, the same file twice) apart, not an adversary's forgery.
std::uint64_t record_digest(std::span<const std::uint8_t> report);

// What a header says: the mechanism and the label mapping of its items.
struct ReportFileConfig {
  Mechanism mechanism;
  LabelMappingId labels;
};
// Rebuilds the configuration a header describes; nullopt with a reason if it is invalid.
std::optional<ReportFileConfig> parse_report_file_config(std::span<const std::uint8_t> header,
                                                         std::string& error);
// The mechanism alone.
std::optional<Mechanism> parse_report_file_header(std::span<const std::uint8_t> header,
                                                  std::string& error);

class ReportFileWriter {
 public:
  ReportFileWriter(const std::string& path, const Mechanism& m, const LabelMappingId& labels = {});
  bool ok() const { return static_cast<bool>(out_); }
  void write(std::span<const std::uint8_t> report);
  const RecordsDigest& digest() const { return digest_; }
  // Rewrites the header with the label mapping known only at the end (labels numbered in order
  // of first appearance); the file must have been opened with a (placeholder) mapping.
  void set_labels(const LabelDigest& labels);
  // Writes the trailer, flushes and closes; false if anything failed since opening.
  bool close();

 private:
  std::ofstream out_;
  bool labelled_;
  RecordsDigest digest_;
};

class ReportFileReader {
 public:
  // Opens and checks the header; ok() is false with error() set if anything is wrong.
  explicit ReportFileReader(const std::string& path);
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  const Mechanism& mechanism() const { return config_->mechanism; }
  const LabelMappingId& labels() const { return config_->labels; }
  // The next record, or false at the end of the file or on a broken record (error() set): a
  // file that promised a trailer and ends without it, or whose trailer does not match.
  bool next(std::vector<std::uint8_t>& report);
  std::uint64_t records_read() const { return records_.records; }
  // The records read so far (all of them, once next() returned false with ok()).
  const RecordsDigest& digest() const { return records_; }
  // Whether the file promised a trailer (all files written now): only then is a cut detected.
  bool has_trailer() const { return promised_; }

 private:
  std::ifstream in_;
  std::optional<ReportFileConfig> config_;
  std::string error_;
  RecordsDigest records_;
  bool promised_ = false, ended_ = false;
};

}  // namespace tinyldp::collector

#endif
