// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/square_wave.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>


namespace tinyldp::collector {

std::uint32_t SwModel::default_buckets(const MechanismConfig& c) {
  if (c.levels != 0) return c.levels;
  const std::int64_t values = std::int64_t{c.hi} - c.lo + 1;
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(values, SquareWave::min_buckets, SquareWave::default_buckets));
}

std::string SwModel::check_parameters(const MechanismConfig& c) {
  if (c.levels != 0 && (c.levels < SquareWave::min_buckets || c.levels > PiecewiseMechanism::max_cells))
    return "levels (sw: the buckets D) must be " + std::to_string(SquareWave::min_buckets) + " … " +
           std::to_string(PiecewiseMechanism::max_cells) + " (got " + std::to_string(c.levels) + ")";
  if (c.hi <= c.lo) return check_value_range(c, 0, "the output cells");
  const std::uint32_t buckets = default_buckets(c);
  if (!is_valid_epsilon(c.epsilon)) return check_value_range(c, c.domain, "the output cells");
  const std::uint64_t half = SquareWave::half_width_for(c.epsilon, buckets);
  const std::uint64_t cells = buckets + 2 * half;
  if (cells > PiecewiseMechanism::max_cells)
    return "sw's output cells N = D + 2B = " + std::to_string(buckets) + " + 2·" + std::to_string(half) + " = " +
           std::to_string(cells) + " exceed " + std::to_string(PiecewiseMechanism::max_cells) +
           " (B: the paper's half-width at this ε in buckets): fewer buckets";
  if (std::string r = check_value_range(c, static_cast<std::int64_t>(cells), "the output cells"); !r.empty()) return r;
  const unsigned bits = c.noise_bits == 0 ? PiecewiseMechanism::default_rounding_bits : c.noise_bits;
  const auto width = static_cast<std::uint64_t>(std::int64_t{c.hi} - c.lo);
  if (bits <= 24 && (width >= (std::uint64_t{1} << 31) || width * buckets >= (std::uint64_t{1} << (63 - bits))))
    return "sw needs (hi − lo)·D < 2^" + std::to_string(63 - bits) + " (its rounding multiplies the range by D = " +
           std::to_string(buckets) + "); got hi − lo = " + std::to_string(width) + ": fewer buckets or a narrower range";
  return {};
}

Status SwModel::configure(const MechanismConfig& c, SwModel& out, MechanismConfig& normalized) {
  const unsigned bits = c.noise_bits == 0 ? PiecewiseMechanism::default_rounding_bits : c.noise_bits;
  const std::uint32_t buckets = default_buckets(c);
  const Status s = SquareWave::configure(c.epsilon, c.lo, c.hi, buckets, out.core, c.precision, bits);
  if (s != Status::ok) return s;
  if (c.domain != 0 && c.domain != out.core.cells()) return Status::bad_parameter;
  normalized.domain = out.core.cells();
  normalized.levels = buckets;
  normalized.noise_bits = static_cast<std::uint8_t>(bits);
  normalized.sensitivity = 0;
  return Status::ok;
}

std::string SwModel::fractions() const {
  const PiecewiseMechanism& grid = core.grid();
  const Dyadic m = grid.outside_probability();
  return "D = " + std::to_string(core.buckets()) + " buckets, window 2B + 1 = " + std::to_string(grid.band_cells()) +
         " of N = " + std::to_string(core.cells()) + " cells: inside h = " + fraction_text(grid.band_numerator(), m.bits) +
         ", outside m = " + fraction_text(m) + ", cell 0 + " + fraction_text(grid.cell_zero_extra(), m.bits) +
         ", rounding with " + std::to_string(grid.rounding_bits()) + " bits";
}

double SwModel::atom_value(std::uint32_t bucket) const {
  const double width = static_cast<double>(std::int64_t{core.high()} - core.low());
  return core.low() + bucket * width / (core.buckets() - 1);
}

PmModel SwModel::grid_model() const {
  PmModel grid;
  grid.core = core.grid();
  return grid;
}

double SwModel::item_value(std::uint32_t cell) const { return grid_model().item_value(cell); }

NumericModel SwModel::noise_model() const {
  const PiecewiseMechanism& grid = core.grid();
  const std::uint32_t d = core.buckets(), n = core.cells(), w = grid.band_cells();
  // PM's model of the same grid: N cells, D starts (the buckets, lo … hi evenly), the exact
  // scores and per-start variances; sw's reports give a distribution too.
  NumericModel out = grid_model().noise_model();
  out.mean_only = false;
  // Pr[cell y | bucket x] = (h in the window [x, x + w), m elsewhere, + R at cell 0)/2^b.
  const double scale = std::ldexp(1.0, -static_cast<int>(grid.outside_probability().bits));
  const double m = static_cast<double>(grid.outside_probability().num) * scale;
  const double a = static_cast<double>(grid.band_numerator()) * scale - m;  // h − m
  const double r = static_cast<double>(grid.cell_zero_extra()) * scale;
  out.band = {m, a, r, w};
  out.kernel.assign(std::size_t{d} * n, m);
  for (std::uint32_t x = 0; x < d; ++x) {
    double* row = &out.kernel[std::size_t{x} * n];
    for (std::uint32_t y = x; y < x + w; ++y) row[y] += a;
    row[0] += r;
  }
  // The unbiased estimate through the window alone: for a distribution f, Kᵀf = m·1 + r·e₀ +
  // a·Bᵀf (B the D × N window indicator), so f̂ = (BBᵀ)⁻¹B(π̂ − m·1 − r·e₀)/a, and as π̂ sums to 1
  // that is linear in π̂: f̂_x = Σ_y (G[x][y] − c_x)·π̂_y with G = (BBᵀ)⁻¹B/a, c_x = Σ_y G[x][y](m +
  // r·[y = 0]) — a left inverse of K (G·Kᵀ = I). BBᵀ[x][z] = max(0, w − |x − z|) depends on the
  // window alone, not on ε (KKᵀ's constant m² terms drowned it at small ε: 0.1 off at ε = 2^-16).
  Eigen::MatrixXd overlap(d, d);
  for (std::uint32_t x = 0; x < d; ++x)
    for (std::uint32_t z = 0; z < d; ++z)
      overlap(x, z) = std::max(0.0, static_cast<double>(w) - std::fabs(static_cast<double>(x) - z));
  const Eigen::LLT<Eigen::MatrixXd> factor(overlap);
  if (factor.info() != Eigen::Success) throw std::runtime_error("sw: the window's overlap matrix is singular");
  const Eigen::MatrixXd inverse = factor.solve(Eigen::MatrixXd::Identity(d, d));
  // G[x][y] = Σ_{z ∈ (y − w, y]} (BBᵀ)⁻¹[x][z]/a, by prefix sums; stored N × D (row per cell).
  out.inverse.assign(std::size_t{n} * d, 0.0);
  std::vector<double> prefix(d + 1), row(n);
  for (std::uint32_t x = 0; x < d; ++x) {
    prefix[0] = 0;
    for (std::uint32_t z = 0; z < d; ++z) prefix[z + 1] = prefix[z] + inverse(x, z);
    double offset = 0;  // c_x
    for (std::uint32_t y = 0; y < n; ++y) {
      const std::uint32_t first = y + 1 > w ? y + 1 - w : 0, last = std::min(y + 1, d);
      row[y] = (last > first ? prefix[last] - prefix[first] : 0.0) / a;
      offset += row[y] * (m + (y == 0 ? r : 0.0));
    }
    for (std::uint32_t y = 0; y < n; ++y) out.inverse[std::size_t{y} * d + x] = row[y] - offset;
  }
  return out;
}

}  // namespace tinyldp::collector
