// SPDX-License-Identifier: Apache-2.0
// The joint EM step as it was before issue 16's speed work (commit 36f78a9), kept only so that
// bench_joint_em measures the before/after ratio in one run: per (pattern, cell) the product
// of the k per-bit ratios, a pattern × cell likelihood matrix kept when it fits 256 MiB, one
// pass with a per-thread accumulator per slice of patterns. Uniform start, no pruning, no
// acceleration. Not used by the library.
#ifndef TINYLDP_BENCH_JOINT_EM_BEFORE_HPP
#define TINYLDP_BENCH_JOINT_EM_BEFORE_HPP

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "tinyldp/collector/joint.hpp"

namespace tinyldp::bench {

// `steps` EM steps from the uniform start; returns the estimate over all cells.
inline std::vector<double> em_steps_before(const collector::JointProblem& pr, std::uint32_t steps) {
  const std::size_t k = pr.sizes.size(), G = pr.patterns(), C = pr.cells();
  // Ratio of each pattern bit, and each cell's k bit positions.
  std::vector<double> ratio(pr.bits.size());
  for (std::size_t g = 0; g < G; ++g)
    for (std::size_t j = 0; j < k; ++j)
      for (std::uint32_t v = 0; v < pr.sizes[j]; ++v) {
        const std::size_t b = g * pr.width + pr.offsets[j] + v;
        ratio[b] = pr.bits[b] ? pr.q_star[j] / pr.p_star[j] : (1 - pr.q_star[j]) / (1 - pr.p_star[j]);
      }
  std::vector<std::uint32_t> pos(C * k);
  for (std::size_t c = 0; c < C; ++c) {
    std::size_t rest = c;
    for (std::size_t j = k; j-- > 0;) {
      pos[c * k + j] = pr.offsets[j] + static_cast<std::uint32_t>(rest % pr.sizes[j]);
      rest /= pr.sizes[j];
    }
  }
  auto likelihood = [&](std::size_t g, std::size_t c) {
    double l = 1;
    for (std::size_t j = 0; j < k; ++j) l *= ratio[g * pr.width + pos[c * k + j]];
    return l;
  };
  const bool keep_matrix = G * C * sizeof(double) <= (std::size_t{256} << 20);
  std::vector<double> lik;
  if (keep_matrix) {
    lik.resize(G * C);
    for (std::size_t g = 0; g < G; ++g)
      for (std::size_t c = 0; c < C; ++c) lik[g * C + c] = likelihood(g, c);
  }
  std::vector<double> p(C, 1.0 / static_cast<double>(C));
  const unsigned threads = G * C >= (std::size_t{1} << 18) ? 2 : 1;
  std::vector<std::vector<double>> acc(threads, std::vector<double>(C));
  for (std::uint32_t it = 0; it < steps; ++it) {
    auto slice = [&](std::size_t first, std::size_t last, unsigned t) {
      std::fill(acc[t].begin(), acc[t].end(), 0.0);
      std::vector<double> row(keep_matrix ? 0 : C);
      for (std::size_t g = first; g < last; ++g) {
        const double* l = keep_matrix ? &lik[g * C] : row.data();
        if (!keep_matrix)
          for (std::size_t c = 0; c < C; ++c) row[c] = likelihood(g, c);
        double d = 0;
        for (std::size_t c = 0; c < C; ++c) d += p[c] * l[c];
        const double w = pr.counts[g] / d;
        for (std::size_t c = 0; c < C; ++c) acc[t][c] += w * l[c];
      }
    };
    if (threads == 1) {
      slice(0, G, 0);
    } else {
      std::thread other(slice, G / 2, G, 1u);
      slice(0, G / 2, 0);
      other.join();
    }
    for (std::size_t c = 0; c < C; ++c) {
      double s = 0;
      for (const auto& a : acc) s += a[c];
      p[c] *= s / pr.reports;
    }
  }
  return p;
}

}  // namespace tinyldp::bench

#endif
