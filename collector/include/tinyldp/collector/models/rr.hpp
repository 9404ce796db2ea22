// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/rr.hpp — binary randomized response (rr.hpp) on the collector: a
// 1-bit payload; each report supports the bit it carries. Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_RR_HPP
#define TINYLDP_COLLECTOR_MODELS_RR_HPP

#include <array>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/rr.hpp"

namespace tinyldp::collector {

struct RrModel : ModelDefaults {
  static constexpr MechanismKind kind = MechanismKind::categorical;
  static constexpr std::array<ModelRow, 1> rows{{
      {MechanismId::rr, "rr", [] { return example_config(MechanismId::rr, Epsilon::from_ratio(1, 1), 2); }},
  }};
  BinaryRr core;
  static Status configure(const MechanismConfig& c, RrModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  std::uint32_t items() const { return 2; }
  Channel channel() const { return channel_of(core); }
  std::string fractions() const;
  Epsilon local_epsilon() const { return core.realized_epsilon(); }
  std::optional<std::uint32_t> item(std::span<const std::uint8_t> payload) const {
    return BinaryRr::unpack(payload.data());
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    return {{"value", std::int64_t{BinaryRr::unpack(payload.data())}}};
  }
  template <class Rng>
  Status privatize(std::uint32_t value, Rng& rng, std::uint8_t* payload) const {
    return privatize_packed(core, value, rng, payload);
  }
};
static_assert(CollectorModel<RrModel>);

}  // namespace tinyldp::collector

#endif
