// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/record_shape.hpp — what the two record models (models/record_rr.hpp,
// models/multi_attribute.hpp) share: records of d attributes in one report, configured by
// MechanismConfig::attribute_sizes. The core object is the collector's schema's
// (record_counts.hpp, multi_attribute_counts.hpp), configured there as the devices configure it
// and shared (it holds up to 64 attributes). The items are every attribute's values in order
// (attribute j's value v is item k_0 + … + k_{j−1} + v) and a report supports the values its
// slots hold, so an Aggregator counts per-attribute supports; the estimates are per attribute
// (`tinyldp multi`) or joint (`tinyldp joint`) from the schemas' own counts, not through one
// channel. A record privatizes d values (Mechanism::privatize_record), never one. Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_RECORD_SHAPE_HPP
#define TINYLDP_COLLECTOR_MODELS_RECORD_SHAPE_HPP

#include <string>
#include <vector>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/collector/record_counts.hpp"

namespace tinyldp::collector {

// The checks both make before configuring: d = attribute_sizes.size() of 1 … 64 (domain, if
// given, is d), each size at least 2.
std::string check_record_shape(const MechanismConfig& c, std::uint32_t least_attributes);
// The attributes, unnamed, of a configuration's sizes.
std::vector<RecordAttribute> unnamed_attributes(const std::vector<std::uint32_t>& sizes);
// Fields every record's inspect line starts with: attribute_sizes.
std::vector<PayloadField> record_fields(const std::vector<RecordAttribute>& attributes);
// A record example: attributes of these sizes, ε = 1 (RAPPOR's f, p, q set by `record`'s row).
MechanismConfig example_record(MechanismId id, std::vector<std::uint32_t> sizes);

}  // namespace tinyldp::collector

#endif
