// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/record_counts.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "byte_vector.hpp"
#include "counts_file.hpp"
#include "tinyldp/endian.hpp"

namespace tinyldp::collector {

namespace {

constexpr char joint_magic[8] = {'T', 'L', 'D', 'P', 'J', 'N', 'T', '1'};

double probability(Dyadic p) { return std::ldexp(static_cast<double>(p.num), -p.bits); }

nlohmann::json dyadic_json(Dyadic p) { return nlohmann::json::array({p.num, p.bits}); }

std::optional<Dyadic> dyadic_from(const nlohmann::json& j) {
  if (!j.is_array() || j.size() != 2 || !j[0].is_number_unsigned() || !j[1].is_number_unsigned())
    return std::nullopt;
  const auto bits = j[1].get<std::uint64_t>();
  if (bits > 64) return std::nullopt;
  return Dyadic{j[0].get<std::uint64_t>(), static_cast<std::uint8_t>(bits)};
}

}  // namespace

std::vector<std::uint32_t> checked_attribute_sizes(const std::vector<RecordAttribute>& attributes,
                                                   std::string& error) {
  std::vector<std::uint32_t> sizes;
  for (const auto& a : attributes) {
    if (a.size < 2) {
      error = "attribute '" + a.name + "' has " + std::to_string(a.size) + " values: at least 2 are needed";
      return {};
    }
    if (!a.labels.empty() && a.labels.size() != a.size) {
      error = "attribute '" + a.name + "' has " + std::to_string(a.labels.size()) + " labels for " +
              std::to_string(a.size) + " values";
      return {};
    }
    sizes.push_back(a.size);
  }
  return sizes;
}

std::optional<RecordSchema> RecordSchema::make(std::vector<RecordAttribute> attributes, Dyadic f, Dyadic p,
                                               Dyadic q, std::string& error) {
  if (attributes.empty() || attributes.size() > max_record_attributes) {
    error = "a record has 1 to " + std::to_string(max_record_attributes) + " attributes, not " +
            std::to_string(attributes.size());
    return std::nullopt;
  }
  const std::vector<std::uint32_t> sizes = checked_attribute_sizes(attributes, error);
  if (sizes.empty()) return std::nullopt;
  RecordSchema s;
  const Status st = CollectorRecordRr::configure_rappor(f, p, q, sizes.data(),
                                                        static_cast<std::uint32_t>(sizes.size()), s.mechanism_);
  if (st != Status::ok) {
    error = std::string("cannot configure the record with f, p, q: ") + to_string(st) +
            " (0 < f < 1, 0 ≤ p < q ≤ 1, each domain 2 … 65536, at most 2^20 bits in all)";
    return std::nullopt;
  }
  s.attributes_ = std::move(attributes);
  s.f_ = f, s.p_ = p, s.q_ = q;
  for (std::uint32_t j = 0; j < s.mechanism_.attributes(); ++j) {
    const TwoStageRr& a = s.mechanism_.attribute(j);
    const double p1 = probability(a.p1()), q1 = probability(a.q1());
    const double p2 = probability(a.p2()), q2 = probability(a.q2());
    s.q_star_.push_back(p1 * p2 + (1 - p1) * q2);
    s.p_star_.push_back(q1 * p2 + (1 - q1) * q2);
  }
  return s;
}

std::optional<std::uint32_t> find_attribute(const std::vector<RecordAttribute>& attributes,
                                            const std::string& name) {
  for (std::uint32_t j = 0; j < attributes.size(); ++j)
    if (attributes[j].name == name) return j;
  if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos && name.size() < 6) {
    const auto j = static_cast<std::uint32_t>(std::stoul(name));
    if (j < attributes.size()) return j;
  }
  return std::nullopt;
}

std::optional<std::uint32_t> RecordSchema::find(const std::string& name) const {
  return find_attribute(attributes_, name);
}

bool RecordSchema::same_as(const RecordSchema& o) const {
  return mechanism_.description().digest == o.mechanism_.description().digest && f_ == o.f_ && p_ == o.p_ &&
         q_ == o.q_ && attributes_ == o.attributes_;
}

bool RecordCounts::add(std::span<const std::uint8_t> report, std::uint64_t count) {
  const auto& m = schema_.mechanism();
  if (report.size() != m.report_bytes() || count == 0) return false;
  const std::uint32_t tail = m.record_bits() % 8;
  if (tail != 0 && (report.back() >> tail) != 0) return false;
  patterns_[std::vector<std::uint8_t>(report.begin(), report.end())] += count;
  total_ += count;
  return true;
}

std::optional<FramedReportError> RecordCounts::add_framed(std::span<const std::uint8_t> reports) {
  return for_each_framed_report(reports, schema_.mechanism().description(), [&](std::span<const std::uint8_t> payload) {
    return add(payload) ? ParseError::none : ParseError::nonzero_padding;
  });
}

bool RecordCounts::merge(const RecordCounts& other) {
  if (!schema_.same_as(other.schema_)) return false;
  for (const auto& [pattern, count] : other.patterns_) patterns_[pattern] += count;
  total_ += other.total_;
  return true;
}

std::vector<std::uint8_t> RecordCounts::serialize() const {
  const auto& m = schema_.mechanism();
  const nlohmann::json header = {
      {"attributes", attributes_json(schema_.attributes())},
      {"f", dyadic_json(schema_.f())},
      {"p", dyadic_json(schema_.p())},
      {"q", dyadic_json(schema_.q())},
      {"digest", m.description().digest},
      {"epsilon_one_q32", m.epsilon_one().q32},
      {"epsilon_infinity_q32", m.epsilon_infinity().q32}};
  const std::string text = header.dump();
  std::size_t body = 16;
  for (const auto& entry : patterns_) body += entry.first.size() + 8;
  SizedWriter out(joint_magic, text, body);
  out.le(std::uint64_t{patterns_.size()});
  out.le(total_);
  for (const auto& [pattern, count] : patterns_) {
    out.bytes(pattern.data(), pattern.size());
    out.le(count);
  }
  return out.finish();
}

std::optional<RecordCounts> RecordCounts::deserialize(std::span<const std::uint8_t> bytes, std::string& error) {
  const auto frame = read_counts_header(bytes, joint_magic, "record-counts", 16, error);
  if (!frame) return std::nullopt;
  const nlohmann::json& header = frame->json;
  if (header.is_discarded() || !header.is_object() || !header.contains("attributes") ||
      !header["attributes"].is_array()) {
    error = "record-counts header is not the expected JSON";
    return std::nullopt;
  }
  auto attributes = attributes_from_json(header["attributes"], "record-counts", std::nullopt, error);
  if (!attributes) return std::nullopt;
  const auto f = header.contains("f") ? dyadic_from(header["f"]) : std::nullopt;
  const auto p = header.contains("p") ? dyadic_from(header["p"]) : std::nullopt;
  const auto q = header.contains("q") ? dyadic_from(header["q"]) : std::nullopt;
  if (!f || !p || !q) {
    error = "record-counts header: f, p or q missing or malformed";
    return std::nullopt;
  }
  auto schema = RecordSchema::make(std::move(*attributes), *f, *p, *q, error);
  if (!schema) return std::nullopt;
  if (!header.contains("digest") || !header["digest"].is_number_unsigned() ||
      header["digest"].get<std::uint64_t>() != schema->mechanism().description().digest) {
    error = "record-counts header: its digest does not match the configuration it states";
    return std::nullopt;
  }
  RecordCounts counts(std::move(*schema));
  std::size_t at = frame->body_at;
  const std::uint64_t distinct = get_le<std::uint64_t>(bytes.data() + at);
  const std::uint64_t total = get_le<std::uint64_t>(bytes.data() + at + 8);
  at += 16;
  const std::size_t width = counts.schema().mechanism().report_bytes();
  if ((bytes.size() - at) / (width + 8) < distinct || bytes.size() - at != distinct * (width + 8)) {
    error = "record-counts file: " + std::to_string(distinct) + " patterns announced, " +
            std::to_string(bytes.size() - at) + " bytes follow (" + std::to_string(width + 8) + " each)";
    return std::nullopt;
  }
  for (std::uint64_t i = 0; i < distinct; ++i, at += width + 8) {
    const std::uint64_t count = get_le<std::uint64_t>(bytes.data() + at + width);
    if (!counts.add(bytes.subspan(at, width), count)) {
      error = "record-counts file: pattern " + std::to_string(i) + " has bits past the record or a zero count";
      return std::nullopt;
    }
  }
  if (counts.reports() != total || counts.patterns().size() != distinct) {
    error = "record-counts file: the counts do not add up to the stated " + std::to_string(total) +
            " reports (or a pattern repeats)";
    return std::nullopt;
  }
  return counts;
}

}  // namespace tinyldp::collector
