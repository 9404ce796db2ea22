#include "tinyldp/collector/aggregator.hpp"

#include <cstring>

#include "byte_vector.hpp"

namespace tinyldp::collector {

namespace {
constexpr char magic[8] = {'T', 'L', 'D', 'P', 'A', 'G', 'G', '1'};
constexpr char magic_v2[8] = {'T', 'L', 'D', 'P', 'A', 'G', 'G', '2'};

}  // namespace

Aggregator::Aggregator(const Mechanism& mechanism)
    : mechanism_(mechanism), support_(mechanism.domain(), 0) {
  if (mechanism.uses_bit_columns()) columns_.emplace(mechanism.domain());
}

const std::vector<std::uint64_t>& Aggregator::support() const {
  if (columns_ && !columns_->empty()) columns_->flush_into(support_);
  return support_;
}

ParseError Aggregator::ingest(std::span<const std::uint8_t> report) {
  const ParseResult parsed = parse_report(report, mechanism_.description());
  if (!parsed.ok()) return parsed.error;
  if (columns_) {
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

const char* MergeResult::reason() const {
  switch (error) {
    case Error::none: return "merged";
    case Error::other_parameters: return "another mechanism or other parameters";
    case Error::count_overflow: return "a count would overflow 64 bits";
    case Error::inconsistent: return "a support count above the report count";
  }
  return "unknown merge error";
}

MergeResult Aggregator::merge(const Aggregator& other) {
  using Error = MergeResult::Error;
  const auto& a = mechanism_.description();
  const auto& b = other.mechanism_.description();
  if (a.id != b.id || a.digest != b.digest || support_.size() != other.support_.size())
    return {Error::other_parameters};
  const auto& mine = support();
  const auto& theirs = other.support();
  // Both sides are checked before anything changes: every sum fits, and every support count
  // stays ≤ the report count times the most one report supports (1 but for SHE; each side's
  // are, so the sums are).
  std::uint64_t reports = 0;
  if (__builtin_add_overflow(reports_, other.reports_, &reports)) return {Error::count_overflow};
  const std::uint64_t most = mechanism_.max_support_per_report();
  for (std::size_t i = 0; i < mine.size(); ++i) {
    if (theirs[i] / most > other.reports_ || mine[i] / most > reports_) return {Error::inconsistent};
    std::uint64_t sum = 0;
    if (__builtin_add_overflow(mine[i], theirs[i], &sum)) return {Error::count_overflow};
  }
  reports_ = reports;
  for (std::size_t i = 0; i < support_.size(); ++i) support_[i] += theirs[i];
  return {};
}

// Layout, version 1 (categorical mechanisms):
//   magic "TLDPAGG1"(8) id(1) eps_q32(8) domain(8) max_bits(1) tolerance_q32(8) digest(8)
//   reports(8) support(8 × domain)
// version 2 (numeric mechanisms, and only they): "TLDPAGG2" and, after the digest, lo(i32 4)
//   hi(i32 4) levels(4) sensitivity(4) noise_bits(1), then reports and support as in version 1.
std::vector<std::uint8_t> Aggregator::serialize() const {
  const MechanismConfig& c = mechanism_.config();
  const bool v2 = c.numeric();
  std::vector<std::uint8_t> out(v2 ? magic_v2 : magic, (v2 ? magic_v2 : magic) + 8);
  out.push_back(static_cast<std::uint8_t>(c.id));
  append_le<std::uint64_t>(out, c.epsilon.q32);
  append_le<std::uint64_t>(out, c.domain);
  out.push_back(c.precision.max_bits);
  append_le<std::uint64_t>(out, c.precision.tolerance_q32);
  append_le<std::uint64_t>(out, mechanism_.description().digest);
  if (v2) {
    append_le<std::uint32_t>(out, static_cast<std::uint32_t>(c.lo));
    append_le<std::uint32_t>(out, static_cast<std::uint32_t>(c.hi));
    append_le<std::uint32_t>(out, c.levels);
    append_le<std::uint32_t>(out, c.sensitivity);
    out.push_back(c.noise_bits);
  }
  append_le<std::uint64_t>(out, reports_);
  for (std::uint64_t s : support()) append_le<std::uint64_t>(out, s);
  return out;
}

std::optional<Aggregator> Aggregator::deserialize(std::span<const std::uint8_t> bytes,
                                                  std::string& error) {
  const bool v2 = bytes.size() >= 8 && std::memcmp(bytes.data(), magic_v2, 8) == 0;
  const std::size_t fixed = 8 + 1 + 8 + 8 + 1 + 8 + 8 + 8 + (v2 ? 17 : 0);
  if (bytes.size() < fixed || (!v2 && std::memcmp(bytes.data(), magic, 8) != 0)) {
    error = "not a tinyldp aggregate (bad magic or too short)";
    return std::nullopt;
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
  const std::uint64_t reports = get_le<std::uint64_t>(p + (v2 ? 51 : 34));
  if (domain > max_collector_domain) {
    error = "aggregate declares an impossible domain";
    return std::nullopt;
  }
  c.domain = static_cast<std::uint32_t>(domain);
  Mechanism m;
  if (Mechanism::configure(c, m) != Status::ok) {
    error = "aggregate holds an invalid mechanism configuration";
    return std::nullopt;
  }
  if (m.description().digest != digest) {
    error = "aggregate's parameter digest does not match its configuration";
    return std::nullopt;
  }
  if (const std::string d = config_difference(c, m.config()); !d.empty()) {
    error = "aggregate state is not canonical: " + d;
    return std::nullopt;
  }
  if (m.config().numeric() != v2) {  // one encoding per state: serialize() gives these bytes back
    error = "aggregate state version 2 is for numeric mechanisms only";
    return std::nullopt;
  }
  if (bytes.size() != fixed + 8 * std::size_t{m.domain()}) {
    error = "aggregate has the wrong length for its domain";
    return std::nullopt;
  }
  Aggregator a(m);
  a.reports_ = reports;
  const std::uint8_t* s = bytes.data() + fixed;
  for (std::uint32_t i = 0; i < m.domain(); ++i) {
    a.support_[i] = get_le<std::uint64_t>(s + 8 * i);
    if (a.support_[i] / m.max_support_per_report() > reports) {
      error = "aggregate has a support count above its report count";
      return std::nullopt;
    }
  }
  return a;
}

}  // namespace tinyldp::collector
