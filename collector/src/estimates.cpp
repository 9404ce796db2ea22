// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/estimates.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>

#include "tinyldp/collector/numeric_estimate.hpp"

namespace tinyldp::collector {

std::optional<Postprocess> postprocess_from_name(std::string_view name) {
  for (auto p : {Postprocess::none, Postprocess::clip, Postprocess::norm_sub, Postprocess::simplex, Postprocess::em})
    if (name == name_of(p)) return p;
  return std::nullopt;
}

const char* name_of(Postprocess p) {
  switch (p) {
    case Postprocess::none: return "none";
    case Postprocess::clip: return "clip";
    case Postprocess::norm_sub: return "norm-sub";
    case Postprocess::simplex: return "simplex";
    case Postprocess::em: return "em";
  }
  return "none";
}

double normal_quantile_two_sided(double confidence) {
  // Solve erfc(z/√2) = 1 − confidence by bisection: slow but exact to double precision.
  const double target = 1 - confidence;
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (std::erfc(mid / std::sqrt(2.0)) > target)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

std::vector<double> clip_and_renormalize(std::vector<double> f) {
  double sum = 0;
  for (double& x : f) sum += (x = std::max(x, 0.0));
  if (sum <= 0) return std::vector<double>(f.size(), 1.0 / static_cast<double>(f.size()));
  for (double& x : f) x /= sum;
  return f;
}

std::vector<double> norm_sub(std::vector<double> f) {
  // Subtract δ from the positive entries, clip, repeat until they sum to 1.
  for (int round = 0; round < 1000; ++round) {
    double sum = 0;
    std::size_t positive = 0;
    for (double x : f)
      if (x > 0) {
        sum += x;
        ++positive;
      }
    if (positive == 0) return std::vector<double>(f.size(), 1.0 / static_cast<double>(f.size()));
    const double delta = (sum - 1) / static_cast<double>(positive);
    bool clipped = false;
    for (double& x : f) {
      if (x <= 0) {
        x = 0;
        continue;
      }
      x -= delta;
      if (x < 0) {
        x = 0;
        clipped = true;
      }
    }
    if (!clipped) break;
  }
  return f;
}

std::vector<double> project_onto_simplex(std::vector<double> f) {
  std::vector<double> sorted = f;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  double cumulative = 0, theta = 0;
  for (std::size_t k = 0; k < sorted.size(); ++k) {
    cumulative += sorted[k];
    const double t = (cumulative - 1) / static_cast<double>(k + 1);
    if (sorted[k] - t > 0) theta = t;
  }
  for (double& x : f) x = std::max(x - theta, 0.0);
  return f;
}

std::vector<double> project_onto_capped_simplex(std::vector<double> f) {
  double sum = 0;
  for (double& x : f) sum += x = std::max(x, 0.0);
  return sum <= 1 ? f : project_onto_simplex(std::move(f));
}

std::vector<double> apply_postprocess(std::vector<double> raw, Postprocess post) {
  switch (post) {
    case Postprocess::none: return raw;
    case Postprocess::clip: return clip_and_renormalize(std::move(raw));
    case Postprocess::norm_sub: return norm_sub(std::move(raw));
    case Postprocess::simplex: return project_onto_simplex(std::move(raw));
    case Postprocess::em: throw std::invalid_argument("em is estimated from the support counts, not the frequencies");
  }
  return raw;
}

std::pair<double, double> interval_around(double unbiased, double standard_error, double z,
                                          double postprocessed, Postprocess post) {
  double low = unbiased - z * standard_error, high = unbiased + z * standard_error;
  if (post == Postprocess::none) return {low, high};
  // The truth lies in [0, 1], so cutting there never loses coverage; stretching only widens.
  low = std::min(std::max(low, 0.0), postprocessed);
  high = std::max(std::min(high, 1.0), postprocessed);
  return {low, high};
}

void finish_estimates(std::vector<ItemEstimate>& items, Postprocess post, std::uint64_t n,
                      double confidence) {
  if (n == 0) return;
  std::vector<double> raw(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) raw[i] = items[i].unbiased_frequency;
  finish_estimates(items, post, n, confidence, apply_postprocess(std::move(raw), post));
}

void finish_estimates(std::vector<ItemEstimate>& items, Postprocess post, std::uint64_t n,
                      double confidence, const std::vector<double>& f) {
  if (n == 0) return;
  const double z = normal_quantile_two_sided(confidence);
  for (std::size_t i = 0; i < items.size(); ++i) {
    ItemEstimate& e = items[i];
    e.frequency = f[i];
    e.count = f[i] * static_cast<double>(n);
    std::tie(e.ci_low, e.ci_high) = interval_around(e.unbiased_frequency, e.standard_error, z, f[i], post);
  }
}

const std::vector<double>& em_distribution(const BayesianUpdateResult* em, std::size_t items) {
  if (em == nullptr)
    throw std::invalid_argument("postprocess em needs EM's run on the aggregate (bayesian_update)");
  if (em->p.size() != items)
    throw std::invalid_argument("EM's run holds " + std::to_string(em->p.size()) + " items, the estimate " +
                                std::to_string(items));
  return em->p;
}

double same_device_pairs(const Aggregator& aggregator) {
  double pairs = 0;
  for (auto r = aggregator.epochs().begin(); r != aggregator.epochs().end(); ++r)
    for (auto s = std::next(r); s != aggregator.epochs().end(); ++s)
      pairs += 2 * static_cast<double>(std::min(r->second, s->second));
  return pairs;
}

std::vector<ItemEstimate> estimate(const Aggregator& aggregator, Postprocess post,
                                   double confidence, const BayesianUpdateResult* em) {
  if (aggregator.mechanism().mean_only()) throw std::invalid_argument(mean_only_refusal);
  if (aggregator.mechanism().deconvolved())  // no (p, q) channel
    return estimate_distribution(aggregator, numeric_model(aggregator.mechanism()), post, confidence, em);
  const Channel ch = aggregator.mechanism().channel();
  const std::uint64_t n = aggregator.reports();
  const double nd = static_cast<double>(n);
  const std::optional<MemoCovariance> memo = aggregator.mechanism().memo_covariance();
  const double pairs = memo && aggregator.pools_epochs() ? same_device_pairs(aggregator) : 0;
  std::vector<ItemEstimate> out(aggregator.support().size());
  for (std::size_t i = 0; i < out.size() && n > 0; ++i) {
    ItemEstimate& e = out[i];
    const double count = estimate_count(aggregator.support()[i], n, ch);
    e.unbiased_frequency = count / nd;
    double variance = count_variance(n, std::clamp(count, 0.0, nd), ch);
    if (pairs > 0) {  // the epochs' reports of one device share its memo (epoch_series.hpp)
      const double d = ch.p - ch.q;
      variance += pairs * memo->per_device(std::clamp(e.unbiased_frequency, 0.0, 1.0)) / (d * d);
    }
    e.standard_error = std::sqrt(variance) / nd;
  }
  if (post == Postprocess::em && n > 0)
    finish_estimates(out, post, n, confidence, em_distribution(em, out.size()));
  else
    finish_estimates(out, post, n, confidence);
  return out;
}

}  // namespace tinyldp::collector
