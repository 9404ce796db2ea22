// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/krr.hpp — k-ary randomized response (krr.hpp) on the collector: the
// payload is the value; a payload value ≥ k is refused. Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_KRR_HPP
#define TINYLDP_COLLECTOR_MODELS_KRR_HPP

#include <array>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/krr.hpp"

namespace tinyldp::collector {

struct KrrModel : CoreModel<MechanismKind::categorical, KaryRr> {
  static constexpr const char* core_header = "krr.hpp";
  static constexpr std::array<ModelRow, 1> rows{{
      {MechanismId::krr, "krr", "KaryRr", [] { return example_config(MechanismId::krr, Epsilon::from_ratio(2, 1), 13); }},
  }};
  using CoreModel::check_parameters, CoreModel::items, CoreModel::channel, CoreModel::local_epsilon;
  using CoreModel::item, CoreModel::fields, CoreModel::privatize;  // the payload is the value
  static Status configure(const MechanismConfig& c, KrrModel& out, MechanismConfig& normalized);
  std::string fractions() const;
};
static_assert(CollectorModel<KrrModel>);

}  // namespace tinyldp::collector

#endif
