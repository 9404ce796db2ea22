// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/histogram_encoding.hpp — the histogram encodings
// (histogram_encoding.hpp) on the collector: summation (she), whose payload holds d noisy
// components, and thresholding (the), a unary encoding with THE's (p, q). Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_HISTOGRAM_ENCODING_HPP
#define TINYLDP_COLLECTOR_MODELS_HISTOGRAM_ENCODING_HPP

#include <array>
#include <memory>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/histogram_encoding.hpp"

namespace tinyldp::collector {

// Summation with histogram encoding: the payload holds the d noisy components y_i + T
// (0 … 2T + 1), and a report supports item i by its component, so item i's support count is
// S_i = Σ (y_i + T); the channel holds E[y + T | x] and Var[y | x] from the exact weights, and
// the usual estimator (S_i − n·q)/(p − q) is SHE's sum estimator.
struct SheModel : CoreModel<MechanismKind::categorical, SummationHistogram> {
  static constexpr bool takes_precision = false;  // its precision is its noise bits
  static constexpr const char* core_header = "histogram_encoding.hpp";
  static constexpr std::array<ModelRow, 1> rows{{
      {MechanismId::she, "she", "SummationHistogram", [] { return example_config(MechanismId::she, Epsilon::from_ratio(1, 1), 16); }},
  }};
  using CoreModel::check_parameters, CoreModel::items, CoreModel::local_epsilon, CoreModel::privatize;
  // The noise weights core points at; shared, so that copies keep pointing at live storage.
  std::shared_ptr<const std::vector<std::uint64_t>> weights;
  static Status configure(const MechanismConfig& c, SheModel& out, MechanismConfig& normalized);
  Channel channel() const;
  std::string fractions() const;
  std::uint64_t max_support_per_report() const { return 2 * std::uint64_t{core.truncation()} + 1; }
  ParseError check(std::span<const std::uint8_t> payload) const {
    for (std::uint32_t i = 0; i < core.domain(); ++i)
      if (core.shifted_component(payload.data(), i) > 2 * core.truncation() + 1)
        return ParseError::value_out_of_range;
    return ParseError::none;
  }
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    for (std::uint32_t i = 0; i < core.domain(); ++i) support[i] += core.shifted_component(payload.data(), i);
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const;
};
static_assert(CollectorModel<SheModel>);

// Thresholding with histogram encoding: a unary encoding with THE's (p, q) under its own id;
// counted like UE, by the bit-sliced column counter.
struct TheModel : BitPayloadModel<MechanismKind::categorical, ThresholdHistogram> {
  static constexpr const char* core_header = "histogram_encoding.hpp";
  static constexpr std::array<ModelRow, 1> rows{{
      {MechanismId::the, "the", "ThresholdHistogram", [] { return example_config(MechanismId::the, Epsilon::from_ratio(1, 1), 16); }},
  }};
  static constexpr bool bit_columns = true;
  using CoreModel::check_parameters, CoreModel::items, CoreModel::local_epsilon;
  using BitPayloadModel::check, BitPayloadModel::add_support, BitPayloadModel::fields, CoreModel::privatize;
  static Status configure(const MechanismConfig& c, TheModel& out, MechanismConfig& normalized);
  Channel channel() const { return channel_of(core.unary()); }
  std::string fractions() const;
};
static_assert(CollectorModel<TheModel>);

}  // namespace tinyldp::collector

#endif
