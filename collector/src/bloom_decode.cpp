// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/bloom_decode.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "tinyldp/collector/estimates.hpp"

namespace tinyldp::collector {

std::uint32_t bloom_value(std::string_view text) {
  std::uint32_t h = 2166136261u;
  for (const char c : text) {
    h ^= static_cast<std::uint8_t>(c);
    h *= 16777619u;
  }
  return h;
}

std::optional<BloomDecode> decode_bloom(const Mechanism& mechanism, std::span<const std::uint64_t> support,
                                        std::span<const std::string> candidates, double significance,
                                        std::string& error) {
  const MechanismConfig& c = mechanism.config();
  if (!mechanism.bloom()) {
    error = "candidates decode Bloom-filter reports; these are " + std::string(name_of(c.id)) + " over a one-hot encoding";
    return std::nullopt;
  }
  const std::uint32_t k = c.domain, m = c.bloom_cohorts, h = c.bloom_hashes;
  if (support.size() != std::size_t{m} * (k + 1)) {
    error = "support counts of the wrong size for the Bloom filter";
    return std::nullopt;
  }
  if (candidates.empty()) {
    error = "no candidates";
    return std::nullopt;
  }
  if (!(significance > 0 && significance < 1)) {
    error = "the significance must be in (0, 1)";
    return std::nullopt;
  }
  std::unordered_map<std::uint32_t, std::size_t> seen;
  std::vector<std::uint32_t> values;
  for (std::size_t j = 0; j < candidates.size(); ++j) {
    const std::uint32_t v = bloom_value(candidates[j]);
    if (const auto [at, fresh] = seen.emplace(v, j); !fresh) {
      error = "candidates \"" + candidates[at->second] + "\" and \"" + candidates[j] +
              "\" have the same value (a repeated line, or a hash collision): the reports cannot tell them apart";
      return std::nullopt;
    }
    values.push_back(v);
  }
  const Channel ch = mechanism.channel();  // p: P(1 | bit set), q: P(1 | unset)
  const double gap = ch.p - ch.q;
  const auto J = static_cast<Eigen::Index>(candidates.size());
  BloomDecode out;
  out.significance = significance;
  // Normal equations G f = b (weights w = 1 / the cohort's mean cell variance) and, for the
  // sandwich, H = Aᵀ W V W A with each cell's own variance V.
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(J, J), H = Eigen::MatrixXd::Zero(J, J);
  Eigen::VectorXd b = Eigen::VectorXd::Zero(J);
  std::vector<std::vector<Eigen::Index>> in_bit(k);
  for (std::uint32_t cohort = 0; cohort < m; ++cohort) {
    const std::uint64_t* cells = support.data() + std::size_t{cohort} * (k + 1);
    const std::uint64_t n = cells[k];
    if (n == 0) continue;
    out.reports += n;
    ++out.cohorts_reporting;
    const double nd = static_cast<double>(n);
    double mean_rate = 0;
    for (std::uint32_t i = 0; i < k; ++i) mean_rate += static_cast<double>(cells[i]) / nd;
    mean_rate /= k;
    const double floor = 0.5 / nd;  // keeps a variance of an all-0 or all-1 column positive
    const auto variance = [&](double r) {
      r = std::clamp(r, floor, 1 - floor);
      return r * (1 - r) / (nd * gap * gap);
    };
    const double w = 1 / variance(mean_rate);
    for (auto& list : in_bit) list.clear();
    for (Eigen::Index j = 0; j < J; ++j)
      for (std::uint32_t t = 0; t < h; ++t) {
        const std::uint32_t i = TwoStageRr::bloom_position(values[std::size_t(j)], cohort, t, k);
        auto& list = in_bit[i];
        if (list.empty() || list.back() != j) list.push_back(j);  // a repeated position sets one bit
      }
    for (std::uint32_t i = 0; i < k; ++i) {
      const auto& list = in_bit[i];
      if (list.empty()) continue;
      const double rate = static_cast<double>(cells[i]) / nd;
      const double t = (rate - ch.q) / gap;
      const double v = variance(rate);
      for (const Eigen::Index a : list) {
        b[a] += w * t;
        for (const Eigen::Index a2 : list) {
          G(a, a2) += w;
          H(a, a2) += w * w * v;
        }
      }
    }
  }
  if (out.reports == 0) {
    error = "no reports to decode";
    return std::nullopt;
  }
  // Non-negative least squares by cyclic coordinate descent on the normal equations (each
  // step the exact minimum along one coordinate, clipped at 0: converges for G ⪰ 0).
  Eigen::VectorXd f = Eigen::VectorXd::Zero(J);
  Eigen::VectorXd gradient = -b;  // G f − b
  for (out.sweeps = 1; out.sweeps <= 20000; ++out.sweeps) {
    double largest = 0;
    for (Eigen::Index j = 0; j < J; ++j) {
      if (G(j, j) <= 0) continue;
      const double next = std::max(0.0, f[j] - gradient[j] / G(j, j));
      const double step = next - f[j];
      if (step == 0) continue;
      f[j] = next;
      gradient += step * G.col(j);
      largest = std::max(largest, std::abs(step));
    }
    if (largest < 1e-12) break;
  }
  // Standard errors: the least-squares fit on the kept candidates (f > 0), sandwich form; a
  // dropped candidate gets the error its coefficient would have alone.
  std::vector<Eigen::Index> kept;
  for (Eigen::Index j = 0; j < J; ++j)
    if (f[j] > 0) kept.push_back(j);
  Eigen::VectorXd se(J);
  for (Eigen::Index j = 0; j < J; ++j) se[j] = G(j, j) > 0 ? std::sqrt(H(j, j)) / G(j, j) : INFINITY;
  if (!kept.empty()) {
    const auto K = static_cast<Eigen::Index>(kept.size());
    Eigen::MatrixXd gk(K, K), hk(K, K);
    for (Eigen::Index x = 0; x < K; ++x)
      for (Eigen::Index y = 0; y < K; ++y) {
        gk(x, y) = G(kept[std::size_t(x)], kept[std::size_t(y)]);
        hk(x, y) = H(kept[std::size_t(x)], kept[std::size_t(y)]);
      }
    const Eigen::MatrixXd inverse = gk.completeOrthogonalDecomposition().pseudoInverse();
    const Eigen::MatrixXd cov = inverse * hk * inverse;
    for (Eigen::Index x = 0; x < K; ++x) se[kept[std::size_t(x)]] = std::sqrt(std::max(0.0, cov(x, x)));
  }
  out.threshold_z = normal_quantile_two_sided(1 - 2 * significance / static_cast<double>(J));
  double explained = 0;
  for (Eigen::Index j = 0; j < J; ++j) {
    BloomCandidate e;
    e.label = candidates[std::size_t(j)];
    e.frequency = f[j];
    e.standard_error = se[j];
    e.detected = f[j] > out.threshold_z * se[j];
    explained += f[j];
    out.candidates.push_back(std::move(e));
  }
  out.unexplained = 1 - explained;
  return out;
}

}  // namespace tinyldp::collector
