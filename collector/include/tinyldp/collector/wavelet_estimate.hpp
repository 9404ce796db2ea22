// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/wavelet_estimate.hpp — haar-hrr's leaves from its Haar coefficients
// (haar_hrr.hpp; models/haar_hrr.hpp): each level's coefficients, the inverse transform, ranges
// and their standard errors.
//
// A report of level ℓ is {row j, bit b}; y = +1 for b = 0, −1 for b = 1. Over a uniform row,
// E[H[j][k]·y] = (2p − 1)·sign·[node = k] (the rows of H are orthogonal), so the level's n_ℓ
// reports give each node's coefficient θ_k = (share in its left half) − (share in its right half)
// unbiased: θ̂_k = Σ_j H[j][k]·(N_j,0 − N_j,1) / (n_ℓ(2p − 1)) — one fast Walsh–Hadamard transform
// of the level's 2^(ℓ−1) row counts. The leaves of D = 2^h follow from the Haar basis:
// f(x) = 1/D + Σ_ℓ sign_ℓ(x)·θ̂_{ℓ, node_ℓ(x)} / 2^(h − ℓ + 1); leaves d … D − 1 are no value (their
// estimate, noise, is left out of the rows). A prefix F(t) = (t + 1)/D + Σ_ℓ w_ℓ(t)·θ̂_{ℓ, node_ℓ(t)}
// involves one node per level (a node wholly below t adds as much left as right), w = (its left
// leaves ≤ t − its right leaves ≤ t)/2^(h − ℓ + 1). Reports of fixed values make the coefficients'
// errors uncorrelated and Var θ̂_k = (1/(2p − 1)² − m_k)/n_ℓ, m_k the share of the level's devices
// in node k; the errors here drop m_k — at most (2p − 1)² of the variance, 21 % at ε = 1 — an upper
// bound, the intervals on the wide side. Range: O(h); a weighted sum: O(d·h). Host only.
#ifndef TINYLDP_COLLECTOR_WAVELET_ESTIMATE_HPP
#define TINYLDP_COLLECTOR_WAVELET_ESTIMATE_HPP

#include <cstdint>
#include <span>
#include <vector>

#include "tinyldp/collector/hierarchy_estimate.hpp"

namespace tinyldp::collector {

// v ← H·v in place, H the Sylvester–Hadamard matrix of v's size (a power of two; else
// std::invalid_argument): H[j][k] = (−1)^popcount(j & k). O(k log k).
void walsh_hadamard(std::span<double> v);

class HaarEstimate : public LeafEstimate {
 public:
  // From an aggregate's counts over `wavelet`'s layout; refuses (std::invalid_argument, saying
  // which) a level without reports.
  HaarEstimate(const WaveletLevels& wavelet, std::span<const std::uint64_t> support);
  const std::vector<double>& leaves() const override { return leaves_; }
  double range_variance(std::uint32_t first, std::uint32_t last) const override;
  double linear_variance(std::span<const double> weight) const override;
  double worst_case_linear_variance(std::span<const double> weight) const override { return linear_variance(weight); }

 private:
  // The weight of θ_{ℓ, node(t)} in the prefix F(t), at level ℓ (t < D).
  double prefix_weight(std::uint32_t level, std::uint32_t t) const;
  double coefficient_variance(std::uint32_t level) const { return 1.0 / (gap2_ * n_[level - 1]); }

  unsigned h_ = 0;
  double gap2_ = 0;  // (2p − 1)²
  std::vector<double> n_;
  std::vector<double> leaves_;
};

}  // namespace tinyldp::collector

#endif
