// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/rr.hpp — binary randomized response (rr.hpp) on the collector: a
// 1-bit payload; each report supports the bit it carries. Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_RR_HPP
#define TINYLDP_COLLECTOR_MODELS_RR_HPP

#include <array>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/rr.hpp"

namespace tinyldp::collector {

struct RrModel : CoreModel<MechanismKind::categorical, BinaryRr> {
  static constexpr const char* core_header = "rr.hpp";
  static constexpr std::array<ModelRow, 1> rows{{
      {MechanismId::rr, "rr", "BinaryRr", [] { return example_config(MechanismId::rr, Epsilon::from_ratio(1, 1), 2); }},
  }};
  using CoreModel::channel, CoreModel::local_epsilon, CoreModel::fields, CoreModel::privatize;
  static Status configure(const MechanismConfig& c, RrModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  std::uint32_t items() const { return 2; }
  std::string fractions() const;
  std::optional<std::uint32_t> item(std::span<const std::uint8_t> payload) const {
    return BinaryRr::unpack(payload.data());
  }
};
static_assert(CollectorModel<RrModel>);

}  // namespace tinyldp::collector

#endif
