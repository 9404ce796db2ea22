// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/numeric_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include "tinyldp/collector/hierarchy_estimate.hpp"
#include "tinyldp/collector/wavelet_estimate.hpp"

namespace tinyldp::collector {

std::vector<double> invert(std::vector<double> a, std::size_t n) {
  std::vector<double> inv(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) inv[i * n + i] = 1;
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < n; ++r)
      if (std::fabs(a[r * n + col]) > std::fabs(a[pivot * n + col])) pivot = r;
    if (!(std::fabs(a[pivot * n + col]) > 1e-300)) return {};
    if (pivot != col) {
      std::swap_ranges(a.begin() + static_cast<std::ptrdiff_t>(col * n),
                       a.begin() + static_cast<std::ptrdiff_t>(col * n + n),
                       a.begin() + static_cast<std::ptrdiff_t>(pivot * n));
      std::swap_ranges(inv.begin() + static_cast<std::ptrdiff_t>(col * n),
                       inv.begin() + static_cast<std::ptrdiff_t>(col * n + n),
                       inv.begin() + static_cast<std::ptrdiff_t>(pivot * n));
    }
    const double scale = 1 / a[col * n + col];
    double* arow = &a[col * n];
    double* irow = &inv[col * n];
    for (std::size_t j = 0; j < n; ++j) {
      arow[j] *= scale;
      irow[j] *= scale;
    }
    for (std::size_t r = 0; r < n; ++r) {
      if (r == col) continue;
      const double factor = a[r * n + col];
      if (factor == 0) continue;
      double* ar = &a[r * n];
      double* ir = &inv[r * n];
      for (std::size_t j = 0; j < n; ++j) {
        ar[j] -= factor * arow[j];
        ir[j] -= factor * irow[j];
      }
    }
  }
  return inv;
}

namespace {
// dbitflip: the unbiased frequencies f̂_y = (π̂_y − share·q*)/(share·δ).
std::vector<double> sampled_frequencies(const Aggregator& a, const NumericModel& m) {
  const double nd = static_cast<double>(a.reports());
  const double q = m.sampled_share * m.bit_q, gap = m.sampled_share * (m.bit_p - m.bit_q);
  std::vector<double> f(m.size);
  for (std::uint32_t y = 0; y < m.size; ++y) f[y] = (static_cast<double>(a.support()[y]) / nd - q) / gap;
  return f;
}
// The estimate clipped at 0 and normalized: the plug-in distribution of a variance.
std::vector<double> plug_in(std::vector<double> f) {
  double sum = 0;
  for (double& x : f) sum += (x = std::max(x, 0.0));
  for (double& x : f) x = sum > 0 ? x / sum : 1.0 / static_cast<double>(f.size());
  return f;
}
}  // namespace

double sampled_linear_variance(const NumericModel& m, const std::vector<double>& a, const std::vector<double>& f,
                               double n) {
  const double p = m.bit_p, q = m.bit_q, delta = p - q;
  double sum_a = 0, sum_a2 = 0;
  for (double x : a) {
    sum_a += x;
    sum_a2 += x * x;
  }
  double total = 0;
  for (std::uint32_t x = 0; x < m.size; ++x) {
    if (f[x] == 0) continue;
    const double ax = a[x], linear = q * sum_a + delta * ax;
    const double first = m.sampled_share * linear;
    const double second = m.sampled_share * (q * sum_a2 + delta * ax * ax) +
                          m.pair_share * (linear * linear - q * q * sum_a2 - (p * p - q * q) * ax * ax);
    total += f[x] * (second - first * first);
  }
  const double gap = m.sampled_share * delta;
  return std::max(total, 0.0) / (n * gap * gap);
}

const char* const mean_only_refusal =
    "pm's and hm's reports give the mean only, no distribution: a report is a cell of a band that slides "
    "with the value (or, in hm, Duchi's randomized bit), not a value (sd and dlaplace estimate distributions)";

namespace {
void refuse_mean_only(const NumericModel& model) {
  if (model.mean_only) throw std::invalid_argument(mean_only_refusal);
}
bool is_tree(const NumericModel& model) { return has_leaf_estimate(model); }  // hh, haar-hrr
// hh: the leaves' weights centred on the range's midpoint (the leaves sum to 1, so a shift
// changes no variance and cancels nothing large).
std::vector<double> centred_values(const NumericModel& model, double& centre) {
  centre = (model.atom_value.front() + model.atom_value.back()) / 2;
  std::vector<double> w(model.atom_value.size());
  for (std::size_t x = 0; x < w.size(); ++x) w[x] = model.atom_value[x] - centre;
  return w;
}
}  // namespace

NumericModel numeric_model(const Mechanism& m) {
  return m.visit_model([](const auto& model) -> NumericModel {
    if constexpr (std::decay_t<decltype(model)>::kind == MechanismKind::numeric)
      return model.noise_model();
    else
      throw std::invalid_argument("numeric_model: not a numeric mechanism");
  });
}

MeanEstimate estimate_mean(const Aggregator& a, const NumericModel& model, double confidence) {
  MeanEstimate e;
  const std::uint64_t n = a.reports();
  if (n == 0) return e;
  if (is_tree(model)) {  // hh, haar-hrr: Σ value·leaf of their leaf estimate
    const auto tree = leaf_estimate(model, a.support());
    double centre = 0;
    const std::vector<double> w = centred_values(model, centre);
    e.mean = centre;
    for (std::size_t x = 0; x < w.size(); ++x) e.mean += w[x] * tree->leaves()[x];
    e.standard_error = std::sqrt(tree->linear_variance(w));
    const double z = normal_quantile_two_sided(confidence);
    e.ci_low = e.mean - z * e.standard_error;
    e.ci_high = e.mean + z * e.standard_error;
    return e;
  }
  if (model.sampled_share > 0) {  // dbitflip: Σ value·f̂, centred on the range's midpoint
    const double centre = (model.atom_value.front() + model.atom_value.back()) / 2;
    const std::vector<double> f = sampled_frequencies(a, model);
    std::vector<double> weight(model.size);
    e.mean = centre;
    for (std::uint32_t y = 0; y < model.size; ++y) e.mean += (weight[y] = model.atom_value[y] - centre) * f[y];
    e.standard_error = std::sqrt(sampled_linear_variance(model, weight, plug_in(f), static_cast<double>(n)));
    const double z = normal_quantile_two_sided(confidence);
    e.ci_low = e.mean - z * e.standard_error;
    e.ci_high = e.mean + z * e.standard_error;
    return e;
  }
  const auto& support = a.support();
  const double nd = static_cast<double>(n);
  double sum = 0;
  for (std::uint32_t y = 0; y < model.size; ++y) sum += static_cast<double>(support[y]) * model.score[y];
  e.mean = sum / nd;
  double squares = 0;  // Σ c_y (g_y − mean)², the spread of the scores around their mean
  for (std::uint32_t y = 0; y < model.size; ++y) {
    const double d = model.score[y] - e.mean;
    squares += static_cast<double>(support[y]) * d * d;
  }
  const double sample_variance = n > 1 ? squares / (nd - 1) : 0.0;
  e.standard_error = std::sqrt(sample_variance / nd);
  const double z = normal_quantile_two_sided(confidence);
  e.ci_low = e.mean - z * e.standard_error;
  e.ci_high = e.mean + z * e.standard_error;
  return e;
}

const char* const tree_em_refusal =
    "hh and haar-hrr: em is not available (a report is one level's node or coefficient, not a value): their "
    "estimate is the consistent tree or the inverse transform, post-processed by none, clip, norm-sub or simplex";

ObservationModel observation_model(const NumericModel& model) {
  refuse_mean_only(model);
  if (is_tree(model)) throw std::invalid_argument(tree_em_refusal);
  ObservationModel o;
  o.counts = ObservationModel::Counts::outputs;
  o.items = model.size;
  o.atoms = model.atoms;
  o.kernel = model.kernel;
  o.band = model.band;
  return o;
}

ObservationModel observation_model(const Mechanism& m, const NumericModel& model) {
  return m.deconvolved() ? observation_model(model) : observation_model(m);
}

namespace {
// The post-processed atoms: EM's run, or a step of estimates.hpp.
std::vector<double> postprocess_atoms(std::vector<double> raw, Postprocess post, const BayesianUpdateResult* em) {
  if (post != Postprocess::em) return apply_postprocess(std::move(raw), post);
  return em_distribution(em, raw.size());
}
}  // namespace

std::vector<ItemEstimate> estimate_distribution(const Aggregator& a, const NumericModel& model,
                                                Postprocess post, double confidence,
                                                const BayesianUpdateResult* em) {
  refuse_mean_only(model);
  if (is_tree(model)) {
    if (post == Postprocess::em) throw std::invalid_argument(tree_em_refusal);
    std::vector<ItemEstimate> out(model.atom_count());
    if (a.reports() == 0) return out;
    const auto tree = leaf_estimate(model, a.support());
    for (std::uint32_t x = 0; x < out.size(); ++x) {
      out[x].unbiased_frequency = tree->leaves()[x];
      out[x].standard_error = std::sqrt(tree->range_variance(x, x));
    }
    finish_estimates(out, post, a.reports(), confidence, apply_postprocess(tree->leaves(), post));
    return out;
  }
  if (model.inverse.empty()) return estimate(a, post, confidence, em);  // sd: k-RR over the levels
  const std::uint32_t k = model.size, atoms = model.atom_count();
  const std::uint64_t n = a.reports();
  std::vector<ItemEstimate> out(atoms);
  if (n == 0) return out;
  const double nd = static_cast<double>(n);
  std::vector<double> pi(k), f(atoms, 0.0), second(atoms, 0.0);
  for (std::uint32_t y = 0; y < k; ++y) pi[y] = static_cast<double>(a.support()[y]) / nd;
  for (std::uint32_t y = 0; y < k; ++y) {
    if (pi[y] == 0) continue;
    const double* row = &model.inverse[std::size_t{y} * atoms];
    for (std::uint32_t x = 0; x < atoms; ++x) {
      f[x] += pi[y] * row[x];
      second[x] += pi[y] * row[x] * row[x];
    }
  }
  for (std::uint32_t x = 0; x < atoms; ++x) {
    out[x].unbiased_frequency = f[x];
    out[x].standard_error = std::sqrt(std::max(second[x] - f[x] * f[x], 0.0) / nd);
  }
  finish_estimates(out, post, n, confidence, postprocess_atoms(f, post, em));
  return out;
}

namespace {
// The weights of each reported item in the atoms' unbiased estimate (items × atoms): the model's
// left inverse, or (sd: k-RR over the levels) its kernel's inverse. Refuses what has none.
std::vector<double> atom_weights(const NumericModel& model, const char* what) {
  refuse_mean_only(model);
  if (model.sampled_share > 0)
    throw std::invalid_argument(std::string(what) +
                                ": dbitflip's reports sample buckets; its frequencies are not one linear map of the counts");
  std::vector<double> inverse = model.inverse.empty() ? invert(model.kernel, model.size) : model.inverse;
  if (inverse.empty()) throw std::runtime_error("numeric noise matrix is singular");
  return inverse;
}
}  // namespace

std::vector<ItemEstimate> estimate_bins(const Aggregator& a, const NumericModel& model,
                                        const std::vector<std::uint32_t>& bin_start, Postprocess post,
                                        double confidence, const BayesianUpdateResult* em) {
  refuse_mean_only(model);
  const std::uint32_t k = model.size, atoms = model.atom_count();  // bins group atoms
  const std::uint64_t n = a.reports();
  std::vector<ItemEstimate> out(bin_start.size());
  if (n == 0 || k == 0) return out;
  const double nd = static_cast<double>(n);
  std::vector<std::uint32_t> bin_of(atoms);
  for (std::size_t b = 0; b < bin_start.size(); ++b) {
    const std::uint32_t end = b + 1 < bin_start.size() ? bin_start[b + 1] : atoms;
    for (std::uint32_t x = bin_start[b]; x < end; ++x) bin_of[x] = static_cast<std::uint32_t>(b);
  }
  std::vector<double> atom(atoms, 0.0), second(out.size(), 0.0), row_sum(out.size());
  std::vector<double> variance(out.size(), -1.0);  // dbitflip, hh: each bin's, from the formula
  const bool tree = is_tree(model);
  if (tree) {
    if (post == Postprocess::em) throw std::invalid_argument(tree_em_refusal);
    const auto consistent = leaf_estimate(model, a.support());
    atom = consistent->leaves();
    for (std::size_t b = 0; b < out.size(); ++b) {
      const std::uint32_t end = b + 1 < bin_start.size() ? bin_start[b + 1] : atoms;
      variance[b] = consistent->range_variance(bin_start[b], end - 1);
    }
  } else if (model.sampled_share > 0) {
    atom = sampled_frequencies(a, model);
    const std::vector<double> f = plug_in(atom);
    for (std::size_t b = 0; b < out.size(); ++b) {
      std::vector<double> in_bin(k, 0.0);
      for (std::uint32_t x = 0; x < k; ++x) in_bin[x] = bin_of[x] == b ? 1.0 : 0.0;
      variance[b] = sampled_linear_variance(model, in_bin, f, nd);
    }
  }
  const bool linear = model.sampled_share == 0 && !tree;  // one linear map of the counts
  const std::vector<double> inverse = linear ? atom_weights(model, "estimate_bins") : std::vector<double>{};
  for (std::uint32_t y = 0; y < k && linear; ++y) {
    const double pi = static_cast<double>(a.support()[y]) / nd;
    if (pi == 0) continue;
    const double* row = &inverse[std::size_t{y} * atoms];
    std::fill(row_sum.begin(), row_sum.end(), 0.0);
    for (std::uint32_t x = 0; x < atoms; ++x) {
      atom[x] += pi * row[x];
      row_sum[bin_of[x]] += row[x];
    }
    for (std::size_t b = 0; b < out.size(); ++b) second[b] += pi * row_sum[b] * row_sum[b];
  }
  const std::vector<double> processed = postprocess_atoms(atom, post, em);
  std::vector<double> bin_processed(out.size(), 0.0);
  for (std::uint32_t x = 0; x < atoms; ++x) {
    out[bin_of[x]].unbiased_frequency += atom[x];
    bin_processed[bin_of[x]] += processed[x];
  }
  const double z = normal_quantile_two_sided(confidence);
  for (std::size_t b = 0; b < out.size(); ++b) {
    ItemEstimate& e = out[b];
    e.standard_error = variance[b] >= 0
                           ? std::sqrt(variance[b])
                           : std::sqrt(std::max(second[b] - e.unbiased_frequency * e.unbiased_frequency, 0.0) / nd);
    e.frequency = bin_processed[b];
    e.count = e.frequency * nd;
    std::tie(e.ci_low, e.ci_high) = interval_around(e.unbiased_frequency, e.standard_error, z, e.frequency, post);
  }
  return out;
}

namespace {
// hh's and haar-hrr's expected counts at the leaf distribution f, `per_level` reports per level.
std::vector<std::uint64_t> expected_leaf_counts(const NumericModel& model, const std::vector<double>& f,
                                                double per_level) {
  std::vector<std::uint64_t> support(model.size, 0);
  const auto count = [](double x) { return static_cast<std::uint64_t>(std::llround(x)); };
  if (model.tree.levels() != 0) {
    const TreeLevels& t = model.tree;
    for (std::uint32_t l = 0; l < t.levels(); ++l) {
      const unsigned shift = t.branching_bits * (t.levels() - 1 - l);
      std::vector<double> node(t.nodes[l], 0.0);
      for (std::size_t x = 0; x < f.size(); ++x) node[x >> shift] += f[x];
      for (std::uint32_t i = 0; i < t.nodes[l]; ++i)
        support[t.offset[l] + i] = count(per_level * (t.channel[l].q + node[i] * (t.channel[l].p - t.channel[l].q)));
      support[t.offset[l] + t.nodes[l]] = count(per_level);
    }
    return support;
  }
  const WaveletLevels& w = model.wavelet;
  const std::uint32_t h = w.levels();
  for (std::uint32_t l = 1; l <= h; ++l) {
    const std::uint32_t k = std::uint32_t{1} << (l - 1), below = h - l;
    std::vector<double> theta(k, 0.0);
    for (std::size_t x = 0; x < f.size(); ++x) theta[x >> (below + 1)] += ((x >> below) & 1u) ? -f[x] : f[x];
    walsh_hadamard(theta);  // row j's E[y]/(2p − 1) = Σ_k H[j][k]·θ_k
    for (std::uint32_t j = 0; j < k; ++j) {
      const double plus = (1 + (2 * w.keep - 1) * theta[j]) / 2, rows = per_level / k;
      support[w.offset[l - 1] + 2 * j] = count(rows * plus);
      support[w.offset[l - 1] + 2 * j + 1] = count(rows * (1 - plus));
    }
  }
  return support;
}
}  // namespace

std::vector<double> cdf_standard_errors(const NumericModel& model, double n) {
  refuse_mean_only(model);
  if (model.sampled_share > 0) throw std::invalid_argument("cdf_standard_errors: not for dbitflip");
  const std::uint32_t atoms = model.atom_count();
  std::vector<double> se(atoms > 0 ? atoms - 1 : 0, 0.0);
  if (se.empty()) return se;
  const std::vector<double> f(atoms, 1.0 / atoms);
  if (is_tree(model)) {
    // Every level's variance is inversely proportional to its reports: count many, then scale.
    const std::uint32_t levels = std::max(model.tree.levels(), model.wavelet.levels());
    const double many = 1e9, per_level = n / levels;
    const auto leaves = leaf_estimate(model, expected_leaf_counts(model, f, many));
    for (std::uint32_t t = 0; t < se.size(); ++t) se[t] = std::sqrt(leaves->range_variance(0, t) * many / per_level);
    return se;
  }
  // F̂(t) = Σ_y a_t[y]·π̂_y with a_t[y] = Σ_{x ≤ t} G[y][x], and E[a_t(y) | x] = [x ≤ t] (G·Kᵀ = I):
  // for n devices whose values are spread exactly so, Var = (Σ_y π_y a_t[y]² − F(t))/n — the error
  // against the devices' own values, as for the trees — every t in one pass over the rows of G.
  const std::vector<double> inverse = atom_weights(model, "cdf_standard_errors");
  const std::uint32_t k = model.size;
  std::vector<double> second(se.size(), 0.0);
  for (std::uint32_t y = 0; y < k; ++y) {
    double pi = 0, a = 0;
    for (std::uint32_t x = 0; x < atoms; ++x) pi += f[x] * model.kernel[std::size_t{x} * k + y];
    const double* row = &inverse[std::size_t{y} * atoms];
    for (std::uint32_t t = 0; t < se.size(); ++t) {
      a += row[t];
      second[t] += pi * a * a;
    }
  }
  for (std::uint32_t t = 0; t < se.size(); ++t) {
    const double below = static_cast<double>(t + 1) / atoms;
    se[t] = std::sqrt(std::max(second[t] - below, 0.0) / n);
  }
  return se;
}

double median_cdf_standard_error(const NumericModel& model, double n) {
  const std::vector<double> se = cdf_standard_errors(model, n);
  if (se.empty()) throw std::invalid_argument("median_cdf_standard_error: one row has no CDF to estimate");
  return se[model.atom_count() / 2 - 1];
}

double expected_distribution_w1(const NumericModel& model, double n) {
  const std::vector<double> se = cdf_standard_errors(model, n);
  // W1 = ∫|F̂ − F|: between rows t and t + 1 the CDFs are flat, and E|F̂(t) − F(t)| = √(2/π)·SE for
  // a normal error.
  double w1 = 0;
  for (std::uint32_t t = 0; t < se.size(); ++t) w1 += se[t] * (model.atom_value[t + 1] - model.atom_value[t]);
  return w1 * std::sqrt(2 / std::numbers::pi);
}

double worst_case_score_variance(const NumericModel& model) {
  const std::uint32_t k = model.size;
  if (is_tree(model)) {
    // hh, haar-hrr: the mean's variance times n at N reports per level of an even spread, at the
    // worst data for those counts (LeafEstimate::worst_case_linear_variance).
    const std::uint32_t levels = std::max(model.tree.levels(), model.wavelet.levels());
    const double per_level = 1e6;
    const std::vector<double> even(model.atom_count(), 1.0 / model.atom_count());
    double centre = 0;
    const std::vector<double> w = centred_values(model, centre);
    return leaf_estimate(model, expected_leaf_counts(model, even, per_level))->worst_case_linear_variance(w) *
           per_level * levels;
  }
  if (model.sampled_share > 0) {  // dbitflip: linear in the distribution, so worst at one atom
    const double centre = (model.atom_value[0] + model.atom_value[k - 1]) / 2;
    std::vector<double> a(k), point(k, 0.0);
    for (std::uint32_t x = 0; x < k; ++x) a[x] = model.atom_value[x] - centre;
    double worst = 0;
    for (std::uint32_t x = 0; x < k; ++x) {
      point[x] = 1;
      worst = std::max(worst, sampled_linear_variance(model, a, point, 1.0));
      point[x] = 0;
    }
    return worst;
  }
  // Variances do not change with a shift: centre everything on the range's midpoint, so that
  // E[g²] − μ² does not cancel large numbers far from 0.
  const std::uint32_t atoms = model.atom_count();  // pm: its band starts, not its cells
  const double centre = (model.atom_value[0] + model.atom_value[atoms - 1]) / 2;
  std::vector<double> h(atoms, 0.0);  // E[(g(Y) − centre)² | x]
  for (std::uint32_t x = 0; x < atoms; ++x) {
    if (model.kernel.empty()) {  // pm: E[g | x] is the atom's value
      const double mu = model.atom_value[x] - centre;
      h[x] = model.atom_variance[x] + mu * mu;
      continue;
    }
    for (std::uint32_t y = 0; y < k; ++y) {
      const double g = model.score[y] - centre;
      h[x] += model.kernel[std::size_t{x} * k + y] * g * g;
    }
  }
  double worst = 0;
  for (std::uint32_t a = 0; a < atoms; ++a) {
    const double mu_a = model.atom_value[a] - centre;
    worst = std::max(worst, h[a] - mu_a * mu_a);
    if (!model.rounded || a + 1 == atoms) continue;
    // A value between atoms a and a + 1 is one of them at random, with its own mean: its
    // variance t·h_a + (1 − t)·h_b − (t·μ_a + (1 − t)·μ_b)², at its largest over t ∈ [0, 1].
    const double mu_b = model.atom_value[a + 1] - centre, d = mu_a - mu_b;
    const double t = std::clamp(((h[a] - h[a + 1]) / (2 * d) - mu_b) / d, 0.0, 1.0);
    const double mu = t * mu_a + (1 - t) * mu_b;
    worst = std::max(worst, t * h[a] + (1 - t) * h[a + 1] - mu * mu);
  }
  return worst;
}

}  // namespace tinyldp::collector

namespace tinyldp::collector {


std::vector<CdfPoint> estimate_cdf(const Aggregator& a, const NumericModel& model, Postprocess post,
                                   const BayesianUpdateResult* em) {
  const bool tree = is_tree(model);
  if (tree && post == Postprocess::em) throw std::invalid_argument(tree_em_refusal);
  const std::vector<double> inverse = tree ? std::vector<double>{} : atom_weights(model, "estimate_cdf");
  const std::uint32_t k = model.size, atoms = model.atom_count();
  const std::uint64_t n = a.reports();
  std::vector<CdfPoint> out(atoms);
  for (std::uint32_t x = 0; x < atoms; ++x) out[x].value = model.atom_value[x];
  if (n == 0) return out;
  const double nd = static_cast<double>(n);
  std::vector<double> first(atoms, 0.0), second(atoms, 0.0);
  if (tree) {  // hh, haar-hrr: the leaves' prefix sums, each with its variance as second − first²
    const auto consistent = leaf_estimate(model, a.support());
    for (std::uint32_t x = 0; x < atoms; ++x) {
      first[x] = consistent->range(0, x);
      second[x] = consistent->range_variance(0, x) * nd + first[x] * first[x];
    }
  }
  for (std::uint32_t y = 0; y < k && !tree; ++y) {
    const double pi = static_cast<double>(a.support()[y]) / nd;
    if (pi == 0) continue;
    const double* row = &inverse[std::size_t{y} * atoms];
    double weight = 0;  // a_y(t) = Σ_{x ≤ t} M⁻¹[y][x]
    for (std::uint32_t x = 0; x < atoms; ++x) {
      weight += row[x];
      first[x] += pi * weight;
      second[x] += pi * weight * weight;
    }
  }
  std::vector<double> atom(atoms);
  for (std::uint32_t x = 0; x < atoms; ++x) {
    out[x].unbiased = first[x];
    out[x].standard_error = std::sqrt(std::max(second[x] - first[x] * first[x], 0.0) / nd);
    atom[x] = first[x] - (x > 0 ? first[x - 1] : 0.0);
  }
  if (post == Postprocess::none) {  // the unbiased CDF made a CDF: non-decreasing, in [0, 1]
    double top = 0;
    for (CdfPoint& p : out) p.estimate = top = std::clamp(std::max(top, p.unbiased), 0.0, 1.0);
    return out;
  }
  const std::vector<double> processed = postprocess_atoms(atom, post, em);
  double total = 0, sum = 0;
  for (double f : processed) total += std::max(f, 0.0);
  for (std::uint32_t x = 0; x < atoms; ++x)
    out[x].estimate = total > 0 ? std::min(1.0, (sum += std::max(processed[x], 0.0)) / total) : 0.0;
  return out;
}

std::vector<QuantileEstimate> estimate_quantiles(const std::vector<CdfPoint>& cdf, const std::vector<double>& qs,
                                                 double confidence) {
  if (cdf.empty()) throw std::invalid_argument("estimate_quantiles: no atoms");
  if (!(cdf.back().estimate > 0))  // no reports: every quantile would read as the top value
    throw std::invalid_argument("estimate_quantiles: the CDF is empty (no reports)");
  const double z = normal_quantile_two_sided(confidence);
  std::vector<QuantileEstimate> out;
  for (const double q : qs) {
    if (!(q > 0 && q < 1)) throw std::invalid_argument("estimate_quantiles: q must be in (0, 1)");
    auto first = [&](auto reaches) {
      for (const CdfPoint& p : cdf)
        if (reaches(p)) return p.value;
      return cdf.back().value;
    };
    QuantileEstimate e;
    e.q = q;
    e.value = first([&](const CdfPoint& p) { return p.estimate >= q; });
    e.ci_low = first([&](const CdfPoint& p) { return p.unbiased + z * p.standard_error >= q; });
    e.ci_high = first([&](const CdfPoint& p) { return p.unbiased - z * p.standard_error >= q; });
    e.ci_low = std::min(e.ci_low, e.value);
    e.ci_high = std::max(e.ci_high, e.value);
    out.push_back(e);
  }
  return out;
}

ItemEstimate estimate_range(const Aggregator& a, const NumericModel& model, double lo, double hi, Postprocess post,
                            double confidence, const BayesianUpdateResult* em) {
  if (!(lo <= hi)) throw std::invalid_argument("estimate_range: lo must be at most hi");
  const std::uint32_t atoms = model.atom_count();
  std::uint32_t first = 0;  // the atoms in [lo, hi]: first … last − 1 (ascending values)
  while (first < atoms && model.atom_value[first] < lo) ++first;
  std::uint32_t last = first;
  while (last < atoms && model.atom_value[last] <= hi) ++last;
  if (first == last) {  // no row's value in the range: its share is 0, exactly
    refuse_mean_only(model);
    return {};
  }
  std::vector<std::uint32_t> bin_start{0};  // the range as a bin between its neighbours
  if (first > 0) bin_start.push_back(first);
  if (last < atoms) bin_start.push_back(last);
  return estimate_bins(a, model, bin_start, post, confidence, em)[first > 0 ? 1 : 0];
}

}  // namespace tinyldp::collector
