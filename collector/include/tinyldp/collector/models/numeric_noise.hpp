// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/numeric_noise.hpp — what a numeric model (sd, dlaplace, pm, hm, sw, 1bitmean,
// dbitflip) tells the estimators of numeric_estimate.hpp about its noise: the channel from an
// input atom to a reported item, exactly, and a per-report unbiased score. Each numeric model
// builds one in its noise_model(); numeric_estimate.hpp explains the estimators. Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_NUMERIC_NOISE_HPP
#define TINYLDP_COLLECTOR_MODELS_NUMERIC_NOISE_HPP

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "tinyldp/collector/frequency_estimate.hpp"

namespace tinyldp::collector {

// The exact law of the devices' stochastic rounding (stochastic_discretization.hpp's levels,
// piecewise.hpp's band starts, square_wave.hpp's buckets): an in-range offset v − lo of a range of
// width W onto `steps` equal steps with B-bit draws goes to atom ⌊t/W⌋ + 1 with probability
// ⌊(t mod W)·2^B/W⌋/2^B, else to ⌊t/W⌋ (t = offset·steps): the atoms with their weights.
inline std::vector<std::pair<std::uint32_t, double>> rounding_weights(std::uint64_t offset, std::uint64_t width,
                                                                      std::uint32_t steps, unsigned bits) {
  const std::uint64_t t = offset * steps, base = t / width, rest = t % width;
  const double up = std::ldexp(static_cast<double>((rest << bits) / width), -static_cast<int>(bits));
  std::vector<std::pair<std::uint32_t, double>> out{{static_cast<std::uint32_t>(base), 1 - up}};
  if (up > 0) out.emplace_back(static_cast<std::uint32_t>(base + 1), up);
  return out;
}

// A kernel that is a band (sw, and PM's grid): Pr[item y | atom x] = outside + inside·[x ≤ y <
// x + width] + cell_zero·[y = 0]. EM steps through it in O(atoms + items) with prefix sums
// instead of the dense kernel's O(atoms·items). width 0: no band.
struct KernelBand {
  double outside = 0, inside = 0, cell_zero = 0;  // m, h − m and R, as probabilities
  std::uint32_t width = 0;
};

// hh (models/hierarchical_histogram.hpp): the tree its reports fall on. Level ℓ = 1 … h (index
// ℓ − 1 here) has nodes[ℓ − 1] nodes, each covering B^(h − ℓ) leaves (the last fewer), counted in
// the aggregate from support[offset[ℓ − 1]]: its nodes' supports, then the level's report count;
// channel[ℓ − 1] is its oracle's (p, q). Leaves = the values lo … hi = the model's atoms.
struct TreeLevels {
  unsigned branching_bits = 0;  // log2 B
  std::uint32_t leaves = 0;
  std::vector<std::uint32_t> nodes, offset;
  std::vector<Channel> channel;
  std::uint32_t levels() const { return static_cast<std::uint32_t>(nodes.size()); }
};

// haar-hrr (models/haar_hrr.hpp): its Haar levels. Level ℓ = 1 … h has 2^(ℓ − 1) nodes, its
// reports counted per (row j, bit) at support[offset[ℓ − 1] + 2j + bit]; D = 2^h ≥ leaves; the
// binary RR keeps the bit with probability keep.
struct WaveletLevels {
  std::uint32_t leaves = 0;
  double keep = 0;
  std::vector<std::uint32_t> offset;
  std::uint32_t levels() const { return static_cast<std::uint32_t>(offset.size()); }
};

struct NumericModel {
  std::uint32_t size = 0;           // K reported items (L levels, W + 1 values, pm's M cells)
  // The input atoms when they are not the items (pm: its S band starts; sw: its D buckets); 0:
  // K atoms = K items.
  std::uint32_t atoms = 0;
  // pm: the scores give the mean, and nothing here estimates a distribution over the atoms.
  bool mean_only = false;
  // A value between two adjacent atoms becomes one of them at random (sd's levels, pm's starts);
  // dlaplace's values are its atoms.
  bool rounded = false;
  std::vector<double> kernel;       // atoms×K row-major: Pr[item y | atom x] (empty for pm)
  KernelBand band;                  // sw: the same kernel as a band, for EM
  // Var(g(Y) | atom x), for a model without a kernel (pm: in closed form, where its S × M kernel
  // would take 32 MiB at M = 2048); empty for the others.
  std::vector<double> atom_variance;
  // K × atoms row-major: a left inverse of the kernel, row y the weights of item y's frequency in
  // the atoms' unbiased estimate (dlaplace: kernel⁻¹; sw: (KKᵀ)⁻¹K transposed); empty for the others.
  std::vector<double> inverse;
  std::vector<double> atom_value;   // the value atom x stands for (one per atom)
  std::vector<double> score;        // g(y): E[g(Y) | x] = atom_value[x]
  // dbitflip: a report supports up to d items (its sampled buckets whose bit is 1), so the
  // reported items are not one per report and the scores above are unused. The share d/k of
  // reports that sample a given item, d(d − 1)/(k(k − 1)) a given pair, and the per-bit channel
  // (p*, q*): item y's unbiased frequency is f̂_y = (π̂_y − share·q*)/(share·(p* − q*)) (the
  // kernel's channel), and a linear combination L = Σ a_y f̂_y has, per report of a value in x,
  //   E[Z] = share(q*A + δa_x),  E[Z²] = share(q*A₂ + δa_x²) + pair((q*A + δa_x)² − q*²A₂ − (p*² − q*²)a_x²)
  // with Z = Σ a_y·[y supported], A = Σa, A₂ = Σa², δ = p* − q*: Var L = Σ_x f_x Var(Z | x)/(n·share²δ²),
  // taken at the estimated distribution (clipped to ≥ 0, normalized). 0 for the others.
  double sampled_share = 0, pair_share = 0, bit_p = 0, bit_q = 0;
  // hh: its tree (hierarchy_estimate.hpp estimates the leaves, the atoms); no kernel, score or
  // inverse. Empty for the others.
  TreeLevels tree;
  // haar-hrr: its levels (wavelet_estimate.hpp). Empty for the others.
  WaveletLevels wavelet;

  std::uint32_t atom_count() const { return atoms == 0 ? size : atoms; }
};

// The atoms (item_value of each of the model's k items) and a zero kernel and score of that
// shape: what every numeric model's noise_model starts from.
NumericModel numeric_atoms(std::uint32_t k, const auto& model) {
  NumericModel out;
  out.size = k;
  out.atom_value.resize(k);
  for (std::uint32_t x = 0; x < k; ++x) out.atom_value[x] = model.item_value(x);
  out.kernel.assign(std::size_t{k} * k, 0.0);
  out.score.assign(k, 0.0);
  return out;
}

// Levels evenly spaced from item 0's value to item k − 1's behind a k-RR channel (p, q): sd's L
// levels, 1BitMean's two ends (its bit). E[Y | level j] = q·k(k − 1)/2 + (p − q)·j, so the score
// g(y) = value(0) + step·(y − q·k(k − 1)/2)/(p − q) is unbiased for every level.
NumericModel evenly_spaced_levels(const auto& m) {
  const std::uint32_t k = m.items();
  NumericModel model = numeric_atoms(k, m);
  model.rounded = true;
  const Channel ch = m.channel();
  for (std::uint32_t x = 0; x < k; ++x)
    for (std::uint32_t y = 0; y < k; ++y) model.kernel[std::size_t{x} * k + y] = x == y ? ch.p : ch.q;
  const double levels = k;
  const double step = (model.atom_value[k - 1] - model.atom_value[0]) / (levels - 1);
  for (std::uint32_t y = 0; y < k; ++y)
    model.score[y] = model.atom_value[0] +
                     step * (y - ch.q * levels * (levels - 1) / 2) / (ch.p - ch.q);
  return model;
}

// The inverse of a dense n×n row-major matrix (Gauss–Jordan, partial pivoting); empty if
// numerically singular.
std::vector<double> invert(std::vector<double> a, std::size_t n);

}  // namespace tinyldp::collector

#endif
