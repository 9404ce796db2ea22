// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/square_wave.hpp — Square Wave (square_wave.hpp: sw, numeric) on the
// collector: the reported items are the N = D + 2B cells (a cell ≥ N is refused); the
// distribution is over the D buckets the values round to (the model's atoms, lo … hi evenly),
// estimated by EM or EMS (bayesian_update.hpp, with smoothing) and, unbiased, by a left inverse
// of the kernel through its window; the mean from each cell's exactly unbiased score (PM's grid: the expected
// cell is affine in the bucket). Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_SQUARE_WAVE_HPP
#define TINYLDP_COLLECTOR_MODELS_SQUARE_WAVE_HPP

#include <array>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/collector/models/piecewise.hpp"
#include "tinyldp/square_wave.hpp"

namespace tinyldp::collector {

struct SwModel : CoreModel<MechanismKind::numeric, SquareWave> {
  static constexpr const char* core_header = "square_wave.hpp";
  static constexpr std::array<ModelRow, 1> rows{{
      {MechanismId::sw, "sw", "SquareWave", [] {
         MechanismConfig c = example_range(MechanismId::sw, -100, 155);
         c.levels = 32;
         return c;
       }},
  }};
  static constexpr bool takes_levels = true;  // the buckets D
  static constexpr bool integer_items = false;
  static constexpr bool deconvolved = true;  // no (p, q) channel: the kernel's
  using CoreModel::local_epsilon, CoreModel::privatize;
  // D by default: W + 1 (every integer its own bucket, no rounding) up to 1024, else 1024.
  static std::uint32_t default_buckets(const MechanismConfig& c);
  static Status configure(const MechanismConfig& c, SwModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  // PM's grid's model (atoms: the D buckets, each cell's score), with the D × N kernel from the
  // core's integers (and as a band, for EM) and an N × D left inverse through the window (the
  // window's D × D overlap matrix, O(D³) by Eigen).
  NumericModel noise_model() const;
  // The buckets a value rounds to (the device's rounding, exactly).
  std::vector<std::pair<std::uint32_t, double>> item_weights(std::int64_t value) const {
    return rounding_weights(static_cast<std::uint64_t>(value - core.low()),
                            static_cast<std::uint64_t>(std::int64_t{core.high()} - core.low()), core.buckets() - 1,
                            core.grid().rounding_bits());
  }
  std::uint32_t items() const { return core.cells(); }
  // The distribution's rows: the buckets and the value each stands for.
  std::uint32_t atoms() const { return core.buckets(); }
  double atom_value(std::uint32_t bucket) const;
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

 private:
  PmModel grid_model() const;  // the grid as pm's model: its scores and starts are sw's
};
static_assert(CollectorModel<SwModel>);

}  // namespace tinyldp::collector

#endif
