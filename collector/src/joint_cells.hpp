// SPDX-License-Identifier: Apache-2.0
// Private to the collector: a joint problem's cells as bit positions in a pattern, and the
// per-bit likelihood ratios (joint.cpp's LASSO and log-likelihood, joint_em.cpp's reference
// kernel).
#ifndef TINYLDP_COLLECTOR_SRC_JOINT_CELLS_HPP
#define TINYLDP_COLLECTOR_SRC_JOINT_CELLS_HPP

#include <cstdint>
#include <vector>

#include "tinyldp/collector/joint.hpp"

namespace tinyldp::collector::detail {

// Attribute j's likelihood ratio of report bit b: q*/p* if set, (1 − q*)/(1 − p*) if not.
inline double ratio(const JointProblem& pr, std::uint32_t j, std::uint8_t bit) {
  return bit ? pr.q_star[j] / pr.p_star[j] : (1 - pr.q_star[j]) / (1 - pr.p_star[j]);
}

// Each cell's k bit positions within a pattern (o_j + ω_j), for the cells in `cells`.
inline std::vector<std::uint32_t> cell_positions(const JointProblem& pr, const std::vector<std::uint64_t>& cells) {
  const std::size_t k = pr.sizes.size();
  std::vector<std::uint32_t> pos(cells.size() * k);
  for (std::size_t c = 0; c < cells.size(); ++c) {
    std::uint64_t rest = cells[c];
    for (std::size_t j = k; j-- > 0;) {
      pos[c * k + j] = pr.offsets[j] + static_cast<std::uint32_t>(rest % pr.sizes[j]);
      rest /= pr.sizes[j];
    }
  }
  return pos;
}

// The per-pattern, per-bit ratios r_j(y_b) (pattern g's factors at g · width).
inline std::vector<double> pattern_ratios(const JointProblem& pr) {
  std::vector<double> f(pr.bits.size());
  for (std::size_t g = 0; g < pr.patterns(); ++g)
    for (std::uint32_t j = 0; j < pr.sizes.size(); ++j)
      for (std::uint32_t v = 0; v < pr.sizes[j]; ++v) {
        const std::size_t b = g * pr.width + pr.offsets[j] + v;
        f[b] = ratio(pr, j, pr.bits[b]);
      }
  return f;
}

}  // namespace tinyldp::collector::detail

#endif
