// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/hadamard_response.hpp — Hadamard response (hadamard_response.hpp) on
// the collector: a report (row j, bit b) supports every item i with H(j, i) = b. Cost: O(d) per
// report. Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_HADAMARD_RESPONSE_HPP
#define TINYLDP_COLLECTOR_MODELS_HADAMARD_RESPONSE_HPP

#include <array>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/hadamard_response.hpp"

namespace tinyldp::collector {

struct HrModel : CoreModel<MechanismKind::categorical, HadamardResponse> {
  static constexpr const char* core_header = "hadamard_response.hpp";
  static constexpr std::array<ModelRow, 1> rows{{
      {MechanismId::hr, "hr", "HadamardResponse", [] { return example_config(MechanismId::hr, Epsilon::from_ratio(1, 1), 50); }},
  }};
  using CoreModel::check_parameters, CoreModel::items, CoreModel::local_epsilon, CoreModel::privatize;
  static Status configure(const MechanismConfig& c, HrModel& out, MechanismConfig& normalized);
  Channel channel() const { return {channel_of(core.randomizer()).p, 0.5}; }
  std::string fractions() const;
  // Every payload of its length is a report.
  ParseError check(std::span<const std::uint8_t>) const { return ParseError::none; }
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    const HadamardReport r = core.unpack(payload.data());
    for (std::uint32_t i = 0; i < core.domain(); ++i) support[i] += hadamard_bit(r.row, i) == r.bit;
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    const HadamardReport r = core.unpack(payload.data());
    return {{"row", std::int64_t{r.row}}, {"bit", std::int64_t{r.bit}}};
  }
};
static_assert(CollectorModel<HrModel>);

}  // namespace tinyldp::collector

#endif
