// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/unary_encoding.hpp — the unary encodings (unary_encoding.hpp: sue,
// oue; custom-probability ue is known on the wire but not configured by name) on the collector:
// the payload is the report; counted by the bit-sliced column counter. Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_UNARY_ENCODING_HPP
#define TINYLDP_COLLECTOR_MODELS_UNARY_ENCODING_HPP

#include <array>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace tinyldp::collector {

struct UeModel : BitPayloadModel<MechanismKind::categorical, UnaryEncoding> {
  static constexpr const char* core_header = "unary_encoding.hpp";
  static constexpr std::array<ModelRow, 3> rows{{
      {MechanismId::sue, "sue", "UnaryEncoding", [] { return example_config(MechanismId::sue, Epsilon::from_ratio(1, 2), 100); }},
      {MechanismId::oue, "oue", "UnaryEncoding", [] { return example_config(MechanismId::oue, Epsilon::from_ratio(1, 1), 20); }},
      {MechanismId::ue, "ue", "UnaryEncoding", nullptr},  // custom (p, q): on the wire, not configured by name
  }};
  static constexpr bool bit_columns = true;
  using CoreModel::check_parameters, CoreModel::items, CoreModel::channel, CoreModel::local_epsilon;
  using BitPayloadModel::check, BitPayloadModel::add_support, BitPayloadModel::fields, CoreModel::privatize;
  static Status configure(const MechanismConfig& c, UeModel& out, MechanismConfig& normalized);
  std::string fractions() const;
};
static_assert(CollectorModel<UeModel>);

}  // namespace tinyldp::collector

#endif
