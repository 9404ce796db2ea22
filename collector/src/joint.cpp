// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/joint.hpp"

#include "tinyldp/collector/estimates.hpp"
#include "joint_cells.hpp"

#include <Eigen/SparseCore>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace tinyldp::collector {

using detail::cell_positions;
using detail::pattern_ratios;

namespace {

// Kronecker product of per-attribute vectors (the last attribute varying fastest).
std::vector<double> outer(const std::vector<std::vector<double>>& factors) {
  std::vector<double> p{1.0};
  for (const auto& f : factors) {
    std::vector<double> next(p.size() * f.size());
    for (std::size_t i = 0; i < p.size(); ++i)
      for (std::size_t v = 0; v < f.size(); ++v) next[i * f.size() + v] = p[i] * f[v];
    p = std::move(next);
  }
  return p;
}

}  // namespace

std::uint64_t JointProblem::cells() const {
  std::uint64_t c = 1;
  for (std::uint32_t s : sizes) c = c > max_joint_cells ? c : c * s;
  return c;
}

JointProblem empty_joint_problem(std::vector<std::uint32_t> sizes, std::vector<double> q_star,
                                 std::vector<double> p_star) {
  JointProblem pr;
  pr.sizes = std::move(sizes);
  pr.q_star = std::move(q_star);
  pr.p_star = std::move(p_star);
  for (std::uint32_t s : pr.sizes) {
    pr.offsets.push_back(pr.width);
    pr.width += s;
  }
  return pr;
}

void add_pattern(JointProblem& pr, const std::uint8_t* bits, double count) {
  pr.pending[std::string(reinterpret_cast<const char*>(bits), pr.width)] += count;
  pr.reports += count;
}

void finish_patterns(JointProblem& pr) {
  for (const auto& [key, count] : pr.pending) {
    pr.bits.insert(pr.bits.end(), key.begin(), key.end());
    pr.counts.push_back(count);
  }
  pr.pending.clear();
}

std::optional<JointProblem> make_joint_problem(const RecordCounts& counts,
                                               const std::vector<std::uint32_t>& attributes,
                                               std::string& error) {
  const RecordSchema& s = counts.schema();
  std::vector<std::uint32_t> sizes;
  std::vector<double> qs, ps;
  for (std::size_t i = 0; i < attributes.size(); ++i) {
    const std::uint32_t j = attributes[i];
    if (j >= s.attributes().size()) {
      error = "attribute " + std::to_string(j) + " is not in the record (it has " +
              std::to_string(s.attributes().size()) + ")";
      return std::nullopt;
    }
    if (std::find(attributes.begin(), attributes.begin() + static_cast<std::ptrdiff_t>(i), j) !=
        attributes.begin() + static_cast<std::ptrdiff_t>(i)) {
      error = "attribute '" + s.attributes()[j].name + "' is chosen twice";
      return std::nullopt;
    }
    sizes.push_back(s.attributes()[j].size);
    qs.push_back(s.q_star(j));
    ps.push_back(s.p_star(j));
  }
  if (attributes.empty()) {
    error = "no attributes chosen";
    return std::nullopt;
  }
  JointProblem pr = empty_joint_problem(sizes, qs, ps);
  if (pr.cells() > max_joint_cells) {
    error = "the joint of these attributes has more than " + std::to_string(max_joint_cells) +
            " cells; choose fewer or smaller attributes";
    return std::nullopt;
  }
  std::vector<std::uint8_t> bits(pr.width);
  for (const auto& [report, n] : counts.patterns()) {
    for (std::size_t i = 0; i < attributes.size(); ++i) {
      const std::uint32_t from = s.mechanism().bit_offset(attributes[i]);
      for (std::uint32_t v = 0; v < sizes[i]; ++v) {
        const std::uint32_t b = from + v;
        bits[pr.offsets[i] + v] = (report[b / 8] >> (b % 8)) & 1u;
      }
    }
    add_pattern(pr, bits.data(), static_cast<double>(n));
  }
  finish_patterns(pr);
  return pr;
}

double log_likelihood(const JointProblem& pr, const std::vector<double>& p) {
  std::vector<std::uint64_t> cells(p.size());
  std::iota(cells.begin(), cells.end(), std::uint64_t{0});
  const auto pos = cell_positions(pr, cells);
  const auto f = pattern_ratios(pr);
  const std::size_t k = pr.sizes.size();
  double ll = 0;
  for (std::size_t g = 0; g < pr.patterns(); ++g) {
    double d = 0;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      double l = p[c];
      for (std::size_t j = 0; j < k; ++j) l *= f[g * pr.width + pos[c * k + j]];
      d += l;
    }
    ll += pr.counts[g] * std::log(d);
  }
  return ll;
}

std::vector<double> debiased_marginal(const JointProblem& pr, std::uint32_t j) {
  std::vector<double> t(pr.sizes[j], 0.0);
  for (std::size_t g = 0; g < pr.patterns(); ++g)
    for (std::uint32_t v = 0; v < pr.sizes[j]; ++v)
      t[v] += pr.counts[g] * pr.bits[g * pr.width + pr.offsets[j] + v];
  for (double& x : t) x = (x / pr.reports - pr.p_star[j]) / (pr.q_star[j] - pr.p_star[j]);
  return t;
}

JointEstimate estimate_lasso(const JointProblem& pr, double lambda) {
  const std::uint64_t C = pr.cells();
  const std::size_t k = pr.sizes.size();
  // y: the debiased per-bit frequencies; M: bit (j, v) × cell, 1 where ω_j = v.
  Eigen::VectorXd y(pr.width);
  for (std::uint32_t j = 0; j < k; ++j) {
    const auto t = debiased_marginal(pr, j);
    for (std::uint32_t v = 0; v < pr.sizes[j]; ++v) y[pr.offsets[j] + v] = t[v];
  }
  std::vector<std::uint64_t> cells(C);
  std::iota(cells.begin(), cells.end(), std::uint64_t{0});
  const auto pos = cell_positions(pr, cells);
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(C * k);
  for (std::uint64_t c = 0; c < C; ++c)
    for (std::size_t j = 0; j < k; ++j) entries.emplace_back(pos[c * k + j], static_cast<int>(c), 1.0);
  Eigen::SparseMatrix<double> M(pr.width, static_cast<Eigen::Index>(C));
  M.setFromTriplets(entries.begin(), entries.end());
  Eigen::VectorXd beta = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(C));
  Eigen::VectorXd r = y;  // residual y − Mβ
  const Eigen::VectorXd norms = (M.cwiseProduct(M)).transpose() * Eigen::VectorXd::Ones(pr.width);
  JointEstimate out;
  out.converged = false;
  for (std::uint32_t sweep = 0; sweep < 1000; ++sweep) {
    double largest = 0;
    for (Eigen::Index c = 0; c < static_cast<Eigen::Index>(C); ++c) {
      double dot = 0;
      for (Eigen::SparseMatrix<double>::InnerIterator e(M, c); e; ++e) dot += e.value() * r[e.row()];
      const double updated = std::max(0.0, beta[c] + (dot - lambda) / norms[c]);
      const double delta = updated - beta[c];
      if (delta == 0) continue;
      for (Eigen::SparseMatrix<double>::InnerIterator e(M, c); e; ++e) r[e.row()] -= delta * e.value();
      beta[c] = updated;
      largest = std::max(largest, std::abs(delta));
    }
    out.iterations = sweep + 1;
    if (largest < 1e-9) {
      out.converged = true;
      break;
    }
  }
  out.p.assign(beta.data(), beta.data() + C);
  const double sum = beta.sum();
  if (sum > 0)
    for (double& x : out.p) x /= sum;
  else
    out.p = uniform_joint(pr);
  out.alive = static_cast<std::uint64_t>(std::count_if(out.p.begin(), out.p.end(), [](double x) { return x > 0; }));
  out.memory_bytes = static_cast<std::size_t>(M.nonZeros()) * (sizeof(double) + sizeof(int)) + 2 * C * sizeof(double);
  return out;
}

EmOptions map_options(const JointProblem& pr, EmOptions em, std::optional<double> prior_strength,
                      std::optional<double> tolerance) {
  em.prior_strength = prior_strength ? *prior_strength : static_cast<double>(pr.cells());
  em.tolerance = tolerance ? *tolerance : map_tolerance;
  return em;
}

JointEstimate estimate_lremh(const JointProblem& pr, double lambda, const EmOptions& o) {
  const JointEstimate start = estimate_lasso(pr, lambda);
  JointEstimate em = estimate_em(pr, o, &start.p);
  em.memory_bytes = std::max(em.memory_bytes, start.memory_bytes);
  return em;
}

JointEstimate estimate_cooccurrence(const JointProblem& pr) {
  const std::size_t k = pr.sizes.size();
  const std::uint64_t C = pr.cells();
  std::vector<double> sum(C, 0.0);
  std::vector<std::vector<double>> scores(k);
  for (std::size_t g = 0; g < pr.patterns(); ++g) {
    for (std::size_t j = 0; j < k; ++j) {
      scores[j].resize(pr.sizes[j]);
      for (std::uint32_t v = 0; v < pr.sizes[j]; ++v)
        scores[j][v] = (pr.bits[g * pr.width + pr.offsets[j] + v] - pr.p_star[j]) / (pr.q_star[j] - pr.p_star[j]);
    }
    const auto t = outer(scores);
    for (std::uint64_t c = 0; c < C; ++c) sum[c] += pr.counts[g] * t[c];
  }
  for (double& x : sum) x /= pr.reports;
  JointEstimate out;
  out.p = project_onto_simplex(std::move(sum));
  out.alive = C;
  out.memory_bytes = 3 * C * sizeof(double);
  return out;
}

std::vector<double> uniform_joint(const JointProblem& pr) {
  const std::uint64_t C = pr.cells();
  return std::vector<double>(C, 1.0 / static_cast<double>(C));
}

std::vector<double> product_of_marginals(const JointProblem& pr) {
  std::vector<std::vector<double>> m;
  for (std::uint32_t j = 0; j < pr.sizes.size(); ++j) m.push_back(project_onto_simplex(debiased_marginal(pr, j)));
  return outer(m);
}

double average_variation_distance(const std::vector<double>& p, const std::vector<double>& q) {
  double d = 0;
  for (std::size_t i = 0; i < p.size() && i < q.size(); ++i) d += std::abs(p[i] - q[i]);
  return d / 2;
}

}  // namespace tinyldp::collector
