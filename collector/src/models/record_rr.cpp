// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/record_rr.hpp"

namespace tinyldp::collector {

namespace {
// Attribute j's bits set among `width` bits from `offset`, as the field "bits_set_<j>".
PayloadField attribute_bits_set(std::uint32_t j, std::span<const std::uint8_t> payload, std::uint32_t offset,
                                std::uint32_t width) {
  std::vector<std::uint32_t> set;
  for (std::uint32_t v = 0; v < width; ++v)
    if (payload_bit(payload, offset + v)) set.push_back(v);
  return {"bits_set_" + std::to_string(j), std::move(set)};
}
}  // namespace

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
  return "every attribute's bits: PRR p1 = " + fraction_text(a.p1()) + ", q1 = " + fraction_text(a.q1()) +
         "; IRR p2 = " + fraction_text(a.p2()) + ", q2 = " + fraction_text(a.q2()) + " (f = " +
         fraction_text(core.schema->f()) + ", p = " + fraction_text(core.schema->p()) + ", q = " +
         fraction_text(core.schema->q()) + ")";
}

std::vector<PayloadField> RecordModel::fields(std::span<const std::uint8_t> payload) const {
  const CollectorRecordRr& rr = core.rr();
  std::vector<PayloadField> out = record_fields(core.schema->attributes());
  out.push_back({"epsilon_one", to_double(rr.epsilon_one())});
  out.push_back({"epsilon_infinity", to_double(rr.epsilon_infinity())});
  for (std::uint32_t j = 0; j < rr.attributes(); ++j)
    out.push_back(attribute_bits_set(j, payload, rr.bit_offset(j), rr.attribute(j).bits()));
  return out;
}

}  // namespace tinyldp::collector
