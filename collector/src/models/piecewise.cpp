// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/piecewise.hpp"

#include <cmath>

namespace tinyldp::collector {

std::string check_piecewise_parameters(const MechanismConfig& c, const char* name, std::uint32_t extra_items) {
  if (c.levels != 0 && (c.levels < PiecewiseMechanism::min_cells || c.levels > PiecewiseMechanism::max_cells))
    return std::string("levels (") + name + ": the output cells M) must be " + std::to_string(PiecewiseMechanism::min_cells) + " … " +
           std::to_string(PiecewiseMechanism::max_cells) + " (got " + std::to_string(c.levels) + ")";
  const std::uint32_t cells = c.levels == 0 ? PiecewiseMechanism::default_cells : c.levels;
  const char* items = extra_items == 0 ? "the output cells" : "the output cells and Duchi's two levels";
  if (std::string r = check_value_range(c, std::int64_t{cells} + extra_items, items); !r.empty()) return r;
  // The core's limit: (hi − lo)·S·2^B < 2^63, S = M − W_b + 1 the band's starts.
  const unsigned bits = c.noise_bits == 0 ? PiecewiseMechanism::default_rounding_bits : c.noise_bits;
  if (is_valid_epsilon(c.epsilon) && bits <= 24 && c.hi > c.lo) {
    const std::uint64_t starts = cells - PiecewiseMechanism::band_cells_for(c.epsilon, cells) + 1;
    const auto width = static_cast<std::uint64_t>(std::int64_t{c.hi} - c.lo);
    if (width >= (std::uint64_t{1} << 31) || width * starts >= (std::uint64_t{1} << (63 - bits)))
      return std::string(name) + " needs (hi − lo)·S < 2^" + std::to_string(63 - bits) + ", S = " + std::to_string(starts) +
             " the band's starts at this ε and " + std::to_string(cells) +
             " cells (its rounding multiplies the range by S); got hi − lo = " + std::to_string(width) +
             ": fewer cells or a narrower range";
  }
  return {};
}

Status PmModel::configure(const MechanismConfig& c, PmModel& out, MechanismConfig& normalized) {
  const unsigned bits = c.noise_bits == 0 ? PiecewiseMechanism::default_rounding_bits : c.noise_bits;
  const std::uint32_t cells = c.levels == 0 ? PiecewiseMechanism::default_cells : c.levels;
  const Status s = PiecewiseMechanism::configure(c.epsilon, c.lo, c.hi, cells, out.core, c.precision, bits);
  if (s != Status::ok) return s;
  if (c.domain != 0 && c.domain != cells) return Status::bad_parameter;
  normalized.domain = cells;
  normalized.levels = cells;
  normalized.noise_bits = static_cast<std::uint8_t>(bits);
  normalized.sensitivity = 0;
  return Status::ok;
}

std::string PmModel::fractions() const {
  const Dyadic m = core.outside_probability();
  return "M = " + std::to_string(core.cells()) + " cells, band W_b = " + std::to_string(core.band_cells()) +
         ": inside h = " + fraction_text(core.band_numerator(), m.bits) + ", outside m = " + fraction_text(m) +
         ", cell 0 + " + fraction_text(core.cell_zero_extra(), m.bits) + ", rounding with " +
         std::to_string(core.rounding_bits()) + " bits";
}

namespace {
// Pr[cell y | start s]·2^b as a double (exact below 2^53; the ratios are what matter).
struct Cells {
  double m, h, rest, scale;
  explicit Cells(const PiecewiseMechanism& pm)
      : m(static_cast<double>(pm.outside_probability().num)),
        h(static_cast<double>(pm.band_numerator())),
        rest(static_cast<double>(pm.cell_zero_extra())),
        scale(std::ldexp(1.0, pm.outside_probability().bits)) {}
};
}  // namespace

double PmModel::item_value(std::uint32_t cell) const {
  // E[y | s]·2^b = m·M(M − 1)/2 + (h − m)·W_b·(s + (W_b − 1)/2), so
  // s = (y·2^b − m·M(M − 1)/2 − (h − m)·W_b(W_b − 1)/2)/((h − m)·W_b) is unbiased for the start.
  const Cells c(core);
  const double cells = core.cells(), band = core.band_cells();
  const double start = (cell * c.scale - c.m * cells * (cells - 1) / 2 - (c.h - c.m) * band * (band - 1) / 2) /
                       ((c.h - c.m) * band);
  const double width = static_cast<double>(std::int64_t{core.high()} - core.low());
  return core.low() + start * width / (core.starts() - 1);
}

NumericModel PmModel::noise_model() const {
  const std::uint32_t cells = core.cells(), starts = core.starts();
  NumericModel out;
  out.size = cells;
  out.atoms = starts;
  out.mean_only = true;
  out.rounded = true;
  const double width = static_cast<double>(std::int64_t{core.high()} - core.low());
  out.atom_value.resize(starts);
  for (std::uint32_t s = 0; s < starts; ++s) out.atom_value[s] = core.low() + s * width / (starts - 1);
  out.score.resize(cells);
  for (std::uint32_t y = 0; y < cells; ++y) out.score[y] = item_value(y);
  // Var(g | s) = c²·Var(y | s), c the score's slope per cell; E[y^k | s]·2^b = m·Σ_{y<M} y^k +
  // (h − m)·Σ_{band} y^k (cell 0's R adds nothing).
  const Cells c(core);
  const double band = core.band_cells();
  const double slope = c.scale / ((c.h - c.m) * band) * width / (starts - 1);
  auto sum1 = [](double n) { return n * (n - 1) / 2; };                 // Σ_{y<n} y
  auto sum2 = [](double n) { return (n - 1) * n * (2 * n - 1) / 6; };  // Σ_{y<n} y²
  out.atom_variance.resize(starts);
  for (std::uint32_t s = 0; s < starts; ++s) {
    const double first = (c.m * sum1(cells) + (c.h - c.m) * (sum1(s + band) - sum1(s))) / c.scale;
    const double second = (c.m * sum2(cells) + (c.h - c.m) * (sum2(s + band) - sum2(s))) / c.scale;
    out.atom_variance[s] = slope * slope * (second - first * first);
  }
  return out;
}

}  // namespace tinyldp::collector
