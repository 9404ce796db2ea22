// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/discrete_laplace.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tinyldp::collector {

std::string DlaplaceModel::check_parameters(const MechanismConfig& c) {
  const std::int64_t width = std::int64_t{c.hi} - c.lo;
  if (std::string r = check_value_range(c, width + 1, "the integers lo … hi"); !r.empty()) return r;
  if (width > max_collector_dlaplace_width)
    return "dlaplace: hi − lo = " + std::to_string(width) + " is above the collector's limit " +
           std::to_string(max_collector_dlaplace_width) + " (its estimator inverts the (W+1)² noise matrix)";
  if (c.sensitivity > width)
    return "sensitivity must be 1 … hi − lo = " + std::to_string(width) + " (got " +
           std::to_string(c.sensitivity) + ")";
  return {};
}

Status DlaplaceModel::configure(const MechanismConfig& c, DlaplaceModel& out,
                                MechanismConfig& normalized) {
  if (c.hi <= c.lo) return Status::bad_parameter;
  const std::uint64_t width = static_cast<std::uint64_t>(std::int64_t{c.hi} - c.lo);
  if (width > max_collector_dlaplace_width) return Status::bad_parameter;
  const std::uint32_t sensitivity =
      c.sensitivity == 0 ? static_cast<std::uint32_t>(width) : c.sensitivity;
  // noise_bits 0: the fewest bits that keep the realized ε within 1e-6 of the request.
  auto weights = std::make_shared<std::vector<std::uint64_t>>(DiscreteLaplace::table_entries(c.lo, c.hi));
  const Status s =
      c.noise_bits == 0
          ? DiscreteLaplace::configure_fewest_bits(c.epsilon, c.lo, c.hi, sensitivity,
                                                   weights->data(), weights->size(), out.core)
          : DiscreteLaplace::configure(c.epsilon, c.lo, c.hi, sensitivity, weights->data(),
                                       weights->size(), out.core, c.noise_bits);
  if (s != Status::ok) return s;
  const unsigned bits = out.core.random_bits_per_report();
  if (c.domain != 0 && c.domain != width + 1) return Status::bad_parameter;
  normalized.domain = static_cast<std::uint32_t>(width + 1);
  normalized.sensitivity = sensitivity;
  normalized.noise_bits = static_cast<std::uint8_t>(bits);
  normalized.levels = 0;
  out.weights = std::move(weights);
  return Status::ok;
}

std::string DlaplaceModel::fractions() const {
  const unsigned b = core.random_bits_per_report();
  const auto w = static_cast<std::uint32_t>(std::int64_t{core.high()} - core.low());
  return "w(0) = " + fraction_text(core.weight(0), b) +
         (w > 1 ? ", w(1) = " + fraction_text(core.weight(1), b) : std::string()) + ", ends " +
         fraction_text(core.tail_low(), b) + " and " + fraction_text(core.tail_high(), b) +
         " (Pr[noise = z] = w(|z|), |z| < " + std::to_string(w) + ")";
}

std::vector<std::uint64_t> dlaplace_kernel(const DiscreteLaplace& dl) {
  const auto width = static_cast<std::uint32_t>(std::int64_t{dl.high()} - dl.low());
  const std::size_t k = std::size_t{width} + 1;
  // Pr[Z = z]·2^B for z = −W … W.
  std::vector<std::uint64_t> noise(2 * std::size_t{width} + 1);
  for (std::uint32_t i = 0; i < noise.size(); ++i) {
    const std::int64_t z = std::int64_t{i} - width;
    const auto a = static_cast<std::uint32_t>(z < 0 ? -z : z);
    noise[i] = z == -std::int64_t{width} ? dl.tail_low()
               : z == std::int64_t{width} ? dl.tail_high()
                                          : dl.weight(a);
  }
  std::vector<std::uint64_t> m(k * k, 0);
  for (std::uint32_t x = 0; x <= width; ++x)
    for (std::uint32_t i = 0; i < noise.size(); ++i) {
      const std::int64_t y = std::int64_t{x} + i - width;  // x + z
      const std::int64_t clamped = std::clamp<std::int64_t>(y, 0, width);
      m[x * k + static_cast<std::size_t>(clamped)] += noise[i];
    }
  return m;
}

NumericModel DlaplaceModel::noise_model() const {
  const std::uint32_t k = items();
  NumericModel model = numeric_atoms(k, *this);
  const std::vector<std::uint64_t> exact = dlaplace_kernel(core);
  const int b = static_cast<int>(core.random_bits_per_report());
  for (std::size_t i = 0; i < exact.size(); ++i)
    model.kernel[i] = std::ldexp(static_cast<double>(exact[i]), -b);
  model.inverse = invert(model.kernel, k);
  if (model.inverse.empty()) throw std::runtime_error("dlaplace noise matrix is singular");
  // g = M⁻¹·value, with values taken relative to lo (M⁻¹ rows sum to 1, so lo adds back).
  for (std::uint32_t y = 0; y < k; ++y) {
    double g = 0;
    for (std::uint32_t x = 0; x < k; ++x) g += model.inverse[std::size_t{y} * k + x] * x;
    model.score[y] = model.atom_value[0] + g;
  }
  return model;
}

}  // namespace tinyldp::collector
