// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/report_file.hpp"

#include <cstring>

#include "byte_vector.hpp"

namespace tinyldp::collector {

namespace {
constexpr char magic[8] = {'T', 'L', 'D', 'P', 'R', 'E', 'P', '1'};
constexpr char magic_v2[8] = {'T', 'L', 'D', 'P', 'R', 'E', 'P', '2'};
}  // namespace

// Version 1: magic(8) id(1) eps_q32(8) domain(4) max_bits(1) tolerance_q32(8) digest(4)
//            reserved(6)
// Version 2: the same 34 bytes (magic "TLDPREP2"), then lo(i32 4) hi(i32 4) levels(4)
//            sensitivity(4) noise_bits(1) reserved(13): 64 bytes.
namespace {
std::vector<std::uint8_t> common_header(const Mechanism& m, const char* which) {
  std::vector<std::uint8_t> h(which, which + 8);
  const MechanismConfig& c = m.config();
  h.push_back(static_cast<std::uint8_t>(c.id));
  append_le<std::uint64_t>(h, c.epsilon.q32, 8);
  append_le<std::uint64_t>(h, c.domain, 4);
  h.push_back(c.precision.max_bits);
  append_le<std::uint64_t>(h, c.precision.tolerance_q32, 8);
  append_le<std::uint64_t>(h, m.description().digest, 4);
  return h;
}
}  // namespace

std::vector<std::uint8_t> report_file_header(const Mechanism& m) {
  if (m.numeric()) return report_file_header_v2(m);
  std::vector<std::uint8_t> h = common_header(m, magic);
  append_le<std::uint64_t>(h, 0, 6);
  return h;
}

std::vector<std::uint8_t> report_file_header_v2(const Mechanism& m) {
  std::vector<std::uint8_t> h = common_header(m, magic_v2);
  const MechanismConfig& c = m.config();
  append_le<std::uint64_t>(h, static_cast<std::uint32_t>(c.lo), 4);
  append_le<std::uint64_t>(h, static_cast<std::uint32_t>(c.hi), 4);
  append_le<std::uint64_t>(h, c.levels, 4);
  append_le<std::uint64_t>(h, c.sensitivity, 4);
  h.push_back(c.noise_bits);
  append_le<std::uint64_t>(h, 0, 8);
  append_le<std::uint64_t>(h, 0, 5);
  return h;
}

std::size_t report_file_header_size(std::span<const std::uint8_t> m) {
  if (m.size() < 8) return 0;
  if (std::memcmp(m.data(), magic, 8) == 0) return report_file_header_bytes;
  if (std::memcmp(m.data(), magic_v2, 8) == 0) return report_file_header_v2_bytes;
  return 0;
}

std::optional<Mechanism> parse_report_file_header(std::span<const std::uint8_t> h,
                                                  std::string& error) {
  const std::size_t size = report_file_header_size(h);
  if (size == 0) {
    error = "not a tinyldp report file (bad magic)";
    return std::nullopt;
  }
  if (h.size() != size) {
    error = "report file header of the wrong size";
    return std::nullopt;
  }
  MechanismConfig c;
  c.id = static_cast<MechanismId>(h[8]);
  c.epsilon = Epsilon::from_q32(get_le<std::uint64_t>(&h[9], 8));
  c.domain = static_cast<std::uint32_t>(get_le<std::uint64_t>(&h[17], 4));
  c.precision.max_bits = h[21];
  c.precision.tolerance_q32 = get_le<std::uint64_t>(&h[22], 8);
  const auto digest = static_cast<std::uint32_t>(get_le<std::uint64_t>(&h[30], 4));
  bool reserved_zero = true;
  if (size == report_file_header_bytes) {
    reserved_zero = get_le<std::uint64_t>(&h[34], 6) == 0;
  } else {
    c.lo = static_cast<std::int32_t>(get_le<std::uint64_t>(&h[34], 4));
    c.hi = static_cast<std::int32_t>(get_le<std::uint64_t>(&h[38], 4));
    c.levels = static_cast<std::uint32_t>(get_le<std::uint64_t>(&h[42], 4));
    c.sensitivity = static_cast<std::uint32_t>(get_le<std::uint64_t>(&h[46], 4));
    c.noise_bits = h[50];
    reserved_zero = get_le<std::uint64_t>(&h[51], 8) == 0 && get_le<std::uint64_t>(&h[59], 5) == 0;
  }
  if (!reserved_zero) {
    error = "report file header has nonzero reserved bytes";
    return std::nullopt;
  }
  return Mechanism::from_stored(c, digest, "report file header", error);
}

ReportFileWriter::ReportFileWriter(const std::string& path, const Mechanism& m)
    : out_(path, std::ios::binary | std::ios::trunc) {
  const auto h = report_file_header(m);
  out_.write(reinterpret_cast<const char*>(h.data()), static_cast<std::streamsize>(h.size()));
}

void ReportFileWriter::write(std::span<const std::uint8_t> report) {
  std::uint8_t len[2];
  put_le(len, static_cast<std::uint16_t>(report.size()));
  out_.write(reinterpret_cast<const char*>(len), 2);
  out_.write(reinterpret_cast<const char*>(report.data()), static_cast<std::streamsize>(report.size()));
}

ReportFileReader::ReportFileReader(const std::string& path) : in_(path, std::ios::binary) {
  if (!in_) {
    error_ = "cannot open " + path;
    return;
  }
  std::vector<std::uint8_t> h(8);
  in_.read(reinterpret_cast<char*>(h.data()), 8);
  const std::size_t size = in_.gcount() == 8 ? report_file_header_size(h) : 0;
  if (size == 0) {
    error_ = path + ": not a tinyldp report file (bad magic)";
    return;
  }
  h.resize(size);
  in_.read(reinterpret_cast<char*>(h.data() + 8), static_cast<std::streamsize>(size - 8));
  if (in_.gcount() != static_cast<std::streamsize>(size - 8)) {
    error_ = path + ": too short for a report file header";
    return;
  }
  mechanism_ = parse_report_file_header(h, error_);
  if (!mechanism_) error_ = path + ": " + error_;
}

bool ReportFileReader::next(std::vector<std::uint8_t>& report) {
  if (!ok()) return false;
  std::uint8_t len[2];
  in_.read(reinterpret_cast<char*>(len), 2);
  if (in_.gcount() == 0) return false;  // clean end of file
  if (in_.gcount() != 2) {
    error_ = "truncated record length after record " + std::to_string(records_);
    return false;
  }
  // The declared length is bounded by the mechanism's largest report: nothing proportional
  // to an attacker-declared length is allocated.
  const std::size_t n = get_le<std::uint16_t>(len);
  const std::size_t largest = mechanism_->description().report_bytes(wire::known_fields);
  if (n > largest) {
    error_ = "record " + std::to_string(records_) + " declares " + std::to_string(n) +
             " bytes, more than any report of this mechanism (" + std::to_string(largest) + ")";
    return false;
  }
  report.resize(n);
  in_.read(reinterpret_cast<char*>(report.data()), static_cast<std::streamsize>(n));
  if (static_cast<std::size_t>(in_.gcount()) != n) {
    error_ = "truncated record " + std::to_string(records_);
    return false;
  }
  ++records_;
  return true;
}

}  // namespace tinyldp::collector
