// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/multi_attribute_counts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <nlohmann/json.hpp>

#include "byte_vector.hpp"
#include "counts_file.hpp"
#include "tinyldp/collector/estimates.hpp"
#include "tinyldp/collector/mechanism.hpp"
#include "tinyldp/endian.hpp"

namespace tinyldp::collector {

namespace {

constexpr char multi_magic[8] = {'T', 'L', 'D', 'P', 'M', 'U', 'L', '1'};
constexpr std::uint32_t M = MultiAttributeSchema::max_attributes;

bool is_grr(MechanismId id) {
  return id == MechanismId::spl_grr || id == MechanismId::smp_grr || id == MechanismId::rsfd_grr;
}
bool is_smp(MechanismId id) { return id == MechanismId::smp_grr || id == MechanismId::smp_oue; }
bool is_rsfd(MechanismId id) {
  return id == MechanismId::rsfd_grr || id == MechanismId::rsfd_oue_z || id == MechanismId::rsfd_oue_r;
}

Channel slot_channel(const GrrSlot& s) { return channel_of(s.oracle()); }
Channel slot_channel(const OueSlot& s) { return channel_of(s.oracle()); }

}  // namespace

// The table's rows of kind record that keep no memo.
namespace {
bool is_multi_attribute(const MechanismRow& row) {
  return row.kind == MechanismKind::record && row.id != MechanismId::record_rr;
}
}  // namespace

std::optional<MechanismId> multi_attribute_protocol(std::string_view name) {
  const MechanismRow* row = find_mechanism(name);
  return row != nullptr && is_multi_attribute(*row) ? std::optional(row->id) : std::nullopt;
}
const char* multi_attribute_name(MechanismId id) {
  const MechanismRow* row = find_mechanism(id);
  return row != nullptr && is_multi_attribute(*row) ? row->name : nullptr;
}
std::string multi_attribute_names() {
  std::string s;
  for (const auto& row : mechanism_table())
    if (is_multi_attribute(row)) s += (s.empty() ? "" : ", ") + std::string(row.name);
  return s;
}

std::optional<MultiAttributeSchema> MultiAttributeSchema::make(MechanismId protocol, Epsilon eps,
                                                               std::vector<RecordAttribute> attributes,
                                                               std::string& error) {
  const char* name = multi_attribute_name(protocol);
  if (name == nullptr) {
    error = "not a multi-attribute protocol (one of " + multi_attribute_names() + ")";
    return std::nullopt;
  }
  const std::uint32_t least = protocol == MechanismId::spl_grr || protocol == MechanismId::spl_oue ? 1 : 2;
  if (attributes.size() < least || attributes.size() > M) {
    error = std::string(name) + " takes " + std::to_string(least) + " to " + std::to_string(M) +
            " attributes, not " + std::to_string(attributes.size());
    return std::nullopt;
  }
  const std::vector<std::uint32_t> sizes = checked_attribute_sizes(attributes, error);
  if (sizes.empty()) return std::nullopt;
  const auto d = static_cast<std::uint32_t>(sizes.size());
  MultiAttributeSchema s;
  s.protocol_ = protocol;
  s.requested_ = eps;
  Status st = Status::ok;
  // Each protocol's core, configured as the devices configure it, then what the collector
  // needs of it: description, ε figures, slot offsets and channels.
  const auto take = [&](auto core) {
    s.description_ = core.description();
    s.per_report_ = core.realized_epsilon();
    for (std::uint32_t j = 0; j < d; ++j) {
      Channel ch = slot_channel(core.slot(j));
      const double dd = d, k = sizes[j];
      if constexpr (requires { core.epsilon_attribute(); }) {
        s.one_attribute_ = core.epsilon_attribute();
        s.amplified_ = core.amplified_epsilon();
        // What an unsampled attribute's fake data supports, per value.
        const double fake = protocol == MechanismId::rsfd_grr     ? 1 / k
                            : protocol == MechanismId::rsfd_oue_z ? ch.q
                                                                  : (ch.p + (k - 1) * ch.q) / k;
        ch = {ch.p / dd + (dd - 1) / dd * fake, ch.q / dd + (dd - 1) / dd * fake};
        s.offsets_.push_back(core.bit_offset(j));
      } else if constexpr (requires { core.bit_offset(j); }) {
        s.offsets_.push_back(core.bit_offset(j));
      } else {
        s.offsets_.push_back(SampledAttribute<GrrSlot, M>::index_bits);
      }
      s.channels_.push_back(ch);
      s.item_offsets_.push_back(s.item_offsets_.back() + sizes[j]);
    }
    s.core_ = core;
  };
  const auto configure = [&](auto core, auto... extra) {
    st = decltype(core)::configure(eps, sizes.data(), d, core, extra...);
    if (st == Status::ok) take(core);
  };
  switch (protocol) {
    case MechanismId::spl_grr: configure(SplitRecord<GrrSlot, M>{}); break;
    case MechanismId::spl_oue: configure(SplitRecord<OueSlot, M>{}); break;
    case MechanismId::smp_grr: configure(SampledAttribute<GrrSlot, M>{}); break;
    case MechanismId::smp_oue: configure(SampledAttribute<OueSlot, M>{}); break;
    case MechanismId::rsfd_grr: configure(FakeDataRecord<GrrSlot, M>{}); break;
    case MechanismId::rsfd_oue_z: configure(FakeDataRecord<OueSlot, M>{}, FakeData::zero); break;
    default: configure(FakeDataRecord<OueSlot, M>{}, FakeData::random); break;
  }
  if (st != Status::ok) {
    error = std::string("cannot configure ") + name + " with epsilon " + std::to_string(std::ldexp(double(eps.q32), -32)) +
            " over " + std::to_string(d) + " attributes: " + to_string(st) +
            (is_rsfd(protocol) ? " (ε' = ln(d(e^ε − 1) + 1) must stay at or below 20)"
                               : " (each attribute's ε — ε/d for spl — must be positive; domains 2 … 2^24)");
    return std::nullopt;
  }
  s.attributes_ = std::move(attributes);
  return s;
}

Epsilon MultiAttributeSchema::slot_epsilon(std::uint32_t j) const {
  return std::visit([&](const auto& core) { return core.slot(j).realized_epsilon(); }, core_);
}

std::optional<std::uint32_t> MultiAttributeSchema::find(const std::string& name) const {
  return find_attribute(attributes_, name);
}

bool MultiAttributeSchema::same_as(const MultiAttributeSchema& o) const {
  return protocol_ == o.protocol_ && description_.digest == o.description_.digest &&
         requested_.q32 == o.requested_.q32 && attributes_ == o.attributes_;
}

ParseError MultiAttributeSchema::count(std::span<const std::uint8_t> payload, std::span<std::uint64_t> supports,
                                       std::span<std::uint64_t> carried) const {
  if (payload.size() != payload_bytes()) return payload.size() < payload_bytes() ? ParseError::truncated : ParseError::oversized;
  const unsigned spare = static_cast<unsigned>(payload_bytes() * 8 - description_.payload_bits);
  if (spare != 0 && (payload.back() >> (8 - spare)) != 0) return ParseError::nonzero_padding;
  const std::uint8_t* p = payload.data();
  // The value a GRR slot holds, or whether an OUE slot's bits past k are clear.
  const auto slot_ok = [&](const auto& slot, std::uint32_t offset, std::uint32_t width) {
    if constexpr (std::is_same_v<std::decay_t<decltype(slot)>, GrrSlot>) {
      if (tinyldp::detail::read_bits(p, offset, width) >= slot.domain()) return ParseError::value_out_of_range;
    } else {
      for (std::uint32_t v = slot.domain(); v < width; ++v)
        if (OueSlot::bit(p, offset, v)) return ParseError::nonzero_padding;
    }
    return ParseError::none;
  };
  const auto add_slot = [&](const auto& slot, std::uint32_t j, std::uint32_t offset) {
    const auto s = supports.subspan(item_offsets_[j]);
    if constexpr (std::is_same_v<std::decay_t<decltype(slot)>, GrrSlot>) {
      ++s[slot.read(p, offset)];
    } else {
      for (std::uint32_t v = 0; v < slot.domain(); ++v) s[v] += OueSlot::bit(p, offset, v);
    }
    if (!carried.empty()) ++carried[j];
  };
  return std::visit(
      [&](const auto& core) {
        const std::uint32_t d = core.attributes();
        if constexpr (requires { core.payload_bits(); }) {  // SMP: the index, then one slot
          const std::uint32_t j = p[0];
          if (j >= d) return ParseError::value_out_of_range;
          const std::uint32_t width = core.payload_bits() - SampledAttribute<GrrSlot, M>::index_bits;
          if (const ParseError e = slot_ok(core.slot(j), offsets_[j], width); e != ParseError::none) return e;
          if constexpr (std::is_same_v<std::decay_t<decltype(core.slot(0))>, GrrSlot>)
            if (tinyldp::detail::read_bits(p, offsets_[j] + core.slot(j).bits(), width - core.slot(j).bits()) != 0)
              return ParseError::nonzero_padding;
          add_slot(core.slot(j), j, offsets_[j]);
        } else {
          for (std::uint32_t j = 0; j < d; ++j)
            if (const ParseError e = slot_ok(core.slot(j), offsets_[j], core.slot(j).bits()); e != ParseError::none)
              return e;
          for (std::uint32_t j = 0; j < d; ++j) add_slot(core.slot(j), j, offsets_[j]);
        }
        return ParseError::none;
      },
      core_);
}

MultiAttributeCounts::MultiAttributeCounts(MultiAttributeSchema schema) : schema_(std::move(schema)) {
  support_.assign(schema_.items(), 0);
  carried_.assign(schema_.attribute_count(), 0);
}

ParseError MultiAttributeCounts::add_payload(std::span<const std::uint8_t> payload) {
  const ParseError e = schema_.count(payload, support_, carried_);
  if (e == ParseError::none) ++total_;
  return e;
}

std::optional<FramedReportError> MultiAttributeCounts::add_framed(std::span<const std::uint8_t> reports) {
  return for_each_framed_report(reports, schema_.description(),
                                [&](std::span<const std::uint8_t> payload) { return add_payload(payload); });
}

bool MultiAttributeCounts::merge(const MultiAttributeCounts& other) {
  if (!schema_.same_as(other.schema_)) return false;
  for (std::size_t i = 0; i < support_.size(); ++i) support_[i] += other.support_[i];
  for (std::size_t j = 0; j < carried_.size(); ++j) carried_[j] += other.carried_[j];
  total_ += other.total_;
  return true;
}

MarginalEstimate MultiAttributeCounts::estimate(std::uint32_t j) const {
  MarginalEstimate m;
  const std::uint64_t n = carried_[j];
  m.reports = n;
  const FrequencyEstimate e = estimate_frequencies(support(j), n, schema_.channel(j));
  const double scale = n == 0 ? 0.0 : 1.0 / static_cast<double>(n);
  for (std::size_t v = 0; v < e.count.size(); ++v) {
    m.frequency.push_back(n == 0 ? 0.0 : e.count[v] * scale);
    m.stddev.push_back(n == 0 ? 0.0 : std::sqrt(e.variance[v]) * scale);
  }
  return m;
}

std::vector<ItemEstimate> MultiAttributeCounts::estimate_items(std::uint32_t j, double confidence) const {
  if (!(confidence > 0 && confidence < 1)) throw std::invalid_argument("confidence must be in (0, 1)");
  const double z = normal_quantile_two_sided(confidence);
  const std::uint64_t n = carried_[j];
  const double nd = static_cast<double>(n);
  const Channel ch = schema_.channel(j);
  if (n == 0) {  // no report carries j: nothing is known of it, and nothing pretends to be
    const double unknown = std::numeric_limits<double>::quiet_NaN();
    return std::vector<ItemEstimate>(support(j).size(), ItemEstimate{0, unknown, unknown, unknown, unknown, unknown});
  }
  std::vector<ItemEstimate> out(support(j).size());
  for (std::size_t v = 0; v < out.size(); ++v) {
    ItemEstimate& e = out[v];
    const double count = estimate_count(support(j)[v], n, ch);
    e.unbiased_frequency = e.frequency = count / nd;
    e.count = count;
    double variance = count_variance(n, std::clamp(count, 0.0, nd), ch) / (nd * nd);
    if (n < total_) {  // SMP: the n_j reports that carry j are a sample of the N records
      const double f = std::clamp(e.frequency, 0.0, 1.0);
      variance += f * (1 - f) / nd * (1 - nd / static_cast<double>(total_));
    }
    e.standard_error = std::sqrt(variance);
    std::tie(e.ci_low, e.ci_high) =
        interval_around(e.unbiased_frequency, e.standard_error, z, e.frequency, Postprocess::none);
  }
  return out;
}

std::vector<std::uint8_t> MultiAttributeCounts::serialize() const {
  nlohmann::json header = {{"protocol", schema_.name()},
                           {"epsilon_q32", schema_.requested_epsilon().q32},
                           {"attributes", attributes_json(schema_.attributes())},
                           {"digest", schema_.description().digest},
                           {"epsilon_per_report_q32", schema_.epsilon_per_report().q32}};
  if (schema_.epsilon_one_attribute()) header["epsilon_one_attribute_q32"] = schema_.epsilon_one_attribute()->q32;
  const std::string text = header.dump();
  std::size_t body = 8;
  for (std::uint32_t j = 0; j < schema_.attribute_count(); ++j) body += 8 + 8 * support(j).size();
  SizedWriter out(multi_magic, text, body);
  out.le(total_);
  for (std::uint32_t j = 0; j < schema_.attribute_count(); ++j) {
    out.le(carried_[j]);
    for (std::uint64_t c : support(j)) out.le(c);
  }
  return out.finish();
}

std::optional<MultiAttributeCounts> MultiAttributeCounts::deserialize(std::span<const std::uint8_t> bytes,
                                                                      std::string& error) {
  const auto frame = read_counts_header(bytes, multi_magic, "multi-attribute counts", 8, error);
  if (!frame) return std::nullopt;
  const nlohmann::json& h = frame->json;
  if (h.is_discarded() || !h.is_object() || !h.contains("protocol") || !h["protocol"].is_string() ||
      !h.contains("epsilon_q32") || !h["epsilon_q32"].is_number_unsigned() || !h.contains("attributes") ||
      !h["attributes"].is_array() || !h.contains("digest") || !h["digest"].is_number_unsigned()) {
    error = "multi-attribute counts header is not the expected JSON (protocol, epsilon_q32, attributes, digest)";
    return std::nullopt;
  }
  const auto protocol = multi_attribute_protocol(h["protocol"].get<std::string>());
  if (!protocol) {
    error = "multi-attribute counts header: unknown protocol '" + h["protocol"].get<std::string>() + "'";
    return std::nullopt;
  }
  auto attributes = attributes_from_json(h["attributes"], "multi-attribute counts", max_collector_domain, error);
  if (!attributes) return std::nullopt;
  auto schema = MultiAttributeSchema::make(*protocol, Epsilon{h["epsilon_q32"].get<std::uint64_t>()},
                                           std::move(*attributes), error);
  if (!schema) return std::nullopt;
  if (h["digest"].get<std::uint64_t>() != schema->description().digest) {
    error = "multi-attribute counts header: its digest does not match the configuration it states";
    return std::nullopt;
  }
  MultiAttributeCounts counts(std::move(*schema));
  std::size_t at = frame->body_at;
  std::uint64_t expected = 8;
  for (const auto& a : counts.schema().attributes()) expected += 8 * (std::uint64_t{a.size} + 1);
  if (bytes.size() - at != expected) {
    error = "multi-attribute counts file: " + std::to_string(bytes.size() - at) + " bytes of counts, expected " +
            std::to_string(expected);
    return std::nullopt;
  }
  counts.total_ = get_le<std::uint64_t>(bytes.data() + at);
  at += 8;
  const bool every_report_carries_all = !is_smp(counts.schema().protocol());
  std::uint64_t sum_carried = 0;
  for (std::uint32_t j = 0; j < counts.schema().attribute_count(); ++j) {
    const auto support = std::span(counts.support_).subspan(counts.schema().item_offset(j),
                                                            counts.schema().attributes()[j].size);
    counts.carried_[j] = get_le<std::uint64_t>(bytes.data() + at);
    at += 8;
    std::uint64_t sum = 0;
    for (auto& c : support) {
      c = get_le<std::uint64_t>(bytes.data() + at);
      at += 8;
      sum += c;
    }
    sum_carried += counts.carried_[j];
    // GRR: every carried report supports exactly one value; OUE: at most k each.
    const bool grr = is_grr(counts.schema().protocol());
    const bool fits = grr ? sum == counts.carried_[j]
                          : support.empty() || sum / support.size() <= counts.carried_[j];
    if (!fits || (every_report_carries_all && counts.carried_[j] != counts.total_)) {
      error = "multi-attribute counts file: attribute " + std::to_string(j) + "'s counts do not add up to its " +
              std::to_string(counts.carried_[j]) + " reports of " + std::to_string(counts.total_);
      return std::nullopt;
    }
  }
  if (!every_report_carries_all && sum_carried != counts.total_) {
    error = "multi-attribute counts file: the sampled attributes' reports (" + std::to_string(sum_carried) +
            ") do not add up to the " + std::to_string(counts.total_) + " reports";
    return std::nullopt;
  }
  return counts;
}

}  // namespace tinyldp::collector
