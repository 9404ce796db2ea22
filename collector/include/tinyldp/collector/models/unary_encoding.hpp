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

struct UeModel : ModelDefaults {
  static constexpr MechanismKind kind = MechanismKind::categorical;
  static constexpr std::array<ModelRow, 3> rows{{
      {MechanismId::sue, "sue", [] { return example_config(MechanismId::sue, Epsilon::from_ratio(1, 2), 100); }},
      {MechanismId::oue, "oue", [] { return example_config(MechanismId::oue, Epsilon::from_ratio(1, 1), 20); }},
      {MechanismId::ue, "ue", nullptr},  // custom (p, q): on the wire, not configured by name
  }};
  static constexpr bool bit_columns = true;
  UnaryEncoding core;
  static Status configure(const MechanismConfig& c, UeModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c) { return check_categories(c); }
  std::uint32_t items() const { return core.domain(); }
  Channel channel() const { return channel_of(core); }
  std::string fractions() const;
  Epsilon local_epsilon() const { return core.realized_epsilon(); }
  // Every payload of its length is a report.
  ParseError check(std::span<const std::uint8_t>) const { return ParseError::none; }
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    add_bit_support(payload, core.domain(), support);
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    return {{"bits_set", bits_set(payload, core.domain())}};
  }
  template <class Rng>
  Status privatize(std::uint32_t value, Rng& rng, std::uint8_t* payload) const {
    return core.privatize(value, rng, payload, core.report_bytes());
  }
};
static_assert(CollectorModel<UeModel>);

}  // namespace tinyldp::collector

#endif
