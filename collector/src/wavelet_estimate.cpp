// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/wavelet_estimate.hpp"

#include <stdexcept>
#include <string>

namespace tinyldp::collector {

void walsh_hadamard(std::span<double> v) {
  const std::size_t k = v.size();
  if (k & (k - 1)) throw std::invalid_argument("walsh_hadamard: the length is not a power of two");
  for (std::size_t len = 1; len < k; len <<= 1)
    for (std::size_t i = 0; i < k; i += 2 * len)
      for (std::size_t j = i; j < i + len; ++j) {
        const double a = v[j], b = v[j + len];
        v[j] = a + b;
        v[j + len] = a - b;
      }
}

HaarEstimate::HaarEstimate(const WaveletLevels& wavelet, std::span<const std::uint64_t> support)
    : h_(wavelet.levels()) {
  const double gap = 2 * wavelet.keep - 1;
  if (h_ == 0 || h_ > 30 || wavelet.leaves < 2 || wavelet.leaves > (std::uint64_t{1} << h_) || !(gap > 0))
    throw std::invalid_argument("haar: a malformed wavelet");
  gap2_ = gap * gap;
  n_.assign(h_, 0.0);
  std::vector<std::vector<double>> theta(h_);  // each level's coefficients
  for (std::uint32_t l = 1; l <= h_; ++l) {
    const std::uint32_t k = std::uint32_t{1} << (l - 1), at = wavelet.offset[l - 1];
    if (std::size_t{at} + 2 * std::size_t{k} > support.size()) throw std::invalid_argument("haar: the counts do not fit");
    std::vector<double> v(k);
    std::uint64_t n = 0;
    for (std::uint32_t j = 0; j < k; ++j) {
      const std::uint64_t plus = support[at + 2 * j], minus = support[at + 2 * j + 1];
      n += plus + minus;
      v[j] = static_cast<double>(plus) - static_cast<double>(minus);
    }
    if (n == 0)
      throw std::invalid_argument("haar-hrr: level " + std::to_string(l) + " of " + std::to_string(h_) +
                                  " has no reports (each device reports one level; the transform needs every level "
                                  "reported at least once)");
    walsh_hadamard(v);  // u[k] = Σ_j H[j][k]·v[j] (H symmetric)
    n_[l - 1] = static_cast<double>(n);
    for (double& x : v) x /= n_[l - 1] * gap;
    theta[l - 1] = std::move(v);
  }
  const std::uint64_t big_d = std::uint64_t{1} << h_;
  leaves_.assign(wavelet.leaves, 1.0 / static_cast<double>(big_d));
  for (std::uint32_t x = 0; x < wavelet.leaves; ++x)
    for (std::uint32_t l = 1; l <= h_; ++l) {
      const unsigned below = h_ - l;  // a half of a node of level ℓ holds 2^below leaves
      const double sign = ((x >> below) & 1u) ? -1.0 : 1.0;
      leaves_[x] += sign * theta[l - 1][x >> (below + 1)] / static_cast<double>(std::uint64_t{2} << below);
    }
  set_prefix();
}

double HaarEstimate::prefix_weight(std::uint32_t level, std::uint32_t t) const {
  const unsigned below = h_ - level;
  const std::uint64_t half = std::uint64_t{1} << below, start = (std::uint64_t{t} >> (below + 1)) << (below + 1);
  const std::uint64_t upto = std::uint64_t{t} - start + 1;  // the node's leaves ≤ t
  const std::uint64_t left = upto < half ? upto : half, right = upto - left;
  return (static_cast<double>(left) - static_cast<double>(right)) / static_cast<double>(2 * half);
}

double HaarEstimate::range_variance(std::uint32_t first, std::uint32_t last) const {
  if (first > last || last >= leaves_.size()) throw std::invalid_argument("haar: a range outside the leaves");
  double variance = 0;
  for (std::uint32_t l = 1; l <= h_; ++l) {
    // F(last) − F(first − 1): one node per end; the same node when both ends share it.
    const unsigned shift = h_ - l + 1;
    const double hi = prefix_weight(l, last), lo = first > 0 ? prefix_weight(l, first - 1) : 0.0;
    const bool same = first > 0 && ((first - 1) >> shift) == (last >> shift);
    variance += (same ? (hi - lo) * (hi - lo) : hi * hi + lo * lo) * coefficient_variance(l);
  }
  return variance;
}

double HaarEstimate::linear_variance(std::span<const double> weight) const {
  if (weight.size() != leaves_.size()) throw std::invalid_argument("haar: one weight per leaf");
  double variance = 0;
  for (std::uint32_t l = 1; l <= h_; ++l) {
    const unsigned below = h_ - l;
    std::vector<double> w(std::size_t{1} << (l - 1), 0.0);
    for (std::uint32_t x = 0; x < weight.size(); ++x)
      w[x >> (below + 1)] += weight[x] * (((x >> below) & 1u) ? -1.0 : 1.0) / static_cast<double>(std::uint64_t{2} << below);
    double squares = 0;
    for (double v : w) squares += v * v;
    variance += squares * coefficient_variance(l);
  }
  return variance;
}

}  // namespace tinyldp::collector
