// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/record_shape.hpp"

namespace tinyldp::collector {

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

MechanismConfig example_record(MechanismId id, std::vector<std::uint32_t> sizes) {
  MechanismConfig c = example_config(id, Epsilon::from_ratio(1, 1), 0);
  c.attribute_sizes = std::move(sizes);
  return c;
}

}  // namespace tinyldp::collector
