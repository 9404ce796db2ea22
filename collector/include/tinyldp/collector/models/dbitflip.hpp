// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/dbitflip.hpp — dBitFlip (dbitflip.hpp: dbitflip, numeric) on the
// collector: values lo … hi are the core's 0 … m; the items are the k buckets (grid points lo,
// lo + s, …, hi). A report supports each sampled bucket whose bit is 1: the channel
// P(support v | v) = (d/k)·p*, P(support v | other) = (d/k)·q*. Reports support up to d items,
// so the mean and the bins take the covariance of a report's supports (numeric_estimate.hpp).
// Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_DBITFLIP_HPP
#define TINYLDP_COLLECTOR_MODELS_DBITFLIP_HPP

#include <array>

#include "tinyldp/collector/models/longitudinal_grr.hpp"
#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/dbitflip.hpp"

namespace tinyldp::collector {

struct DBitFlipModel : GridModel<DBitFlip> {
  static constexpr const char* core_header = "dbitflip.hpp";
  static constexpr std::array<ModelRow, 1> rows{{
      {MechanismId::dbitflip, "dbitflip", "DBitFlip", [] {
         MechanismConfig c = example_grid(MechanismId::dbitflip);
         c.sampled = 2;
         return c;
       }},
  }};
  static constexpr bool takes_grid_step = true;
  static constexpr bool takes_sampled = true;
  static constexpr const char* memos_of = "sampled bucket (or none)";
  using CoreModel::local_epsilon, GridModel::memo_covariance, GridModel::change_exposure, GridModel::privatize_memoized;
  static Status configure(const MechanismConfig& c, DBitFlipModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  NumericModel noise_model() const;
  std::uint32_t items() const { return core.buckets(); }
  Channel channel() const;
  std::string fractions() const;
  std::uint32_t most_memos() const { return core.sampled() + 1; }  // one memo per slot
  double item_value(std::uint32_t item) const {
    return static_cast<double>(std::int64_t{lo} + std::int64_t{item} * core.layout().step);
  }
  // α-point rounding: the two grid points around the value, weighted to average to it.
  std::vector<std::pair<std::uint32_t, double>> item_weights(std::int64_t value) const;
  ParseError check(std::span<const std::uint8_t> payload) const {
    return core.well_formed(core.unpack(payload.data())) ? ParseError::none : ParseError::value_out_of_range;
  }
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    const DBitFlipReport r = core.unpack(payload.data());
    for (std::uint32_t t = 0; t < core.sampled(); ++t) support[r.bucket[t]] += (r.bits >> t) & 1u;
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const;
};
static_assert(CollectorModel<DBitFlipModel>);

}  // namespace tinyldp::collector

#endif
