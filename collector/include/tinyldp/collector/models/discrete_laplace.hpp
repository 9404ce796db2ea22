// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/discrete_laplace.hpp — discrete Laplace (discrete_laplace.hpp:
// dlaplace, numeric) on the collector: the items are the values lo … hi; no (p, q) channel —
// its estimates deconvolve the exact noise kernel (numeric_estimate.hpp), O(W³) to invert.
// Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_DISCRETE_LAPLACE_HPP
#define TINYLDP_COLLECTOR_MODELS_DISCRETE_LAPLACE_HPP

#include <array>
#include <memory>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/discrete_laplace.hpp"

namespace tinyldp::collector {

// The exact dlaplace kernel in integers: kernel[x·(W+1) + y] = 2^B·Pr[report lo + y | value lo + x].
std::vector<std::uint64_t> dlaplace_kernel(const DiscreteLaplace& dl);

struct DlaplaceModel : CoreModel<MechanismKind::numeric, DiscreteLaplace> {
  static constexpr bool takes_precision = false;  // its precision is its noise bits
  static constexpr const char* core_header = "discrete_laplace.hpp";
  static constexpr std::array<ModelRow, 1> rows{{
      {MechanismId::dlaplace, "dlaplace", "DiscreteLaplace", [] {
         MechanismConfig c = example_range(MechanismId::dlaplace, -8, 8);
         c.sensitivity = 2;
         return c;
       }},
  }};
  static constexpr bool takes_sensitivity = true;
  static constexpr bool deconvolved = true;
  using CoreModel::privatize;
  // The noise weights core points at; shared, so that copies keep pointing at live storage.
  std::shared_ptr<const std::vector<std::uint64_t>> weights;
  static Status configure(const MechanismConfig& c, DlaplaceModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  NumericModel noise_model() const;  // the exact (W + 1)² noise matrix and its inverse
  // The item standing for the value (a noiseless report is the value).
  std::vector<std::pair<std::uint32_t, double>> item_weights(std::int64_t value) const {
    return {{static_cast<std::uint32_t>(value - core.low()), 1.0}};
  }
  // The ε between any two inputs of the range (realized_epsilon is for inputs ≤ Δ apart).
  Epsilon local_epsilon() const { return core.local_epsilon(); }
  std::uint32_t items() const {
    return static_cast<std::uint32_t>(std::int64_t{core.high()} - core.low()) + 1;
  }
  Channel channel() const { return {}; }
  std::string fractions() const;
  // The payload is y − lo (core.pack); compared as that offset, so no sum can overflow.
  std::uint32_t offset(std::span<const std::uint8_t> payload) const {
    return static_cast<std::uint32_t>(core.unpack(payload.data())) - static_cast<std::uint32_t>(core.low());
  }
  std::optional<std::uint32_t> item(std::span<const std::uint8_t> payload) const {
    const std::uint32_t v = offset(payload);
    return v < items() ? std::optional(v) : std::nullopt;
  }
  double item_value(std::uint32_t item) const {
    return static_cast<double>(std::int64_t{core.low()} + item);
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    return {{"value", std::int64_t{core.low()} + offset(payload)}};
  }
};
static_assert(CollectorModel<DlaplaceModel>);

}  // namespace tinyldp::collector

#endif
