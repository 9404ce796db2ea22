// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/aggregator.hpp"

#include <algorithm>
#include <cstring>

#include "byte_vector.hpp"
#include "tinyldp/collector/report_file.hpp"

namespace tinyldp::collector {

namespace {
constexpr char magic_v1[8] = {'T', 'L', 'D', 'P', 'A', 'G', 'G', '1'};  // read only
constexpr char magic_v2[8] = {'T', 'L', 'D', 'P', 'A', 'G', 'G', '2'};  // read only
constexpr char magic_v3[8] = {'T', 'L', 'D', 'P', 'A', 'G', 'G', '3'};

}  // namespace

Aggregator::Aggregator(const Mechanism& mechanism, const LabelMappingId& labels)
    : mechanism_(mechanism), labels_(labels), support_(mechanism.domain(), 0) {
  if (mechanism.uses_bit_columns()) columns_.emplace(mechanism.domain());
}

const std::vector<std::uint64_t>& Aggregator::support() const {
  if (columns_ && !columns_->empty()) columns_->flush_into(support_);
  return support_;
}

ParseError Aggregator::ingest(std::span<const std::uint8_t> report) {
  const ParseResult parsed = parse_report(report, mechanism_.description());
  if (!parsed.ok()) return parsed.error;
  if (mechanism_.bloom()) {
    const auto& h = parsed.report.header;
    const auto cohort = (h.fields & wire::field_cohort) ? std::optional<std::uint32_t>(h.cohort) : std::nullopt;
    const ParseError content = mechanism_.count_bloom(cohort, parsed.report.payload, support_);
    if (content != ParseError::none) return content;
  } else if (columns_) {
    const ParseError content = mechanism_.check_payload(parsed.report.payload);
    if (content != ParseError::none) return content;
    columns_->add(parsed.report.payload);
  } else {
    const ParseError content = mechanism_.count(parsed.report.payload, support_);
    if (content != ParseError::none) return content;
  }
  ++reports_;
  return ParseError::none;
}

bool Aggregator::assume_labels(const LabelDigest& labels) {
  if (labels_) return false;
  labels_ = labels;
  return true;
}

const char* MergeResult::reason() const {
  switch (error) {
    case Error::none: return "merged";
    case Error::other_parameters: return "another mechanism or other parameters";
    case Error::other_labels: return "another label mapping";
    case Error::count_overflow: return "a count would overflow 64 bits";
    case Error::inconsistent: return "a support count above the report count";
  }
  return "unknown merge error";
}

MergeResult Aggregator::merge(const Aggregator& other) {
  using Error = MergeResult::Error;
  const auto& a = mechanism_.description();
  const auto& b = other.mechanism_.description();
  // lo too: 1BitMean's devices report offsets from lo, so its digest covers hi − lo, not lo.
  if (a.id != b.id || a.digest != b.digest || support_.size() != other.support_.size() ||
      mechanism_.config().lo != other.mechanism_.config().lo)
    return {Error::other_parameters};
  if (labels_ != other.labels_) return {Error::other_labels};
  const auto& mine = support();
  const auto& theirs = other.support();
  // Both sides are checked before anything changes: every sum fits, and every support count
  // stays ≤ the report count times the most one report supports (1 but for SHE; each side's
  // are, so the sums are).
  std::uint64_t reports = 0;
  if (__builtin_add_overflow(reports_, other.reports_, &reports)) return {Error::count_overflow};
  for (std::size_t i = 0; i < mine.size(); ++i) {
    if (!mechanism_.support_possible(theirs[i], other.reports_) ||
        !mechanism_.support_possible(mine[i], reports_))
      return {Error::inconsistent};
    std::uint64_t sum = 0;
    if (__builtin_add_overflow(mine[i], theirs[i], &sum)) return {Error::count_overflow};
  }
  reports_ = reports;
  for (std::size_t i = 0; i < support_.size(); ++i) support_[i] += theirs[i];
  return {};
}

// Layout, version 3: "TLDPAGG3", the report-file header of the reports it counts (the one
// configuration record: report_file.hpp, 40 or 64 bytes, 96 with a label mapping), the report count (u64), one u64
// support count per item. Versions 1 and 2 (the configuration in fields of their own, u64
// domain and digest) are still read; nothing writes them.
std::vector<std::uint8_t> Aggregator::serialize() const {
  std::vector<std::uint8_t> out(magic_v3, magic_v3 + 8);
  const auto header = report_file_header(mechanism_, labels_);
  out.insert(out.end(), header.begin(), header.end());
  append_le<std::uint64_t>(out, reports_);
  for (std::uint64_t s : support()) append_le<std::uint64_t>(out, s);
  return out;
}

namespace {
// A version 1 or 2 state's configuration: its fields, checked as a file header's are. Returns
// the size of the fixed part (0 with error set if the bytes are not such a state).
std::size_t read_legacy_config(std::span<const std::uint8_t> bytes, std::optional<Mechanism>& m,
                               std::string& error) {
  const bool v2 = bytes.size() >= 8 && std::memcmp(bytes.data(), magic_v2, 8) == 0;
  const std::size_t fixed = 8 + 1 + 8 + 8 + 1 + 8 + 8 + 8 + (v2 ? 17 : 0);
  if (bytes.size() < fixed) {
    error = "not a tinyldp aggregate (too short)";
    return 0;
  }
  const std::uint8_t* p = bytes.data() + 8;
  MechanismConfig c;
  c.id = static_cast<MechanismId>(p[0]);
  c.epsilon = Epsilon::from_q32(get_le<std::uint64_t>(p + 1));
  const std::uint64_t domain = get_le<std::uint64_t>(p + 9);
  c.precision.max_bits = p[17];
  c.precision.tolerance_q32 = get_le<std::uint64_t>(p + 18);
  const std::uint64_t digest = get_le<std::uint64_t>(p + 26);
  if (v2) {
    c.lo = static_cast<std::int32_t>(get_le<std::uint32_t>(p + 34));
    c.hi = static_cast<std::int32_t>(get_le<std::uint32_t>(p + 38));
    c.levels = get_le<std::uint32_t>(p + 42);
    c.sensitivity = get_le<std::uint32_t>(p + 46);
    c.noise_bits = p[50];
  }
  if (domain > max_collector_domain) {
    error = "aggregate declares an impossible domain";
    return 0;
  }
  c.domain = static_cast<std::uint32_t>(domain);
  m = Mechanism::from_stored(c, digest, "aggregate state", error);
  if (!m) return 0;
  if (m->config().numeric() != v2) {  // one encoding per state, as version 3 has
    error = "aggregate state version 2 is for numeric mechanisms only";
    return 0;
  }
  return fixed - 8;  // the report count follows
}
}  // namespace

std::optional<Aggregator> Aggregator::deserialize(std::span<const std::uint8_t> bytes,
                                                  std::string& error) {
  const auto has_magic = [&](const char* m) {
    return bytes.size() >= 8 && std::memcmp(bytes.data(), m, 8) == 0;
  };
  std::optional<Mechanism> m;
  LabelMappingId labels;
  std::size_t config_end = 0;  // where the report count starts
  if (has_magic(magic_v3)) {
    const std::size_t size = report_file_header_size(bytes.subspan(std::min<std::size_t>(8, bytes.size())));
    if (size == 0 || bytes.size() < 8 + size + 8) {
      error = "not a tinyldp aggregate (no configuration record, or too short)";
      return std::nullopt;
    }
    const auto header = bytes.subspan(8, size);
    const auto config = parse_report_file_config(header, error);
    if (!config) {
      error = "aggregate state: " + error;
      return std::nullopt;
    }
    m = config->mechanism;
    labels = config->labels;
    const auto canonical = report_file_header(*m, labels);
    if (!std::equal(header.begin(), header.end(), canonical.begin(), canonical.end())) {
      error = "aggregate state is not canonical: its configuration record is not the one tinyldp writes";
      return std::nullopt;
    }
    config_end = 8 + size;
  } else if (has_magic(magic_v1) || has_magic(magic_v2)) {
    config_end = read_legacy_config(bytes, m, error);
    if (config_end == 0) return std::nullopt;
  } else {
    error = "not a tinyldp aggregate (bad magic or too short)";
    return std::nullopt;
  }
  const std::size_t fixed = config_end + 8;
  if (bytes.size() != fixed + 8 * std::size_t{m->domain()}) {
    error = "aggregate has the wrong length for its domain";
    return std::nullopt;
  }
  const std::uint64_t reports = get_le<std::uint64_t>(bytes.data() + config_end);
  Aggregator a(*m, labels);
  a.reports_ = reports;
  const std::uint8_t* s = bytes.data() + fixed;
  for (std::uint32_t i = 0; i < m->domain(); ++i) {
    a.support_[i] = get_le<std::uint64_t>(s + 8 * i);
    if (!m->support_possible(a.support_[i], reports)) {
      error = "aggregate has a support count above its report count";
      return std::nullopt;
    }
  }
  return a;
}

}  // namespace tinyldp::collector
