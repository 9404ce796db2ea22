// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/histogram_encoding.hpp"

#include <cmath>

namespace tinyldp::collector {

// --- she ------------------------------------------------------------------------------------

Status SheModel::configure(const MechanismConfig& c, SheModel& out, MechanismConfig&) {
  // The default truncation and the fewest noise bits: SHE is configured from (ε, d) alone.
  const std::uint32_t t = SummationHistogram::default_truncation(c.epsilon);
  auto weights = std::make_shared<std::vector<std::uint64_t>>(SummationHistogram::table_entries(t));
  const Status s = SummationHistogram::configure(c.epsilon, c.domain, weights->data(), weights->size(),
                                                 out.core, t);
  if (s != Status::ok) return s;
  out.weights = std::move(weights);
  return Status::ok;
}

Channel SheModel::channel() const {
  // Moments of one component's support y + T given x, exactly from the weights (2^-B each).
  const auto t = static_cast<std::int32_t>(core.truncation());
  const unsigned b = core.noise_bits();
  double mean[2] = {0, 0}, variance[2] = {0, 0};
  const auto pr = [&](std::uint32_t x, std::int32_t y) {
    return std::ldexp(static_cast<double>(core.probability(x, y)), -static_cast<int>(b));
  };
  for (std::uint32_t x = 0; x < 2; ++x) {
    for (std::int32_t y = -t; y <= t + 1; ++y) mean[x] += pr(x, y) * static_cast<double>(y + t);
    for (std::int32_t y = -t; y <= t + 1; ++y)
      variance[x] += pr(x, y) * (static_cast<double>(y + t) - mean[x]) * (static_cast<double>(y + t) - mean[x]);
  }
  return {mean[1], mean[0], variance[1], variance[0]};
}

std::string SheModel::fractions() const {
  const unsigned b = core.noise_bits();
  return "T = " + std::to_string(core.truncation()) + ", w(0) = " + fraction_text(core.noise().weight(0), b) +
         ", w(1) = " + fraction_text(core.noise().weight(1), b) +
         " (each component: discrete Laplace on [-T, T+1] at epsilon/2, Pr[noise = z] = w(|z|))";
}

std::vector<PayloadField> SheModel::fields(std::span<const std::uint8_t> payload) const {
  std::vector<std::uint32_t> shifted;
  for (std::uint32_t i = 0; i < core.domain(); ++i) shifted.push_back(core.shifted_component(payload.data(), i));
  return {{"T", std::int64_t{core.truncation()}}, {"components_plus_T", std::move(shifted)}};
}

// --- the ------------------------------------------------------------------------------------

Status TheModel::configure(const MechanismConfig& c, TheModel& out, MechanismConfig&) {
  return ThresholdHistogram::configure(c.epsilon, c.domain, out.core, c.precision);
}

std::string TheModel::fractions() const {
  return "theta = " + std::to_string(core.theta_numerator()) + "/64, p = " + fraction_text(core.p()) +
         ", q = " + fraction_text(core.q());
}

}  // namespace tinyldp::collector
