// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/krr.hpp — k-ary randomized response (krr.hpp) on the collector: the
// payload is the value; a payload value ≥ k is refused. Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_KRR_HPP
#define TINYLDP_COLLECTOR_MODELS_KRR_HPP

#include <array>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/krr.hpp"

namespace tinyldp::collector {

struct KrrModel : ModelDefaults {
  static constexpr MechanismKind kind = MechanismKind::categorical;
  static constexpr std::array<ModelRow, 1> rows{{
      {MechanismId::krr, "krr", [] { return example_config(MechanismId::krr, Epsilon::from_ratio(2, 1), 13); }},
  }};
  KaryRr core;
  static Status configure(const MechanismConfig& c, KrrModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c) { return check_categories(c); }
  std::uint32_t items() const { return core.domain(); }
  Channel channel() const { return channel_of(core); }
  std::string fractions() const;
  Epsilon local_epsilon() const { return core.realized_epsilon(); }
  std::optional<std::uint32_t> item(std::span<const std::uint8_t> payload) const {
    const std::uint32_t v = core.unpack(payload.data());
    return v < core.domain() ? std::optional(v) : std::nullopt;
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    return {{"value", std::int64_t{core.unpack(payload.data())}}};
  }
  template <class Rng>
  Status privatize(std::uint32_t value, Rng& rng, std::uint8_t* payload) const {
    return privatize_packed(core, value, rng, payload);
  }
};
static_assert(CollectorModel<KrrModel>);

}  // namespace tinyldp::collector

#endif
