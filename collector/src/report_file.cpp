// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/report_file.hpp"

#include <cerrno>
#include <cstring>

#include "byte_vector.hpp"

namespace tinyldp::collector {

namespace {
constexpr char report_magic[8] = {'T', 'L', 'D', 'P', 'R', 'E', 'P', '1'};
constexpr char report_magic_v2[8] = {'T', 'L', 'D', 'P', 'R', 'E', 'P', '2'};
constexpr char report_magic_v3[8] = {'T', 'L', 'D', 'P', 'R', 'E', 'P', '3'};
constexpr char report_magic_v4[8] = {'T', 'L', 'D', 'P', 'R', 'E', 'P', '4'};
constexpr char report_magic_v5[8] = {'T', 'L', 'D', 'P', 'R', 'E', 'P', '5'};
constexpr char promise_magic[8] = {'T', 'L', 'D', 'P', 'T', 'R', 'L', '1'};
constexpr char trailer_magic[8] = {'T', 'L', 'D', 'P', 'E', 'N', 'D', '1'};
constexpr std::size_t label_digest_at = report_file_header_v2_bytes;

// splitmix64's finalizer: every input bit reaches every output bit.
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
constexpr std::size_t memo_block_at = report_file_header_v3_bytes;
}  // namespace

// Version 1: magic(8) id(1) eps_q32(8) domain(4) max_bits(1) tolerance_q32(8) digest(4)
//            reserved(6)
// Version 2: the same 34 bytes (magic "TLDPREP2"), then lo(i32 4) hi(i32 4) levels(4)
//            sensitivity(4) noise_bits(1) branching(u32 4: hh, else 0 — reserved zeros before
//            hh, so older files read as 0) reserved(9): 64 bytes.
// Version 3: version 2's 64 bytes (magic "TLDPREP3"), then the label digest (32): 96 bytes.
// Version 4 (the memoized mechanisms): version 3's 96 bytes (magic "TLDPREP4"; an all-zero label
//            digest: no mapping), then epsilon_one_q32(8) f(u64 num 8, bits 1) p(9) q(9)
//            grid_step(u32 4: 1bitmean, dbitflip, else 0) sampled(u32 4: dbitflip, else 0)
//            bloom_hashes(u32 4) bloom_cohorts(u32 4) (a Bloom filter's h and m; 0 for one-hot,
//            which older files wrote as reserved zeros) reserved(13): 160 bytes.
// Version 5 (the record mechanisms): version 4's 160 bytes (magic "TLDPREP5"; domain = d, the
//            number of attributes), then the attributes' sizes k_0 … k_{d−1} (u32 each) and zeros
//            up to 64 sizes: 416 bytes.
namespace {
// The layout above stores every configuration parameter, and stays explicit; these two checks
// make a parameter added without a place in it a compile error. The structured binding names
// every MechanismConfig field (one more field and it no longer compiles), and the table of
// parameters (parameters.hpp) has one row per field but the id — precision's two fields apart,
// and bloom_bits, the domain's other name. A new parameter: a field of the layout (a new
// version), then here.
[[maybe_unused]] void every_parameter_stored(const MechanismConfig& c) {
  [[maybe_unused]] const auto& [id, epsilon, domain, precision, lo, hi, levels, sensitivity, noise_bits,
                                epsilon_one, grid_step, sampled, branching, prr_f, irr_p, irr_q, bloom_hashes, bloom_cohorts,
                                attribute_sizes] = c;
}
static_assert(parameter_count == 20, "a parameter was added to parameters.hpp: store it in the report-file header");

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

std::vector<std::uint8_t> numeric_header(const Mechanism& m, const char* which) {
  std::vector<std::uint8_t> h = common_header(m, which);
  const MechanismConfig& c = m.config();
  append_le<std::uint64_t>(h, static_cast<std::uint32_t>(c.lo), 4);
  append_le<std::uint64_t>(h, static_cast<std::uint32_t>(c.hi), 4);
  append_le<std::uint64_t>(h, c.levels, 4);
  append_le<std::uint64_t>(h, c.sensitivity, 4);
  h.push_back(c.noise_bits);
  append_le<std::uint64_t>(h, c.branching, 4);
  append_le<std::uint64_t>(h, 0, 8);
  append_le<std::uint64_t>(h, 0, 1);
  return h;
}
}  // namespace

std::vector<std::uint8_t> report_file_header(const Mechanism& m, const LabelMappingId& labels) {
  if (m.memoized() || m.record()) {
    std::vector<std::uint8_t> h = numeric_header(m, m.record() ? report_magic_v5 : report_magic_v4);
    const LabelDigest none{};
    const LabelDigest& digest = labels ? *labels : none;
    h.insert(h.end(), digest.begin(), digest.end());
    const MechanismConfig& c = m.config();
    append_le<std::uint64_t>(h, c.epsilon_one.q32, 8);
    for (const Dyadic d : {c.prr_f, c.irr_p, c.irr_q}) {
      append_le<std::uint64_t>(h, d.num, 8);
      h.push_back(d.bits);
    }
    append_le<std::uint64_t>(h, c.grid_step, 4);
    append_le<std::uint64_t>(h, c.sampled, 4);
    append_le<std::uint64_t>(h, c.bloom_hashes, 4);
    append_le<std::uint64_t>(h, c.bloom_cohorts, 4);
    h.resize(report_file_header_v4_bytes, 0);
    if (m.record()) {
      for (const std::uint32_t k : c.attribute_sizes) append_le<std::uint64_t>(h, k, 4);
      h.resize(report_file_header_v5_bytes, 0);
    }
    return h;
  }
  if (labels) {
    std::vector<std::uint8_t> h = numeric_header(m, report_magic_v3);
    h.insert(h.end(), labels->begin(), labels->end());
    return h;
  }
  if (m.numeric()) return report_file_header_v2(m);
  std::vector<std::uint8_t> h = common_header(m, report_magic);
  append_le<std::uint64_t>(h, 0, 6);
  return h;
}

std::vector<std::uint8_t> report_file_header_v2(const Mechanism& m) { return numeric_header(m, report_magic_v2); }

std::size_t report_file_header_size(std::span<const std::uint8_t> m) {
  if (m.size() < 8) return 0;
  if (std::memcmp(m.data(), report_magic, 8) == 0) return report_file_header_bytes;
  if (std::memcmp(m.data(), report_magic_v2, 8) == 0) return report_file_header_v2_bytes;
  if (std::memcmp(m.data(), report_magic_v3, 8) == 0) return report_file_header_v3_bytes;
  if (std::memcmp(m.data(), report_magic_v4, 8) == 0) return report_file_header_v4_bytes;
  if (std::memcmp(m.data(), report_magic_v5, 8) == 0) return report_file_header_v5_bytes;
  return 0;
}

std::optional<ReportFileConfig> parse_report_file_config(std::span<const std::uint8_t> h,
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
    c.branching = static_cast<std::uint32_t>(get_le<std::uint64_t>(&h[51], 4));
    reserved_zero = get_le<std::uint64_t>(&h[55], 8) == 0 && h[63] == 0;
  }
  if (size >= report_file_header_v4_bytes) {
    std::size_t at = memo_block_at;
    c.epsilon_one = Epsilon::from_q32(get_le<std::uint64_t>(&h[at], 8));
    at += 8;
    for (Dyadic* d : {&c.prr_f, &c.irr_p, &c.irr_q}) {
      d->num = get_le<std::uint64_t>(&h[at], 8);
      d->bits = h[at + 8];
      at += 9;
    }
    c.grid_step = static_cast<std::uint32_t>(get_le<std::uint64_t>(&h[at], 4));
    at += 4;
    c.sampled = static_cast<std::uint32_t>(get_le<std::uint64_t>(&h[at], 4));
    at += 4;
    c.bloom_hashes = static_cast<std::uint32_t>(get_le<std::uint64_t>(&h[at], 4));
    at += 4;
    c.bloom_cohorts = static_cast<std::uint32_t>(get_le<std::uint64_t>(&h[at], 4));
    at += 4;
    if (size == report_file_header_v5_bytes) {  // d sizes, then zeros
      if (c.domain == 0 || c.domain > max_record_attributes) {
        error = "report file header version 5 states " + std::to_string(c.domain) + " attributes (1 … " +
                std::to_string(max_record_attributes) + ")";
        return std::nullopt;
      }
      for (std::uint32_t j = 0; j < max_record_attributes; ++j) {
        const auto k = static_cast<std::uint32_t>(get_le<std::uint64_t>(&h[report_file_header_v4_bytes + 4 * j], 4));
        if (j < c.domain)
          c.attribute_sizes.push_back(k);
        else
          reserved_zero = reserved_zero && k == 0;
      }
    }
    for (; at < report_file_header_v4_bytes; ++at) reserved_zero = reserved_zero && h[at] == 0;
  }
  if (!reserved_zero) {
    error = "report file header has nonzero reserved bytes";
    return std::nullopt;
  }
  LabelMappingId labels;
  if (size == report_file_header_v3_bytes || size >= report_file_header_v4_bytes) {
    LabelDigest digest;
    std::memcpy(digest.data(), &h[label_digest_at], digest.size());
    if (digest != LabelDigest{}) {
      labels = digest;
    } else if (size == report_file_header_v3_bytes) {  // unlabelled items have a version 1 or 2 header
      error = "report file header version 3 has an all-zero label digest";
      return std::nullopt;
    }
  }
  auto m = Mechanism::from_stored(c, digest, "report file header", error);
  if (!m) return std::nullopt;
  return ReportFileConfig{*m, labels};
}

std::optional<Mechanism> parse_report_file_header(std::span<const std::uint8_t> h,
                                                  std::string& error) {
  auto config = parse_report_file_config(h, error);
  if (!config) return std::nullopt;
  return config->mechanism;
}

std::uint64_t record_digest(std::span<const std::uint8_t> report) {
  std::uint64_t h = mix(0x9E3779B97F4A7C15ull ^ report.size());
  std::size_t i = 0;
  for (; i + 8 <= report.size(); i += 8) h = mix(h ^ get_le<std::uint64_t>(report.data() + i));
  std::uint64_t tail = 0;
  for (std::size_t k = 0; i + k < report.size(); ++k) tail |= std::uint64_t{report[i + k]} << (8 * k);
  return mix(h ^ tail ^ 0xD6E8FEB86659FD93ull);
}

void RecordsDigest::add(std::span<const std::uint8_t> report) {
  ++records;
  sum += record_digest(report);
}

std::vector<std::uint8_t> report_file_promise() {
  std::vector<std::uint8_t> out(report_file_promise_bytes, 0);  // a zero length, then the magic
  std::memcpy(out.data() + 2, promise_magic, 8);
  return out;
}

bool is_report_file_promise(std::span<const std::uint8_t> bytes) {
  return bytes.size() >= report_file_promise_bytes && bytes[0] == 0 && bytes[1] == 0 &&
         std::memcmp(bytes.data() + 2, promise_magic, 8) == 0;
}

std::vector<std::uint8_t> report_file_trailer(const RecordsDigest& d) {
  std::vector<std::uint8_t> out(report_file_trailer_bytes, 0);  // a zero length, the magic, count, digest
  std::memcpy(out.data() + 2, trailer_magic, 8);
  put_le(out.data() + 10, d.records);
  put_le(out.data() + 18, d.sum);
  return out;
}

std::optional<RecordsDigest> parse_report_file_trailer(std::span<const std::uint8_t> bytes) {
  if (bytes.size() != report_file_trailer_bytes || bytes[0] != 0 || bytes[1] != 0 ||
      std::memcmp(bytes.data() + 2, trailer_magic, 8) != 0)
    return std::nullopt;
  return RecordsDigest{get_le<std::uint64_t>(bytes.data() + 10), get_le<std::uint64_t>(bytes.data() + 18)};
}

ReportFileWriter::ReportFileWriter(const std::string& path, const Mechanism& m,
                                   const LabelMappingId& labels)
    : out_(path, std::ios::binary | std::ios::trunc), labelled_(labels.has_value()) {
  const auto h = report_file_header(m, labels);
  out_.write(reinterpret_cast<const char*>(h.data()), static_cast<std::streamsize>(h.size()));
  const auto promise = report_file_promise();
  out_.write(reinterpret_cast<const char*>(promise.data()), static_cast<std::streamsize>(promise.size()));
}

void ReportFileWriter::set_labels(const LabelDigest& labels) {
  if (!labelled_) {  // a version 1 or 2 header has no room for it
    out_.setstate(std::ios::failbit);
    return;
  }
  const auto end = out_.tellp();
  out_.seekp(static_cast<std::streamoff>(label_digest_at));
  out_.write(reinterpret_cast<const char*>(labels.data()), static_cast<std::streamsize>(labels.size()));
  out_.seekp(end);
}

bool ReportFileWriter::close() {
  if (!out_.is_open()) return false;
  const auto trailer = report_file_trailer(digest_);
  out_.write(reinterpret_cast<const char*>(trailer.data()), static_cast<std::streamsize>(trailer.size()));
  out_.close();
  return static_cast<bool>(out_);
}

void ReportFileWriter::write(std::span<const std::uint8_t> report) {
  // A record's length is a u16: a larger report cannot be written; an empty one would read as
  // the trailer.
  if (report.empty() || report.size() > 0xFFFF) {
    out_.setstate(std::ios::failbit);
    return;
  }
  digest_.add(report);
  std::uint8_t len[2];
  put_le(len, static_cast<std::uint16_t>(report.size()));
  out_.write(reinterpret_cast<const char*>(len), 2);
  out_.write(reinterpret_cast<const char*>(report.data()), static_cast<std::streamsize>(report.size()));
}

ReportFileReader::ReportFileReader(const std::string& path) : in_(path, std::ios::binary) {
  if (!in_) {
    error_ = "cannot open " + path + ": " + std::strerror(errno);
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
  config_ = parse_report_file_config(h, error_);
  if (!config_) {
    error_ = path + ": " + error_;
    return;
  }
  std::uint8_t promise[report_file_promise_bytes];
  in_.read(reinterpret_cast<char*>(promise), sizeof promise);
  promised_ = in_.gcount() == sizeof promise && is_report_file_promise(promise);
  if (!promised_) {  // an older file: its records start right after the header
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(size));
  }
}

bool ReportFileReader::next(std::vector<std::uint8_t>& report) {
  if (!ok() || ended_) return false;
  const std::string after = " after record " + std::to_string(records_.records);
  std::uint8_t len[2];
  in_.read(reinterpret_cast<char*>(len), 2);
  if (in_.gcount() == 0) {  // end of file
    ended_ = true;
    if (promised_) error_ = "cut short" + after + ": the file promised a trailer and ends without it";
    return false;
  }
  if (in_.gcount() != 2) {
    error_ = "truncated record length" + after;
    return false;
  }
  if (len[0] == 0 && len[1] == 0) {  // the trailer
    ended_ = true;
    std::uint8_t rest[report_file_trailer_bytes];
    rest[0] = rest[1] = 0;
    in_.read(reinterpret_cast<char*>(rest + 2), sizeof rest - 2);
    const auto trailer = in_.gcount() == static_cast<std::streamsize>(sizeof rest - 2)
                             ? parse_report_file_trailer(rest)
                             : std::nullopt;
    // Through a plain value: GCC 12 at -Os reads the optional's payload in operator== as
    // "maybe uninitialized" (-Wmaybe-uninitialized), though it is only read when engaged.
    const RecordsDigest found = trailer.value_or(RecordsDigest{});
    if (!promised_ || !trailer) {
      error_ = "an empty record" + after + " that is not a trailer";
    } else if (found != records_) {
      error_ = "the trailer counts " + std::to_string(found.records) + " record(s) with digest " +
               std::to_string(found.sum) + "; the file holds " + std::to_string(records_.records) +
               " with digest " + std::to_string(records_.sum) + " (records lost, added or changed)";
    } else if (in_.peek() != std::char_traits<char>::eof()) {
      error_ = "bytes after the trailer";
    }
    return false;
  }
  // The declared length is bounded by the mechanism's largest report: nothing proportional
  // to an attacker-declared length is allocated.
  const std::size_t n = get_le<std::uint16_t>(len);
  const std::size_t largest =
      config_->mechanism.description().report_bytes(wire::known_fields) + authenticated_trailer_bytes;
  if (n > largest) {
    error_ = "record " + std::to_string(records_.records) + " declares " + std::to_string(n) +
             " bytes, more than any report of this mechanism (" + std::to_string(largest) + ")";
    return false;
  }
  report.resize(n);
  in_.read(reinterpret_cast<char*>(report.data()), static_cast<std::streamsize>(n));
  if (static_cast<std::size_t>(in_.gcount()) != n) {
    error_ = "truncated record " + std::to_string(records_.records);
    return false;
  }
  records_.add(report);
  return true;
}

}  // namespace tinyldp::collector
