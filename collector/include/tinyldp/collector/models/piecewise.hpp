// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/piecewise.hpp — the Piecewise Mechanism (piecewise.hpp: pm, numeric)
// on the collector: the items are the M output cells; a cell ≥ M is refused. Its reports give
// the mean: each cell's score is an exactly unbiased estimate of the value (the expected cell is
// affine in the band's start), and the mean's interval is the scores' normal one. They give no
// distribution here (mean_only: the cells are a sliding band's, not values; sd and dlaplace
// estimate distributions). Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_PIECEWISE_HPP
#define TINYLDP_COLLECTOR_MODELS_PIECEWISE_HPP

#include <array>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/piecewise.hpp"

namespace tinyldp::collector {

// The reason a pm or hm configuration (`name`) is refused, or empty: M out of 4 … 4096, the
// range, a domain other than M + extra_items (hm: Duchi's two levels), or (hi − lo)·S·2^B ≥
// 2^63 (the rounding's product; S the band's starts).
std::string check_piecewise_parameters(const MechanismConfig& c, const char* name, std::uint32_t extra_items = 0);

struct PmModel : CoreModel<MechanismKind::numeric, PiecewiseMechanism> {
  static constexpr const char* core_header = "piecewise.hpp";
  static constexpr std::array<ModelRow, 1> rows{{
      {MechanismId::pm, "pm", "PiecewiseMechanism", [] {
         MechanismConfig c = example_range(MechanismId::pm, -100, 155);
         c.levels = 64;
         return c;
       }},
  }};
  static constexpr bool takes_levels = true;  // the output cells M
  static constexpr bool integer_items = false;
  static constexpr bool mean_only = true;
  using CoreModel::local_epsilon, CoreModel::privatize;
  static Status configure(const MechanismConfig& c, PmModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c) { return check_piecewise_parameters(c, "pm"); }
  // Atoms: the S band starts (value lo + s·W/(S − 1)); the score per cell and each start's
  // score variance in closed form (no S × M kernel: 32 MiB at M = 2048).
  NumericModel noise_model() const;
  // No distribution over the cells stands for a value: nothing to compare a truth with.
  std::vector<std::pair<std::uint32_t, double>> item_weights(std::int64_t) const { return {}; }
  std::uint32_t items() const { return core.cells(); }
  Channel channel() const { return {}; }
  std::string fractions() const;
  std::optional<std::uint32_t> item(std::span<const std::uint8_t> payload) const {
    const std::uint32_t cell = core.unpack(payload.data());
    return cell < core.cells() ? std::optional(cell) : std::nullopt;
  }
  // A cell stands for its score: the unbiased estimate of the value one report gives.
  double item_value(std::uint32_t cell) const;
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    const std::uint32_t cell = core.unpack(payload.data());
    return {{"cell", std::int64_t{cell}}, {"score", item_value(cell)}};
  }
};
static_assert(CollectorModel<PmModel>);

}  // namespace tinyldp::collector

#endif
