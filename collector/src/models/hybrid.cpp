// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/hybrid.hpp"

#include <cmath>

namespace tinyldp::collector {

Status HmModel::configure(const MechanismConfig& c, HmModel& out, MechanismConfig& normalized) {
  const unsigned bits = c.noise_bits == 0 ? PiecewiseMechanism::default_rounding_bits : c.noise_bits;
  const std::uint32_t cells = c.levels == 0 ? PiecewiseMechanism::default_cells : c.levels;
  const Status s = HybridMechanism::configure(c.epsilon, c.lo, c.hi, cells, out.core, c.precision, bits);
  if (s != Status::ok) return s;
  if (c.domain != 0 && c.domain != cells + 2) return Status::bad_parameter;
  normalized.domain = cells + 2;
  normalized.levels = cells;
  normalized.noise_bits = static_cast<std::uint8_t>(bits);
  normalized.sensitivity = 0;
  return Status::ok;
}

PmModel HmModel::piecewise() const {
  PmModel m;
  m.core = core.piecewise();
  return m;
}
SdModel HmModel::duchi() const {
  SdModel m;
  m.core = core.duchi();
  return m;
}

std::string HmModel::fractions() const {
  return "PM with α = " + fraction_text(core.alpha()) + ": " + piecewise().fractions() + "; else Duchi's: " +
         duchi().fractions();
}

double HmModel::item_value(std::uint32_t y) const {
  return y < core.cells() ? piecewise().item_value(y) : duchi().noise_model().score[y - core.cells()];
}

std::vector<PayloadField> HmModel::fields(std::span<const std::uint8_t> payload) const {
  const std::uint32_t y = core.unpack(payload.data());
  if (y < core.cells()) return {{"cell", std::int64_t{y}}, {"score", item_value(y)}};
  return {{"level", std::int64_t{y - core.cells()}}, {"score", item_value(y)}};
}

NumericModel HmModel::noise_model() const {
  NumericModel out = piecewise().noise_model();
  const NumericModel d = duchi().noise_model();  // two levels, lo and hi, behind binary RR
  out.size = core.cells() + 2;
  out.score.push_back(d.score[0]);
  out.score.push_back(d.score[1]);
  const double alpha = std::ldexp(static_cast<double>(core.alpha().num), -static_cast<int>(core.alpha().bits));
  const double lo = core.low(), width = static_cast<double>(std::int64_t{core.high()} - core.low());
  for (std::uint32_t s = 0; s < out.atom_count(); ++s) {
    // Duchi's E[(g − v)² | v]: v rounds to hi with probability t, to lo otherwise.
    const double v = out.atom_value[s], t = (v - lo) / width;
    double duchi_variance = 0;
    for (std::uint32_t level = 0; level < 2; ++level) {
      const double weight = level == 0 ? 1 - t : t;
      for (std::uint32_t y = 0; y < 2; ++y) {
        const double g = d.score[y] - v;
        duchi_variance += weight * d.kernel[std::size_t{level} * 2 + y] * g * g;
      }
    }
    out.atom_variance[s] = alpha * out.atom_variance[s] + (1 - alpha) * duchi_variance;
  }
  return out;
}

}  // namespace tinyldp::collector
