// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/hierarchy_estimate.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "tinyldp/collector/wavelet_estimate.hpp"

namespace tinyldp::collector {

namespace {
constexpr std::uint32_t max_children = 16;  // B ≤ 16 (hierarchical_histogram.hpp)
}  // namespace

std::uint32_t ConsistentTree::children_end(std::uint32_t level, std::uint32_t node) const {
  const auto below = static_cast<std::uint32_t>(x_[level + 1].size());
  return std::min<std::uint32_t>((node + 1) << bits_, below);
}

ConsistentTree::ConsistentTree(const TreeLevels& tree, std::span<const std::uint64_t> support)
    : bits_(tree.branching_bits), levels_(tree.levels()) {
  if (levels_ == 0 || bits_ == 0 || (std::uint32_t{1} << bits_) > max_children || tree.nodes.back() != tree.leaves ||
      tree.offset.size() != levels_ || tree.channel.size() != levels_)
    throw std::invalid_argument("hierarchy: a malformed tree");
  const std::uint32_t h = levels_;
  auto per_level = [&](std::vector<std::vector<double>>& v) {
    v.assign(h + 1, {});
    v[0].assign(1, 0.0);
    for (std::uint32_t l = 1; l <= h; ++l) v[l].assign(tree.nodes[l - 1], 0.0);
  };
  for (auto* v : {&x_, &variance_, &share_, &children_variance_, &whole_g_, &whole_inner_}) per_level(*v);
  std::vector<std::vector<double>> raw(h);  // each level's unbiased node frequencies
  std::vector<double> sigma2(h + 1, 0.0);
  double reports = 0;  // every level's
  for (std::uint32_t l = 1; l <= h; ++l) {
    const std::uint32_t k = tree.nodes[l - 1], at = tree.offset[l - 1];
    if (std::size_t{at} + k >= support.size()) throw std::invalid_argument("hierarchy: the counts do not fit the tree");
    reports += static_cast<double>(support[at + k]);
  }
  for (std::uint32_t l = 1; l <= h; ++l) {
    const std::uint32_t k = tree.nodes[l - 1], at = tree.offset[l - 1];
    const std::uint64_t n = support[at + k];
    if (n == 0)
      throw std::invalid_argument("hh: level " + std::to_string(l) + " of " + std::to_string(h) +
                                  " has no reports (each device reports one level; the tree needs every level "
                                  "reported at least once)");
    const Channel& ch = tree.channel[l - 1];
    const double gap = ch.p - ch.q, nd = static_cast<double>(n), empty = ch.q * (1 - ch.q);
    sigma2[l] = empty / (nd * gap * gap);
    // A node held by a share f of the fleet: its reports' variance f·p(1 − p) + (1 − f)·q(1 − q),
    // and the level's devices are a sample of the fleet: their share differs from f by
    // f(1 − f)(1/n_ℓ − 1/n), in counts f(1 − f)(p − q)²(1 − n_ℓ/n). Over the share, in units of
    // an empty node's, a concave quadratic: its largest value is the worst data's.
    const double sampled = gap * gap * (1 - nd / reports);
    const auto ratio = [&](double f) {
      return (f * ch.p * (1 - ch.p) + (1 - f) * empty + f * (1 - f) * sampled) / empty;
    };
    const double top = sampled > 0 ? std::clamp((ch.p * (1 - ch.p) - empty + sampled) / (2 * sampled), 0.0, 1.0) : 1.0;
    worst_ratio_ = std::max({worst_ratio_, ratio(1.0), ratio(top)});
    raw[l - 1].resize(k);
    for (std::uint32_t i = 0; i < k; ++i) {
      const double f = (static_cast<double>(support[at + i]) / nd - ch.q) / gap;
      raw[l - 1][i] = f;
      inflation_ = std::max(inflation_, ratio(std::clamp(f, 0.0, 1.0)));
    }
  }
  // Up: z and V, leaves first.
  std::vector<std::vector<double>> z(h + 1);
  z[h] = raw[h - 1];
  std::fill(variance_[h].begin(), variance_[h].end(), sigma2[h]);
  for (std::uint32_t l = h; l-- > 0;) {
    z[l].assign(x_[l].size(), 0.0);
    for (std::uint32_t i = 0; i < x_[l].size(); ++i) {
      double sum = 0, s = 0;
      for (std::uint32_t c = children_begin(i); c < children_end(l, i); ++c) {
        sum += z[l + 1][c];
        s += variance_[l + 1][c];
      }
      children_variance_[l][i] = s;
      if (l == 0) break;  // the root is 1: no estimate of its own to combine
      const double own = sigma2[l], own_f = raw[l - 1][i];
      z[l][i] = (own_f * s + sum * own) / (s + own);
      variance_[l][i] = own * s / (own + s);
    }
  }
  // Down: the root is 1; each sibling group takes its parent's residual in proportion to V.
  x_[0][0] = 1;
  for (std::uint32_t l = 0; l < h; ++l)
    for (std::uint32_t i = 0; i < x_[l].size(); ++i) {
      double sum = 0;
      for (std::uint32_t c = children_begin(i); c < children_end(l, i); ++c) sum += z[l + 1][c];
      const double residual = x_[l][i] - sum, s = children_variance_[l][i];
      for (std::uint32_t c = children_begin(i); c < children_end(l, i); ++c) {
        share_[l + 1][c] = variance_[l + 1][c] / s;
        x_[l + 1][c] = z[l + 1][c] + share_[l + 1][c] * residual;
      }
    }
  // A whole subtree in a range: its G and the variance of its inner sibling groups.
  std::fill(whole_g_[h].begin(), whole_g_[h].end(), 1.0);
  for (std::uint32_t l = h; l-- > 0;)
    for (std::uint32_t i = 0; i < x_[l].size(); ++i) {
      std::array<double, max_children> g{};
      double inner = 0, up = 0;
      const std::uint32_t b = children_begin(i), e = children_end(l, i);
      for (std::uint32_t c = b; c < e; ++c) {
        g[c - b] = whole_g_[l + 1][c];
        inner += whole_inner_[l + 1][c];
        up += share_[l + 1][c] * g[c - b];
      }
      whole_g_[l][i] = up;
      whole_inner_[l][i] = inner + group_variance(l, i, std::span(g.data(), e - b));
    }
  set_prefix();
}

double ConsistentTree::group_variance(std::uint32_t level, std::uint32_t parent, std::span<const double> g) const {
  const std::uint32_t b = children_begin(parent);
  double squares = 0, linear = 0;
  for (std::size_t j = 0; j < g.size(); ++j) {
    const double v = variance_[level + 1][b + j];
    squares += g[j] * g[j] * v;
    linear += g[j] * v;
  }
  return std::max(squares - linear * linear / children_variance_[level][parent], 0.0);
}

double LeafEstimate::range(std::uint32_t first, std::uint32_t last) const {
  if (first > last || last >= leaves().size()) throw std::invalid_argument("leaf estimate: a range outside the leaves");
  return prefix_[last + 1] - prefix_[first];
}

void LeafEstimate::set_prefix() {
  const std::vector<double>& leaf = leaves();
  prefix_.assign(leaf.size() + 1, 0.0);
  for (std::size_t i = 0; i < leaf.size(); ++i) prefix_[i + 1] = prefix_[i] + leaf[i];
}

bool has_leaf_estimate(const NumericModel& model) { return model.tree.levels() != 0 || model.wavelet.levels() != 0; }

std::unique_ptr<LeafEstimate> leaf_estimate(const NumericModel& model, std::span<const std::uint64_t> support) {
  if (model.tree.levels() != 0) return std::make_unique<ConsistentTree>(model.tree, support);
  if (model.wavelet.levels() != 0) return std::make_unique<HaarEstimate>(model.wavelet, support);
  return nullptr;
}

double ConsistentTree::visit(std::uint32_t level, std::uint32_t node, std::uint32_t first, std::uint32_t last,
                             double& variance) const {
  std::array<double, max_children> g{};
  const std::uint32_t b = children_begin(node), e = children_end(level, node);
  const std::uint64_t span = span_of(level + 1), leaves_count = x_[levels_].size();
  double up = 0;
  for (std::uint32_t c = b; c < e; ++c) {
    const std::uint64_t lo = std::uint64_t{c} * span, hi = std::min(lo + span, leaves_count) - 1;
    double gc = 0;
    if (hi < first || lo > last) {
      gc = 0;
    } else if (first <= lo && hi <= last) {
      gc = whole_g_[level + 1][c];
      variance += whole_inner_[level + 1][c];
    } else {  // cut by the range: not a leaf (a leaf is in or out)
      gc = visit(level + 1, c, first, last, variance);
    }
    g[c - b] = gc;
    up += share_[level + 1][c] * gc;
  }
  variance += group_variance(level, node, std::span(g.data(), e - b));
  return up;
}

double ConsistentTree::range_variance(std::uint32_t first, std::uint32_t last) const {
  if (first > last || last >= leaves().size()) throw std::invalid_argument("hierarchy: a range outside the leaves");
  double variance = 0;
  visit(0, 0, first, last, variance);
  return variance * inflation_;
}

double ConsistentTree::linear_variance(std::span<const double> weight) const {
  if (weight.size() != leaves().size()) throw std::invalid_argument("hierarchy: one weight per leaf");
  std::vector<double> g(weight.begin(), weight.end()), up;
  double variance = 0;
  for (std::uint32_t l = levels_; l-- > 0;) {
    up.assign(x_[l].size(), 0.0);
    for (std::uint32_t i = 0; i < x_[l].size(); ++i) {
      const std::uint32_t b = children_begin(i), e = children_end(l, i);
      for (std::uint32_t c = b; c < e; ++c) up[i] += share_[l + 1][c] * g[c];
      variance += group_variance(l, i, std::span(g.data() + b, e - b));
    }
    g.swap(up);
  }
  return variance * inflation_;
}

}  // namespace tinyldp::collector
