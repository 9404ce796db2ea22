// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/one_bit_mean.hpp — 1BitMean (one_bit_mean.hpp: 1bitmean, numeric)
// on the collector: values lo … hi are the core's 0 … m (m = hi − lo); the items are the
// report's bit, 0 standing for lo and 1 for hi — a binary channel (p*, q*) like sd's with two
// levels: E[y | x] = q* + ((x − lo)/m)(p* − q*), so the score lo + m(y − q*)/(p* − q*) is the
// per-report unbiased estimate (numeric_estimate.hpp). Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_BIT_FLIP_MEAN_HPP
#define TINYLDP_COLLECTOR_MODELS_BIT_FLIP_MEAN_HPP

#include <array>

#include "tinyldp/one_bit_mean.hpp"
#include "tinyldp/collector/models/longitudinal_grr.hpp"
#include "tinyldp/collector/models/model_base.hpp"

namespace tinyldp::collector {

struct OneBitMeanModel : GridModel<OneBitMean> {
  static constexpr const char* core_header = "one_bit_mean.hpp";
  static constexpr std::array<ModelRow, 1> rows{{
      {MechanismId::one_bit_mean, "1bitmean", "OneBitMean", [] { return example_grid(MechanismId::one_bit_mean); }},
  }};
  static constexpr bool takes_grid_step = true;
  static constexpr const char* memos_of = "grid point";
  using CoreModel::local_epsilon, GridModel::memo_covariance, GridModel::change_exposure, GridModel::privatize_memoized;
  static Status configure(const MechanismConfig& c, OneBitMeanModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  NumericModel noise_model() const { return evenly_spaced_levels(*this); }  // the binary channel over {lo, hi}
  // The two ends with the weights that average to the value (the expected truth per item).
  std::vector<std::pair<std::uint32_t, double>> item_weights(std::int64_t value) const;
  std::uint32_t items() const { return 2; }
  Channel channel() const { return composed_channel(core.chain()); }
  std::string fractions() const;
  std::uint32_t most_memos() const { return core.cells() + 1; }  // one memo per grid point
  std::optional<std::uint32_t> item(std::span<const std::uint8_t> payload) const {
    return OneBitMean::unpack(payload.data());
  }
  double item_value(std::uint32_t item) const {
    return static_cast<double>(std::int64_t{lo} + std::int64_t{item} * core.grid().max_value);
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const;
};
static_assert(CollectorModel<OneBitMeanModel>);

}  // namespace tinyldp::collector

#endif
