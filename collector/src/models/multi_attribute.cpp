// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/multi_attribute.hpp"

namespace tinyldp::collector {

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
           std::to_string(s.attributes()[j].size) + ", epsilon " + std::to_string(to_double(s.slot_epsilon(j))) +
           "): supports its value with p = " + std::to_string(s.channel(j).p) + ", another with q = " +
           std::to_string(s.channel(j).q);
  return out;
}

std::vector<PayloadField> MultiAttributeModel::fields(std::span<const std::uint8_t> payload) const {
  const MultiAttributeSchema& s = *core.schema;
  std::vector<PayloadField> out = record_fields(s.attributes());
  out.push_back({"epsilon_per_report", to_double(s.epsilon_per_report())});
  if (s.epsilon_one_attribute()) out.push_back({"epsilon_one_attribute", to_double(*s.epsilon_one_attribute())});
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
