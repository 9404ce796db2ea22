// SPDX-License-Identifier: Apache-2.0
// The collector's models of the record mechanisms (mechanism_models.hpp): `record` (record_rr.hpp)
// and the protocols without memo (multi_attribute.hpp) — configured through the schemas that
// `tinyldp joint` and `tinyldp multi` count with, so a row and a counts file rebuild the same
// core object; their refusals and their inspect fields.
#include <cmath>

#include "tinyldp/collector/mechanism.hpp"

namespace tinyldp::collector {

namespace {
std::string fraction(Dyadic x) { return std::to_string(x.num) + "/2^" + std::to_string(x.bits); }
double as_double(Epsilon e) { return std::ldexp(static_cast<double>(e.q32), -32); }

// Attribute j's bits set among `width` bits from `offset`, as the field "bits_set_<j>".
PayloadField bits_set(std::uint32_t j, std::span<const std::uint8_t> payload, std::uint32_t offset,
                      std::uint32_t width) {
  std::vector<std::uint32_t> set;
  for (std::uint32_t v = 0; v < width; ++v) {
    const std::uint32_t at = offset + v;
    if ((payload[at / 8] >> (at % 8)) & 1u) set.push_back(v);
  }
  return {"bits_set_" + std::to_string(j), std::move(set)};
}
}  // namespace

std::string check_record_shape(const MechanismConfig& c, std::uint32_t least_attributes) {
  const std::string name = name_of(c.id);
  const auto d = c.attribute_sizes.size();
  if (d < least_attributes || d > max_record_attributes)
    return name + " takes " + std::to_string(least_attributes) + " to " + std::to_string(max_record_attributes) +
           " attributes (their domain sizes), not " + std::to_string(d);
  if (c.domain != 0 && c.domain != d)
    return "domain is not a parameter of " + name + ": it is the number of attributes, " + std::to_string(d) +
           " here (got " + std::to_string(c.domain) + ")";
  for (std::size_t j = 0; j < d; ++j)
    if (c.attribute_sizes[j] < 2 || c.attribute_sizes[j] > max_collector_domain)
      return name + ": attribute " + std::to_string(j) + " has " + std::to_string(c.attribute_sizes[j]) +
             " values; each needs 2 … " + std::to_string(max_collector_domain);
  return {};
}

std::vector<RecordAttribute> unnamed_attributes(const std::vector<std::uint32_t>& sizes) {
  std::vector<RecordAttribute> out;
  for (std::uint32_t k : sizes) out.push_back({"", k, {}});
  return out;
}

std::vector<PayloadField> record_fields(const std::vector<RecordAttribute>& attributes) {
  std::vector<std::uint32_t> sizes;
  for (const auto& a : attributes) sizes.push_back(a.size);
  return {{"attribute_sizes", std::move(sizes)}};
}

// --- record (id 22) -------------------------------------------------------------------------

std::string RecordModel::check_parameters(const MechanismConfig& c) {
  if (std::string r = check_record_shape(c, 1); !r.empty()) return r;
  return check_rappor_probabilities(c);
}

Status RecordModel::configure(const MechanismConfig& c, RecordModel& out, MechanismConfig& normalized,
                              std::string& reason) {
  auto schema = RecordSchema::make(unnamed_attributes(c.attribute_sizes), c.prr_f, c.irr_p, c.irr_q, reason);
  if (!schema) return Status::bad_parameter;
  out.core.schema = std::make_shared<const RecordSchema>(std::move(*schema));
  normalized.domain = static_cast<std::uint32_t>(c.attribute_sizes.size());
  return Status::ok;
}

std::string RecordModel::fractions() const {
  const TwoStageRr& a = core.rr().attribute(0);
  return "every attribute's bits: PRR p1 = " + fraction(a.p1()) + ", q1 = " + fraction(a.q1()) +
         "; IRR p2 = " + fraction(a.p2()) + ", q2 = " + fraction(a.q2()) + " (f = " +
         fraction(core.schema->f()) + ", p = " + fraction(core.schema->p()) + ", q = " +
         fraction(core.schema->q()) + ")";
}

std::vector<PayloadField> RecordModel::fields(std::span<const std::uint8_t> payload) const {
  const CollectorRecordRr& rr = core.rr();
  std::vector<PayloadField> out = record_fields(core.schema->attributes());
  out.push_back({"epsilon_one", as_double(rr.epsilon_one())});
  out.push_back({"epsilon_infinity", as_double(rr.epsilon_infinity())});
  for (std::uint32_t j = 0; j < rr.attributes(); ++j)
    out.push_back(bits_set(j, payload, rr.bit_offset(j), rr.attribute(j).bits()));
  return out;
}

// --- spl-*, smp-*, rsfd-* (ids 23 … 29) -----------------------------------------------------

std::string MultiAttributeModel::check_parameters(const MechanismConfig& c) {
  const bool split = c.id == MechanismId::spl_grr || c.id == MechanismId::spl_oue;
  return check_record_shape(c, split ? 1 : 2);  // sampling needs two attributes to sample from
}

Status MultiAttributeModel::configure(const MechanismConfig& c, MultiAttributeModel& out,
                                      MechanismConfig& normalized, std::string& reason) {
  auto schema = MultiAttributeSchema::make(c.id, c.epsilon, unnamed_attributes(c.attribute_sizes), reason);
  if (!schema) return Status::bad_parameter;
  out.core.schema = std::make_shared<const MultiAttributeSchema>(std::move(*schema));
  normalized.domain = static_cast<std::uint32_t>(c.attribute_sizes.size());
  return Status::ok;
}

std::string MultiAttributeModel::fractions() const {
  const MultiAttributeSchema& s = *core.schema;
  std::string out;
  for (std::uint32_t j = 0; j < s.attribute_count(); ++j)
    out += (j ? "; " : "") + std::string("attribute ") + std::to_string(j) + " (k = " +
           std::to_string(s.attributes()[j].size) + ", epsilon " + std::to_string(as_double(s.slot_epsilon(j))) +
           "): supports its value with p = " + std::to_string(s.channel(j).p) + ", another with q = " +
           std::to_string(s.channel(j).q);
  return out;
}

std::vector<PayloadField> MultiAttributeModel::fields(std::span<const std::uint8_t> payload) const {
  const MultiAttributeSchema& s = *core.schema;
  std::vector<PayloadField> out = record_fields(s.attributes());
  out.push_back({"epsilon_per_report", as_double(s.epsilon_per_report())});
  if (s.epsilon_one_attribute()) out.push_back({"epsilon_one_attribute", as_double(*s.epsilon_one_attribute())});
  // What the payload supports, through the one decoding the counts use.
  std::vector<std::uint64_t> support(s.items(), 0), carried(s.attribute_count(), 0);
  if (s.count(payload, support, carried) != ParseError::none) return out;
  const bool grr = s.protocol() == MechanismId::spl_grr || s.protocol() == MechanismId::smp_grr ||
                   s.protocol() == MechanismId::rsfd_grr;
  std::vector<std::uint32_t> values;
  for (std::uint32_t j = 0; j < s.attribute_count(); ++j) {
    if (carried[j] == 0) continue;
    if (s.protocol() == MechanismId::smp_grr || s.protocol() == MechanismId::smp_oue)
      out.push_back({"sampled", std::int64_t{j}});
    std::vector<std::uint32_t> set;
    for (std::uint32_t v = 0; v < s.attributes()[j].size; ++v)
      if (support[s.item_offset(j) + v] != 0) set.push_back(v);
    if (grr)
      values.push_back(set.at(0));
    else
      out.push_back({"bits_set_" + std::to_string(j), std::move(set)});
  }
  if (grr) out.push_back({"values", std::move(values)});
  return out;
}

}  // namespace tinyldp::collector
