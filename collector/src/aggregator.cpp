#include "tinyldp/collector/aggregator.hpp"

#include <cstring>

namespace tinyldp::collector {

namespace {
constexpr char magic[8] = {'T', 'L', 'D', 'P', 'A', 'G', 'G', '1'};

void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
std::uint64_t get_u64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{p[i]} << (8 * i);
  return v;
}
}  // namespace

Aggregator::Aggregator(const Mechanism& mechanism)
    : mechanism_(mechanism), support_(mechanism.domain(), 0) {
  const MechanismId id = mechanism.description().id;
  if (id == MechanismId::sue || id == MechanismId::oue || id == MechanismId::ue)
    columns_.emplace(mechanism.domain());
}

const std::vector<std::uint64_t>& Aggregator::support() const {
  if (columns_ && !columns_->empty()) columns_->flush_into(support_);
  return support_;
}

ParseError Aggregator::ingest(std::span<const std::uint8_t> report) {
  const ParseResult parsed = parse_report(report, mechanism_.description());
  if (!parsed.ok()) return parsed.error;
  const ParseError content = mechanism_.check_payload(parsed.report.payload);
  if (content != ParseError::none) return content;
  if (columns_)
    columns_->add(parsed.report.payload);
  else
    mechanism_.add_support(parsed.report.payload, support_);
  ++reports_;
  return ParseError::none;
}

bool Aggregator::merge(const Aggregator& other) {
  const auto& a = mechanism_.description();
  const auto& b = other.mechanism_.description();
  if (a.id != b.id || a.digest != b.digest || support_.size() != other.support_.size())
    return false;
  support();
  const auto& theirs = other.support();
  reports_ += other.reports_;
  for (std::size_t i = 0; i < support_.size(); ++i) support_[i] += theirs[i];
  return true;
}

// Layout: magic(8) id(1) eps_q32(8) domain(8) max_bits(1) tolerance_q32(8) digest(8)
//         reports(8) support(8 × domain)
std::vector<std::uint8_t> Aggregator::serialize() const {
  std::vector<std::uint8_t> out(magic, magic + 8);
  const MechanismConfig& c = mechanism_.config();
  out.push_back(static_cast<std::uint8_t>(c.id));
  put_u64(out, c.epsilon.q32);
  put_u64(out, c.domain);
  out.push_back(c.precision.max_bits);
  put_u64(out, c.precision.tolerance_q32);
  put_u64(out, mechanism_.description().digest);
  put_u64(out, reports_);
  for (std::uint64_t s : support()) put_u64(out, s);
  return out;
}

std::optional<Aggregator> Aggregator::deserialize(std::span<const std::uint8_t> bytes,
                                                  std::string& error) {
  constexpr std::size_t fixed = 8 + 1 + 8 + 8 + 1 + 8 + 8 + 8;
  if (bytes.size() < fixed || std::memcmp(bytes.data(), magic, 8) != 0) {
    error = "not a tinyldp aggregate (bad magic or too short)";
    return std::nullopt;
  }
  const std::uint8_t* p = bytes.data() + 8;
  MechanismConfig c;
  c.id = static_cast<MechanismId>(p[0]);
  c.epsilon = Epsilon::from_q32(get_u64(p + 1));
  const std::uint64_t domain = get_u64(p + 9);
  c.precision.max_bits = p[17];
  c.precision.tolerance_q32 = get_u64(p + 18);
  const std::uint64_t digest = get_u64(p + 26);
  const std::uint64_t reports = get_u64(p + 34);
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
  if (bytes.size() != fixed + 8 * std::size_t{m.domain()}) {
    error = "aggregate has the wrong length for its domain";
    return std::nullopt;
  }
  Aggregator a(m);
  a.reports_ = reports;
  const std::uint8_t* s = bytes.data() + fixed;
  for (std::uint32_t i = 0; i < m.domain(); ++i) {
    a.support_[i] = get_u64(s + 8 * i);
    if (a.support_[i] > reports) {
      error = "aggregate has a support count above its report count";
      return std::nullopt;
    }
  }
  return a;
}

}  // namespace tinyldp::collector
