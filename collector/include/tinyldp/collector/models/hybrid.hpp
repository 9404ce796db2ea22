// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/hybrid.hpp — the Hybrid Mechanism (hybrid.hpp: hm, numeric) on the
// collector: the items are PM's M cells and Duchi's two levels (M: lo, M + 1: hi); an output
// ≥ M + 2 is refused. Its reports give the mean: each output's score is its branch's unbiased
// estimate of the value (pm's model for a cell, sd's for a level), so their average is unbiased
// whatever α, and the mean's interval is the scores' normal one. No distribution (mean_only, as
// pm). Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_HYBRID_HPP
#define TINYLDP_COLLECTOR_MODELS_HYBRID_HPP

#include <array>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/collector/models/piecewise.hpp"
#include "tinyldp/collector/models/stochastic_discretization.hpp"
#include "tinyldp/hybrid.hpp"

namespace tinyldp::collector {

struct HmModel : CoreModel<MechanismKind::numeric, HybridMechanism> {
  static constexpr const char* core_header = "hybrid.hpp";
  static constexpr std::array<ModelRow, 1> rows{{
      {MechanismId::hm, "hm", "HybridMechanism", [] {
         MechanismConfig c = example_range(MechanismId::hm, -100, 155);
         c.levels = 64;
         return c;
       }},
  }};
  static constexpr bool takes_levels = true;  // PM's output cells M
  static constexpr bool integer_items = false;
  static constexpr bool mean_only = true;
  using CoreModel::local_epsilon, CoreModel::privatize;
  static Status configure(const MechanismConfig& c, HmModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c) { return check_piecewise_parameters(c, "hm", 2); }
  // Atoms: PM's S band starts; each start's score variance is α·PM's + (1 − α)·Duchi's at that
  // value (both branches unbiased: the mixture adds no term), Duchi's linear between starts, so
  // the worst case over values is found the same way as pm's.
  NumericModel noise_model() const;
  std::vector<std::pair<std::uint32_t, double>> item_weights(std::int64_t) const { return {}; }
  std::uint32_t items() const { return core.cells() + 2; }
  Channel channel() const { return {}; }
  std::string fractions() const;
  std::optional<std::uint32_t> item(std::span<const std::uint8_t> payload) const {
    const std::uint32_t y = core.unpack(payload.data());
    return y < items() ? std::optional(y) : std::nullopt;
  }
  // An output stands for its score: the unbiased estimate of the value its branch gives.
  double item_value(std::uint32_t y) const;
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const;

 private:
  PmModel piecewise() const;
  SdModel duchi() const;
};
static_assert(CollectorModel<HmModel>);

}  // namespace tinyldp::collector

#endif
