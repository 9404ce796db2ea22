// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/stochastic_discretization.hpp — stochastic discretization
// (stochastic_discretization.hpp: sd, numeric) on the collector: the items are the L levels; a
// level ≥ L is refused; the estimators see k-RR over evenly spaced levels. Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_STOCHASTIC_DISCRETIZATION_HPP
#define TINYLDP_COLLECTOR_MODELS_STOCHASTIC_DISCRETIZATION_HPP

#include <array>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/stochastic_discretization.hpp"

namespace tinyldp::collector {

// The exact distribution of the sd level a value rounds to, before randomized response:
// level ⌊t/W⌋ + 1 w.p. ⌊(t mod W)·2^B/W⌋/2^B, else ⌊t/W⌋ (t = (v − lo)(L − 1)); value in range.
std::vector<double> sd_level_distribution(const StochasticDiscretization& sd, std::int32_t value);

struct SdModel : CoreModel<MechanismKind::numeric, StochasticDiscretization> {
  static constexpr const char* core_header = "stochastic_discretization.hpp";
  static constexpr std::array<ModelRow, 1> rows{{
      {MechanismId::sd, "sd", "StochasticDiscretization", [] {
         MechanismConfig c = example_range(MechanismId::sd, -100, 155);
         c.levels = 5;
         return c;
       }},
  }};
  static constexpr bool takes_levels = true;
  static constexpr bool integer_items = false;
  using CoreModel::local_epsilon, CoreModel::privatize;
  static Status configure(const MechanismConfig& c, SdModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  NumericModel noise_model() const { return evenly_spaced_levels(*this); }  // k-RR over the levels
  // The levels a value rounds to, with their probabilities (the expected truth per level).
  std::vector<std::pair<std::uint32_t, double>> item_weights(std::int64_t value) const;
  std::uint32_t items() const { return core.levels(); }
  Channel channel() const { return channel_of(core.randomizer()); }
  std::string fractions() const;
  std::optional<std::uint32_t> item(std::span<const std::uint8_t> payload) const {
    const std::uint32_t level = core.unpack(payload.data());
    return level < core.levels() ? std::optional(level) : std::nullopt;
  }
  double item_value(std::uint32_t item) const {
    return core.low() + static_cast<double>(item) *
                            static_cast<double>(std::int64_t{core.high()} - core.low()) /
                            static_cast<double>(core.levels() - 1);
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    const std::uint32_t level = core.unpack(payload.data());
    return {{"level", std::int64_t{level}}, {"value", item_value(level)}};
  }
};
static_assert(CollectorModel<SdModel>);

}  // namespace tinyldp::collector

#endif
