// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/aggregator.hpp"

#include <algorithm>
#include <cstring>

#include "byte_vector.hpp"
#include "tinyldp/collector/report_file.hpp"

namespace tinyldp::collector {

namespace {
constexpr char aggregate_magic_v1[8] = {'T', 'L', 'D', 'P', 'A', 'G', 'G', '1'};  // read only
constexpr char aggregate_magic_v2[8] = {'T', 'L', 'D', 'P', 'A', 'G', 'G', '2'};  // read only
constexpr char aggregate_magic_v3[8] = {'T', 'L', 'D', 'P', 'A', 'G', 'G', '3'};  // read only
constexpr char aggregate_magic_v4[8] = {'T', 'L', 'D', 'P', 'A', 'G', 'G', '4'};

// The epoch key of a report: its epoch field, or nullopt without one.
std::optional<std::uint32_t> epoch_of(const wire::Header& h) {
  return (h.fields & wire::field_epoch) ? std::optional(h.epoch) : std::nullopt;
}
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
  const auto epoch = epoch_of(parsed.report.header);
  if (mechanism_.memoized() && !pooled_ && !epochs_.empty() && !epochs_.contains(epoch))
    return ParseError::other_epoch;
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
  ++epochs_[epoch];
  return ParseError::none;
}

bool Aggregator::pool_epochs() {
  if (mechanism_.memoized() && !mechanism_.memo_covariance()) return false;
  pooled_ = true;
  return true;
}

bool Sources::add(const Source& s) {
  for (const Source& mine : list_)
    if (mine.overlaps(s)) return false;
  list_.push_back(s);
  return true;
}

std::optional<Source> Sources::overlap(const Sources& other) const {
  for (const Source& theirs : other.list_)
    for (const Source& mine : list_)
      if (mine.overlaps(theirs)) return theirs;
  return std::nullopt;
}

void Sources::serialize(std::vector<std::uint8_t>& out) const {
  append_le<std::uint32_t>(out, static_cast<std::uint32_t>(list_.size()));
  for (const Source& s : list_) {
    append_le<std::uint64_t>(out, s.digest);
    out.push_back(s.epoch ? 1 : 0);
    append_le<std::uint32_t>(out, s.epoch.value_or(0));
  }
}

bool Sources::read(std::span<const std::uint8_t>& bytes, Sources& out) {
  if (bytes.size() < 4) return false;
  const std::uint32_t n = get_le<std::uint32_t>(bytes.data());
  bytes = bytes.subspan(4);
  if (n > bytes.size() / 13) return false;
  for (std::uint32_t i = 0; i < n; ++i, bytes = bytes.subspan(13)) {
    const std::uint8_t has = bytes[8];
    const std::uint32_t epoch = get_le<std::uint32_t>(bytes.data() + 9);
    if (has > 1 || (has == 0 && epoch != 0)) return false;
    if (!out.add({get_le<std::uint64_t>(bytes.data()), has ? std::optional(epoch) : std::nullopt})) return false;
  }
  return true;
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
    case Error::other_epochs:
      return "memoized reports of other epochs (epochs share memos: aggregate them per epoch, or pool them "
             "explicitly, which accounts for the shared memos)";
    case Error::same_source: return "both count the same report file (its records' digest): it would count twice";
    case Error::bloom_cohorts:
      return "Bloom cohort cells that do not add up (a bit count above its cohort's reports, or cohorts that do not "
             "sum to the reports)";
    case Error::cells:
      return "counts no reports add up to (a level's node supports above its reports, or levels or cells that do "
             "not sum to the reports)";
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
  if (sources_.overlap(other.sources_)) return {Error::same_source};
  if (mechanism_.memoized() && epochs_known_ && other.epochs_known_ && reports_ > 0 && other.reports_ > 0) {
    // Both sides' epochs must be one and the same, unless both pool them.
    const bool same = epochs_.size() == 1 && other.epochs_.size() == 1 &&
                      epochs_.begin()->first == other.epochs_.begin()->first;
    if (!same && !(pooled_ && other.pooled_)) return {Error::other_epochs};
  }
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
  if (!mechanism_.counts_consistent(mine, reports_) || !mechanism_.counts_consistent(theirs, other.reports_))
    return {mechanism_.bloom() ? Error::bloom_cohorts : Error::cells};
  reports_ = reports;
  for (std::size_t i = 0; i < support_.size(); ++i) support_[i] += theirs[i];
  epochs_known_ = epochs_known_ && other.epochs_known_;
  for (const auto& [epoch, count] : other.epochs_) epochs_[epoch] += count;
  if (!epochs_known_) epochs_.clear();
  pooled_ = pooled_ || other.pooled_;
  sources_.append(other.sources_);
  return {};
}

// Layout, version 4: "TLDPAGG4", the report-file header of the reports it counts (the one
// configuration record: report_file.hpp), the report count (u64), one u64 support count per
// item, then flags (u8: bit 0 epochs known, bit 1 pooled), the number of epoch entries (u32)
// and each entry — has-epoch (u8), epoch (u32), reports (u64) — in order (no epoch first),
// then the sources (Sources::serialize). Version 3 is version 4 up to
// the support counts; versions 1 and 2 (the configuration in fields of their own, u64 domain
// and digest) are still read; nothing writes 1–3.
std::vector<std::uint8_t> Aggregator::serialize() const {
  std::vector<std::uint8_t> out(aggregate_magic_v4, aggregate_magic_v4 + 8);
  const auto header = report_file_header(mechanism_, labels_);
  out.insert(out.end(), header.begin(), header.end());
  append_le<std::uint64_t>(out, reports_);
  for (std::uint64_t s : support()) append_le<std::uint64_t>(out, s);
  out.push_back(static_cast<std::uint8_t>((epochs_known_ ? 1u : 0u) | (pooled_ ? 2u : 0u)));
  append_le<std::uint32_t>(out, static_cast<std::uint32_t>(epochs_.size()));
  for (const auto& [epoch, count] : epochs_) {
    out.push_back(epoch ? 1 : 0);
    append_le<std::uint32_t>(out, epoch.value_or(0));
    append_le<std::uint64_t>(out, count);
  }
  sources_.serialize(out);
  return out;
}

namespace {
// A version 1 or 2 state's configuration: its fields, checked as a file header's are. Returns
// the size of the fixed part (0 with error set if the bytes are not such a state).
std::size_t read_legacy_config(std::span<const std::uint8_t> bytes, std::optional<Mechanism>& m,
                               std::string& error) {
  const bool v2 = bytes.size() >= 8 && std::memcmp(bytes.data(), aggregate_magic_v2, 8) == 0;
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
  const bool v4 = has_magic(aggregate_magic_v4);
  if (v4 || has_magic(aggregate_magic_v3)) {
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
  } else if (has_magic(aggregate_magic_v1) || has_magic(aggregate_magic_v2)) {
    config_end = read_legacy_config(bytes, m, error);
    if (config_end == 0) return std::nullopt;
  } else {
    error = "not a tinyldp aggregate (bad magic or too short)";
    return std::nullopt;
  }
  const std::size_t fixed = config_end + 8;
  const std::size_t counts_end = fixed + 8 * std::size_t{m->domain()};
  if (v4 ? bytes.size() < counts_end : bytes.size() != counts_end) {
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
  if (!m->counts_consistent(a.support_, reports)) {
    error = m->bloom() ? "aggregate's Bloom cohort cells do not add up (a bit count above its cohort's reports, or "
                         "cohorts that do not sum to the reports)"
                       : "aggregate's counts do not add up (a level's node supports above its reports, or levels or "
                         "cells that do not sum to the reports)";
    return std::nullopt;
  }
  if (!v4) {
    a.epochs_known_ = false;
    return a;
  }
  // The epochs and sources, read with every length checked against what is left.
  std::span<const std::uint8_t> rest = bytes.subspan(counts_end);
  const auto take = [&](std::size_t n) -> const std::uint8_t* {
    if (rest.size() < n) return nullptr;
    const std::uint8_t* p = rest.data();
    rest = rest.subspan(n);
    return p;
  };
  const auto fail = [&](const char* why) {
    error = std::string("aggregate state: ") + why;
    return std::nullopt;
  };
  const std::uint8_t* flags = take(1);
  const std::uint8_t* count = take(4);
  if (!flags || !count || (*flags & ~3u) != 0) return fail("bad epoch flags");
  a.epochs_known_ = (*flags & 1u) != 0;
  a.pooled_ = (*flags & 2u) != 0;
  if (a.pooled_ && m->memoized() && !m->memo_covariance()) return fail("pools epochs of a mechanism that cannot");
  const std::uint32_t entries = get_le<std::uint32_t>(count);
  if (entries > rest.size() / 13) return fail("more epochs than bytes");
  std::uint64_t sum = 0;
  std::optional<std::optional<std::uint32_t>> previous;
  for (std::uint32_t i = 0; i < entries; ++i) {
    const std::uint8_t* e = take(13);
    if (e[0] > 1 || (e[0] == 0 && get_le<std::uint32_t>(e + 1) != 0)) return fail("bad epoch entry");
    const std::optional<std::uint32_t> epoch = e[0] ? std::optional(get_le<std::uint32_t>(e + 1)) : std::nullopt;
    const std::uint64_t n = get_le<std::uint64_t>(e + 5);
    if (n == 0 || (previous && !(*previous < epoch))) return fail("epochs not in order, repeated or empty");
    previous = epoch;
    if (__builtin_add_overflow(sum, n, &sum)) return fail("epoch counts overflow");
    a.epochs_[epoch] = n;
  }
  if (a.epochs_known_ ? sum != reports : entries != 0) return fail("epoch counts do not sum to the reports");
  if (m->memoized() && !a.pooled_ && a.epochs_.size() > 1) return fail("several epochs of memoized reports, not pooled");
  if (!Sources::read(rest, a.sources_) || !rest.empty()) return fail("malformed or overlapping sources");
  return a;
}

}  // namespace tinyldp::collector
