// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/stochastic_discretization.hpp"

#include <cmath>

namespace tinyldp::collector {

std::string SdModel::check_parameters(const MechanismConfig& c) {
  if (c.levels != 0 && (c.levels < 2 || c.levels > StochasticDiscretization::max_levels))
    return "levels must be 2 … " + std::to_string(StochasticDiscretization::max_levels) + " (got " +
           std::to_string(c.levels) + ")";
  if (std::string r = check_value_range(c, c.levels == 0 ? 2 : c.levels, "the levels"); !r.empty()) return r;
  if (std::int64_t{c.hi} - c.lo >= (std::int64_t{1} << 31)) return "sd needs hi − lo < 2^31";
  return {};
}

Status SdModel::configure(const MechanismConfig& c, SdModel& out, MechanismConfig& normalized) {
  const unsigned bits =
      c.noise_bits == 0 ? StochasticDiscretization::default_rounding_bits : c.noise_bits;
  const std::uint32_t levels = c.levels == 0 ? 2 : c.levels;  // 0: binary (L = 2)
  const Status s = StochasticDiscretization::configure(c.epsilon, c.lo, c.hi, levels, out.core,
                                                       c.precision, bits);
  if (s != Status::ok) return s;
  if (c.domain != 0 && c.domain != out.core.levels()) return Status::bad_parameter;
  normalized.domain = out.core.levels();
  normalized.levels = levels;
  normalized.noise_bits = static_cast<std::uint8_t>(bits);
  normalized.sensitivity = 0;
  return Status::ok;
}

std::string SdModel::fractions() const {
  const Dyadic q = core.randomizer().other_probability();
  return "L = " + std::to_string(core.levels()) + ", p = " +
         fraction_text(core.randomizer().keep_numerator(), q.bits) + ", q = " + fraction_text(q) +
         " (k-RR over the levels), rounding with " + std::to_string(core.rounding_bits()) + " bits";
}

std::vector<double> sd_level_distribution(const StochasticDiscretization& sd, std::int32_t value) {
  SdModel model;
  model.core = sd;
  std::vector<double> f(sd.levels(), 0.0);
  for (const auto& [level, weight] : model.item_weights(value)) f[level] += weight;
  return f;
}

std::vector<std::pair<std::uint32_t, double>> SdModel::item_weights(std::int64_t value) const {
  return rounding_weights(static_cast<std::uint64_t>(value - core.low()),
                          static_cast<std::uint64_t>(std::int64_t{core.high()} - core.low()), core.levels() - 1,
                          core.rounding_bits());
}

}  // namespace tinyldp::collector
