// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/bayesian_update.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>

#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/numeric_estimate.hpp"

namespace tinyldp::collector {

ObservationModel observation_model(const Mechanism& m) {
  if (m.mean_only()) throw std::invalid_argument(mean_only_refusal);
  ObservationModel o;
  o.items = m.domain();
  o.channel = m.channel();
  if (m.deconvolved()) {
    const NumericModel model = numeric_model(m);
    o.kernel = model.kernel;
    o.atoms = model.atoms;  // sw: its buckets, not its cells
    o.band = model.band;
  } else if (m.one_item_per_report()) {
    o.counts = ObservationModel::Counts::outputs;  // a report is one item
  } else {
    o.counts = ObservationModel::Counts::supports;
    o.trials = static_cast<double>(m.max_support_per_report());
  }
  return o;
}

namespace {

std::atomic<std::uint64_t> runs{0};

// One EM step's shared work: the mixture's denominators (each observation's probability under
// P) and, through `next`, the updated P (not yet normalized). Returns ℓ(P).
class Step {
 public:
  Step(const ObservationModel& model, std::span<const std::uint64_t> support, std::uint64_t reports)
      : m_(model), support_(support), n_(static_cast<double>(reports)) {
    if (support.size() != model.items)
      throw std::invalid_argument("bayesian_update: " + std::to_string(support.size()) + " counts for " +
                                  std::to_string(model.items) + " items");
    if (model.counts == ObservationModel::Counts::outputs && !model.kernel.empty() &&
        model.kernel.size() != std::size_t{model.atom_count()} * model.items)
      throw std::invalid_argument("bayesian_update: the kernel is not atoms × items");
    if (model.counts == ObservationModel::Counts::outputs && model.kernel.empty() && model.atoms != 0 &&
        model.atoms != model.items)
      throw std::invalid_argument("bayesian_update: a channel's atoms are its items");
    if (!(model.trials >= 1)) throw std::invalid_argument("bayesian_update: trials must be at least 1");
    for (std::uint32_t y = 0; y < model.items; ++y)
      if (support[y] > 0) seen_.push_back(y);
  }

  // ℓ(P), and P' in next when asked.
  double run(const std::vector<double>& p, std::vector<double>* next) const {
    if (m_.counts == ObservationModel::Counts::supports) return supports(p);
    if (m_.kernel.empty()) return channel_outputs(p, next);
    if (m_.band.width > 0) return band_outputs(p, next);
    return dense_outputs(p, next);
  }

 private:
  double count(std::uint32_t i) const { return static_cast<double>(support_[i]); }

  // The k-RR channel: D_y = q + (p − q)·P(y); P'(x) = P(x)·[q·Σ_y n_y/D_y + (p − q)·n_x/D_x]/n.
  double channel_outputs(const std::vector<double>& p, std::vector<double>* next) const {
    const double keep = m_.channel.p, other = m_.channel.q;
    double ell = 0, sum = 0;
    for (std::uint32_t y : seen_) {
      const double d = other + (keep - other) * p[y];
      ell += count(y) * std::log(d);
      sum += count(y) / d;
    }
    if (next)
      for (std::uint32_t x = 0; x < m_.items; ++x) {
        const double own = support_[x] > 0 ? count(x) / (other + (keep - other) * p[x]) : 0.0;
        (*next)[x] = p[x] * (other * sum + (keep - other) * own) / n_;
      }
    return ell;
  }

  // A dense kernel: D_y = Σ_x P(x)·M[x][y]; P'(x) = P(x)·Σ_y (n_y/n)·M[x][y]/D_y.
  double dense_outputs(const std::vector<double>& p, std::vector<double>* next) const {
    const std::size_t k = m_.items, atoms = m_.atom_count();
    std::vector<double> denominator(k, 0.0), ratio(k, 0.0);  // D_y, n_y / (n·D_y)
    for (std::size_t x = 0; x < atoms; ++x) {  // row by row: the kernel read in order
      if (p[x] == 0) continue;
      const double* row = &m_.kernel[x * k];
      for (std::uint32_t y : seen_) denominator[y] += p[x] * row[y];
    }
    double ell = 0;
    for (std::uint32_t y : seen_) {
      const double d = denominator[y];
      ell += count(y) * std::log(d);
      ratio[y] = d > 0 ? count(y) / (n_ * d) : 0.0;
    }
    if (next)
      for (std::size_t x = 0; x < atoms; ++x) {
        const double* row = &m_.kernel[x * k];
        double s = 0;
        for (std::uint32_t y : seen_) s += row[y] * ratio[y];
        (*next)[x] = p[x] * s;
      }
    return ell;
  }

  // The same through a band (KernelBand): D_y = m·ΣP + a·Σ_{x ∈ (y − w, y]} P(x) + r·[y = 0]·ΣP and
  // P'(x) = P(x)·(m·Σ_y ρ_y + a·Σ_{y ∈ [x, x + w)} ρ_y + r·ρ_0), ρ_y = n_y/(n·D_y), by prefix sums.
  double band_outputs(const std::vector<double>& p, std::vector<double>* next) const {
    const KernelBand& b = m_.band;
    const std::size_t k = m_.items, atoms = m_.atom_count(), w = b.width;
    std::vector<double> mass(atoms + 1, 0.0), ratio(k + 1, 0.0);  // prefix sums of P, then of ρ
    for (std::size_t x = 0; x < atoms; ++x) mass[x + 1] = mass[x] + p[x];
    const double total = mass[atoms];
    double ell = 0;
    std::vector<double> rho(k, 0.0);
    for (std::uint32_t y : seen_) {
      const std::size_t first = y + 1 > w ? y + 1 - w : 0, last = std::min<std::size_t>(y + 1, atoms);
      const double window = last > first ? mass[last] - mass[first] : 0.0;
      const double d = b.outside * total + b.inside * window + (y == 0 ? b.cell_zero * total : 0.0);
      ell += count(y) * std::log(d);
      rho[y] = d > 0 ? count(y) / (n_ * d) : 0.0;
    }
    if (next) {
      for (std::size_t y = 0; y < k; ++y) ratio[y + 1] = ratio[y] + rho[y];
      for (std::size_t x = 0; x < atoms; ++x) {
        const double in_window = ratio[std::min(x + w, k)] - ratio[x];
        (*next)[x] = p[x] * (b.outside * ratio[k] + b.inside * in_window + b.cell_zero * rho[0]);
      }
    }
    return ell;
  }

  // Item i's binomial: C_i successes of N trials, π_i = q' + (p' − q')·P(i).
  double supports(const std::vector<double>& p) const {
    const double t = m_.trials, keep = m_.channel.p / t, other = m_.channel.q / t, trials = n_ * t;
    double ell = 0;
    for (std::uint32_t i = 0; i < m_.items; ++i) {
      const double pi = other + (keep - other) * p[i];
      const double c = count(i), rest = trials - c;
      if (c > 0) ell += c * std::log(pi);
      if (rest > 0) ell += rest * std::log1p(-pi);
    }
    return ell;
  }

  const ObservationModel& m_;
  std::span<const std::uint64_t> support_;
  double n_;
  std::vector<std::uint32_t> seen_;  // the items (outputs) with a non-zero count
};

// The composite likelihood Σ_i ℓ_i(P(i)) is separable and concave, so its maximum on the
// simplex is found directly rather than by EM steps (which take thousands of iterations here,
// SHE's tens of thousands: each item's count carries little of its trials' information). KKT:
// every item's ℓ_i'(P) = λ, or P = 0 (1) where ℓ_i' stays below (above) it. ℓ_i'(P) = λ is
// C/π − (N − C)/(1 − π) = μ, μ = λ/(p' − q'): μπ² − (μ + N)π + C = 0, whose root in [0, 1] is
// π(μ) = 2C/((μ + N) + √((μ + N)² − 4μC)) (for C = 0: max(0, 1 + N/μ)); then
// P = clamp((π − q')/(p' − q'), 0, 1), decreasing in μ, and μ by bisection so that Σ P = 1.
std::vector<double> composite_maximum(const ObservationModel& m, std::span<const std::uint64_t> support,
                                      std::uint64_t reports) {
  const double t = m.trials, keep = m.channel.p / t, other = m.channel.q / t;
  const double trials = static_cast<double>(reports) * t;
  const auto at = [&](double mu, std::vector<double>* out) {
    double total = 0;
    for (std::uint32_t i = 0; i < m.items; ++i) {
      const double c = static_cast<double>(support[i]), b = mu + trials;
      const double pi = c > 0 ? 2 * c / (b + std::sqrt(b * b - 4 * mu * c)) : std::max(0.0, 1 + trials / mu);
      const double v = std::clamp((pi - other) / (keep - other), 0.0, 1.0);
      total += v;
      if (out) (*out)[i] = v;
    }
    return total;
  };
  double lo = -trials, hi = trials;  // widened until Σ P(lo) ≥ 1 ≥ Σ P(hi)
  for (int i = 0; i < 64 && at(lo, nullptr) < 1; ++i) lo *= 2;
  for (int i = 0; i < 64 && at(hi, nullptr) > 1; ++i) hi *= 2;
  for (int i = 0; i < 200; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;  // as close as doubles get
    (at(mid, nullptr) > 1 ? lo : hi) = mid;
  }
  std::vector<double> p(m.items);
  const double total = at(lo, &p);
  for (double& x : p) x /= total;
  return p;
}

}  // namespace

double observation_log_likelihood(const ObservationModel& model, std::span<const std::uint64_t> support,
                                  std::uint64_t reports, std::span<const double> p) {
  return Step(model, support, reports).run(std::vector<double>(p.begin(), p.end()), nullptr);
}

BayesianUpdateResult bayesian_update(const ObservationModel& model, std::span<const std::uint64_t> support,
                                     std::uint64_t reports, const BayesianUpdateOptions& options) {
  runs.fetch_add(1, std::memory_order_relaxed);
  if (!(options.likelihood_tolerance >= 0))
    throw std::invalid_argument("bayesian_update: likelihood_tolerance must be at least 0");
  if (!(options.smoothing >= 0 && options.smoothing < 0.5))
    throw std::invalid_argument("bayesian_update: smoothing must be in [0, 0.5)");
  if (options.smoothing > 0 && model.counts != ObservationModel::Counts::outputs)
    throw std::invalid_argument("bayesian_update: smoothing (EMS) is for one output per report over ordered values");
  BayesianUpdateResult r;
  const Step step(model, support, reports);
  const std::uint32_t atoms = model.atom_count();
  r.p.assign(atoms, atoms > 0 ? 1.0 / atoms : 0.0);
  if (reports == 0 || atoms < 2) {
    r.converged = true;
    return r;
  }
  if (model.counts == ObservationModel::Counts::supports) {
    if (options.track_likelihood) r.log_likelihood.push_back(step.run(r.p, nullptr));
    r.p = composite_maximum(model, support, reports);
    r.iterations = 1;
    r.converged = true;
    if (options.track_likelihood) r.log_likelihood.push_back(step.run(r.p, nullptr));
    return r;
  }
  std::vector<double> next(atoms), unsmoothed;
  const double s = options.smoothing;
  double previous = 0;  // ℓ before the last step
  while (r.iterations < options.max_iterations) {
    const double ell = step.run(r.p, &next);
    if (options.likelihood_tolerance > 0 && r.iterations > 1 && std::fabs(ell - previous) < options.likelihood_tolerance) {
      r.converged = true;  // the last step moved ℓ by less than the tolerance: its P is the answer
      break;               // (ℓ(P) is recorded once, below)
    }
    if (options.track_likelihood) r.log_likelihood.push_back(ell);
    previous = ell;
    if (s > 0) {  // EMS: each atom gives s of its mass to each neighbour it has (mass kept)
      unsmoothed = next;
      for (std::uint32_t x = 0; x < atoms; ++x) {
        const bool has_left = x > 0, has_right = x + 1 < atoms;
        next[x] = unsmoothed[x] * (1 - s * (has_left + has_right)) + s * ((has_left ? unsmoothed[x - 1] : 0.0) +
                                                                          (has_right ? unsmoothed[x + 1] : 0.0));
      }
    }
    double sum = 0;
    for (double x : next) sum += x;
    double change = 0;
    for (std::uint32_t x = 0; x < atoms; ++x) {
      const double v = next[x] / sum;  // renormalized: rounding never lets the total drift
      change = std::max(change, std::fabs(v - r.p[x]));
      r.p[x] = v;
    }
    ++r.iterations;
    if (change <= options.tolerance) {
      r.converged = true;
      break;
    }
  }
  if (options.track_likelihood) r.log_likelihood.push_back(step.run(r.p, nullptr));
  return r;
}

std::uint64_t bayesian_update_runs() { return runs.load(std::memory_order_relaxed); }

BayesianUpdateResult bayesian_update(const Aggregator& a, const BayesianUpdateOptions& options) {
  return bayesian_update(observation_model(a.mechanism()), a.support(), a.reports(), options);
}

}  // namespace tinyldp::collector
