// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/hierarchy_estimate.hpp — a hierarchical histogram's tree made consistent
// (Hay et al.'s constrained inference, weighted by each level's variance): the leaves' frequencies,
// any range's share, and their standard errors, from `hh` reports (models/hierarchical_histogram.hpp).
//
// Each level ℓ gives every node an unbiased frequency f̂ = (c/n_ℓ − q)/(p − q) from its own n_ℓ
// reports, with variance σ²_ℓ = q(1 − q)/(n_ℓ(p − q)²) when no one holds the node (the same for
// every node of the level, whatever the data: the weights below then keep the estimate unbiased).
// The consistent tree is the weighted least-squares fit of the node frequencies under "a node is
// the sum of its children" and "the root is 1", in two passes (O(nodes)):
//  - up: a leaf's z = f̂, V = σ²_h; a node's z combines its f̂ (σ²_ℓ) with its children's Σz
//    (S = ΣV) by inverse variance: z = (f̂·S + Σz·σ²)/(S + σ²), V = σ²S/(σ² + S);
//  - down: the root is 1; a child's x = z + (V/S)(x_parent − Σ_siblings z).
// Its error is, node by node, e = r + (V/S)·e_parent with r independent between sibling groups and
// Cov(r_c, r_c') = V_c[c = c'] − V_cV_c'/S within one, so a linear combination Σ w·leaves has
// variance Σ over sibling groups of ΣG_c²V_c − (ΣG_cV_c)²/S, with G = w at a leaf and
// G = Σ_children (V_c/S)·G_c above — O(nodes) for any weights, O(B·h) for a range (a subtree wholly
// inside contributes its precomputed part). That is the variance were every node's variance its
// level's σ²_ℓ; a node held by a share f has f·p(1 − p) + (1 − f)·q(1 − q) in place of q(1 − q)
// (reports of fixed values are independent), and as each level's devices are a sample of the
// fleet, the level's share differs from the fleet's by f(1 − f)(1 − n_ℓ/n)(p − q)² more (in
// counts; without it F's variance at its middle exceeds the bound in
// tests/collector/test_planned_errors.cpp at ε = 4). So the errors reported are scaled by the largest such ratio over the
// tree's nodes (at the plug-in f̂ clamped to [0, 1], at least 1): an upper bound on the variance
// against the fleet's own values, which the coverage tests check. Host only.
#ifndef TINYLDP_COLLECTOR_HIERARCHY_ESTIMATE_HPP
#define TINYLDP_COLLECTOR_HIERARCHY_ESTIMATE_HPP

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tinyldp/collector/models/numeric_noise.hpp"

namespace tinyldp::collector {

// What the estimators of numeric_estimate.hpp read from a mechanism whose leaves (the values
// lo … hi) are a linear estimate of many levels' counts (hh's consistent tree, haar-hrr's inverse
// transform): the leaves, any range's share and the variance of a range or of a weighted sum.
class LeafEstimate {
 public:
  virtual ~LeafEstimate() = default;
  virtual const std::vector<double>& leaves() const = 0;
  // Σ of the leaves first … last (inclusive, first ≤ last < leaves).
  double range(std::uint32_t first, std::uint32_t last) const;
  virtual double range_variance(std::uint32_t first, std::uint32_t last) const = 0;
  // The variance of Σ weight[x]·leaf[x] (one weight per leaf).
  virtual double linear_variance(std::span<const double> weight) const = 0;
  // The same at the worst data for these report counts (plan's figures): hh's model variance with
  // every node's variance p(1 − p) in place of q(1 − q); haar-hrr's bound, which holds for any.
  virtual double worst_case_linear_variance(std::span<const double> weight) const = 0;

 protected:
  void set_prefix();  // after the leaves are known
  std::vector<double> prefix_;  // prefix sums of the leaves
};

// The leaf estimate of `model`'s mechanism from an aggregate's counts (hh or haar-hrr), or
// nullptr when its leaves are estimated otherwise.
std::unique_ptr<LeafEstimate> leaf_estimate(const NumericModel& model, std::span<const std::uint64_t> support);
bool has_leaf_estimate(const NumericModel& model);

class ConsistentTree : public LeafEstimate {
 public:
  // From an aggregate's support counts over `tree`'s layout. Refuses (std::invalid_argument,
  // saying which) a level without reports: its nodes would have no estimate at all.
  ConsistentTree(const TreeLevels& tree, std::span<const std::uint64_t> support);

  // The consistent leaf frequencies (they sum to 1; some may be negative).
  const std::vector<double>& leaves() const override { return x_.back(); }
  // The consistent frequency of every node, level by level (level 0: the root, 1).
  const std::vector<std::vector<double>>& nodes() const { return x_; }
  // The variance of a range's sum (see above); O(B·h).
  double range_variance(std::uint32_t first, std::uint32_t last) const override;
  // The variance of Σ weight[x]·leaf[x]; O(nodes).
  double linear_variance(std::span<const double> weight) const override;
  double worst_case_linear_variance(std::span<const double> weight) const override {
    return linear_variance(weight) / inflation_ * worst_ratio_;
  }
  // The factor the model variances are scaled by (≥ 1).
  double inflation() const { return inflation_; }

 private:
  double group_variance(std::uint32_t level, std::uint32_t parent, std::span<const double> g) const;
  double visit(std::uint32_t level, std::uint32_t node, std::uint32_t first, std::uint32_t last, double& variance) const;
  std::uint32_t children_begin(std::uint32_t node) const { return node << bits_; }
  std::uint32_t children_end(std::uint32_t level, std::uint32_t node) const;
  std::uint64_t span_of(std::uint32_t level) const { return std::uint64_t{1} << (bits_ * (levels_ - level)); }

  unsigned bits_ = 0;
  std::uint32_t levels_ = 0;
  // Per level 0 … h, per node: the consistent estimate, the upward estimate's variance V, V/S of
  // the parent, the children's ΣV, and a whole subtree's G and inner variance.
  std::vector<std::vector<double>> x_, variance_, share_, children_variance_, whole_g_, whole_inner_;
  double inflation_ = 1;
  double worst_ratio_ = 1;  // the largest ratio over the levels at any share (≥ 1)
};

}  // namespace tinyldp::collector

#endif
