// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/one_bit_mean.hpp"

namespace tinyldp::collector {

std::string OneBitMeanModel::check_parameters(const MechanismConfig& c) {
  if (std::string r = check_value_range(c, 2, "its report's bit, standing for lo and hi"); !r.empty()) return r;
  const std::int64_t width = std::int64_t{c.hi} - c.lo;
  if (width > OneBitMean::max_value)
    return "1bitmean needs hi − lo ≤ 2^30 (got " + std::to_string(width) + ")";
  if (c.grid_step != 0 && width % c.grid_step != 0)
    return "grid-step must divide hi − lo = " + std::to_string(width) + " (got " + std::to_string(c.grid_step) + ")";
  if (c.noise_bits > 32)
    return "1bitmean's rounding bits (noise bits) must be 1 … 32 (got " + std::to_string(c.noise_bits) + ")";
  return check_memo_epsilons(c);
}

Status OneBitMeanModel::configure(const MechanismConfig& c, OneBitMeanModel& out,
                                  MechanismConfig& normalized) {
  if (c.hi <= c.lo || std::int64_t{c.hi} - c.lo > OneBitMean::max_value) return Status::bad_parameter;
  const auto width = static_cast<std::uint32_t>(std::int64_t{c.hi} - c.lo);
  OneBitMean::Grid grid;
  grid.max_value = width;
  grid.step = c.grid_step == 0 ? width : c.grid_step;
  grid.rounding_bits = c.noise_bits == 0 ? OneBitMean::default_rounding_bits : c.noise_bits;
  const Status s = OneBitMean::configure(c.epsilon, c.epsilon_one, grid, out.core, c.precision);
  if (s != Status::ok) return s;
  if (c.domain != 0 && c.domain != 2) return Status::bad_parameter;
  out.lo = c.lo;
  normalized.domain = 2;
  normalized.grid_step = grid.step;
  normalized.noise_bits = static_cast<std::uint8_t>(grid.rounding_bits);
  return Status::ok;
}

std::string OneBitMeanModel::fractions() const {
  const OneBitMean::Grid& g = core.grid();
  return "memo: q1 = " + fraction_text(core.chain().memo_stage().other_probability()) +
         " (binary RR at epsilon infinity of the rounded bit); report: flip gamma = " +
         fraction_text(core.flip_probability()) + "; grid step " + std::to_string(g.step) + " (" +
         std::to_string(core.cells()) + " cells), rounding with " + std::to_string(g.rounding_bits) + " bits";
}

std::vector<PayloadField> OneBitMeanModel::fields(std::span<const std::uint8_t> payload) const {
  const std::uint8_t y = OneBitMean::unpack(payload.data());
  const Channel ch = channel();
  const double estimate = static_cast<double>(lo) +
                          static_cast<double>(core.grid().max_value) * (y - ch.q) / (ch.p - ch.q);
  return {{"bit", std::int64_t{y}}, {"estimate", estimate}};
}

std::vector<std::pair<std::uint32_t, double>> OneBitMeanModel::item_weights(std::int64_t value) const {
  // α-point rounding and the memo's Bernoulli(j/J) make E[bit before the RR] = (value − lo)/m.
  const double up = static_cast<double>(value - lo) / static_cast<double>(core.grid().max_value);
  std::vector<std::pair<std::uint32_t, double>> out;
  if (up < 1) out.emplace_back(0, 1 - up);
  if (up > 0) out.emplace_back(1, up);
  return out;
}

}  // namespace tinyldp::collector
