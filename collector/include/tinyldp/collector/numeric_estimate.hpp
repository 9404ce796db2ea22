// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/numeric_estimate.hpp — the mean and the distribution of a numeric
// attribute from `sd` (stochastic discretization + k-RR) and `dlaplace` (discrete Laplace)
// reports.
//
// Both reduce to a channel from an input atom x to a reported item y with an exactly known
// matrix M[x][y] = Pr[y | x], built from the core's own configuration object:
//  - sd: the atoms are the L levels a value is rounded to (level j stands for
//    lo + j·W/(L − 1)), and M is the k-RR's: p on the diagonal, q elsewhere.
//  - dlaplace: the atoms are the values lo … hi, and M[x][y] is the core's integer noise
//    kernel, clamp included: y − lo = clamp(x − lo + Z, 0, W) with Pr[Z = z] = w(|z|)/2^B for
//    |z| < W and the folded ends tail_low/2^B (z = −W), tail_high/2^B (z = W). The first and
//    last columns therefore collect the tails: M[x][lo] = Pr[Z ≤ −x], M[x][hi] = Pr[Z ≥ W − x].
//    Every row sums to 2^B exactly in integers (dlaplace_kernel, tested against the sampler by
//    enumerating every draw of small configurations).
// Mean: a score g(y) with E[g(Y) | x] = value(x) for every atom x, so μ̂ = (1/n)·Σ g(y_i) is
// unbiased, and its standard error is the sample standard deviation of the scores over √n.
//  - sd: g(y) = lo + W/(L − 1)·(y − q·L(L − 1)/2)/(p − q) (E[Y | j] = q·L(L − 1)/2 + (p − q)·j).
//    Rounding is unbiased up to 2^-B of a level (stochastic_discretization.hpp), so μ̂ is low
//    by less than 2^-B·W/(L − 1): 6e-8 of W at the default B = 24, L = 2.
//  - dlaplace: g = M⁻¹·(lo, …, hi), solved in double (M is well conditioned: its smallest
//    eigenvalue is about (1 − α)/(1 + α) for α = e^(−ε/Δ)).
//  - pm: the atoms are the S band starts, the items the M cells (an S × M kernel), and
//    g(y) = lo + W/(S − 1)·(y·2^b − m·M(M − 1)/2 − (h − m)·W_b(W_b − 1)/2)/((h − m)·W_b): the
//    expected cell is affine in the start (models/piecewise.hpp). No distribution (mean_only).
// Distribution (dlaplace): f̂ = π̂·M⁻¹ with π̂ the reported frequencies — unbiased, with the
// plug-in variance Var f̂_x = (Σ_y π̂_y A[y][x]² − f̂_x²)/n, A = M⁻¹; for sd the level
// distribution is the k-RR frequency estimate (estimates.hpp). Cost: dlaplace O(W³) time and
// 16·(W + 1)² bytes for the inverse (W ≤ max_collector_dlaplace_width), sd O(L). Host only.
#ifndef TINYLDP_COLLECTOR_NUMERIC_ESTIMATE_HPP
#define TINYLDP_COLLECTOR_NUMERIC_ESTIMATE_HPP

#include <cstdint>
#include <vector>

#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/estimates.hpp"
#include "tinyldp/collector/models/numeric_noise.hpp"

namespace tinyldp::collector {

// dlaplace_kernel (models/discrete_laplace.hpp), sd_level_distribution
// (models/stochastic_discretization.hpp), NumericModel (models/numeric_noise.hpp): each numeric
// model's noise, which the estimators below read.

// The model of a numeric mechanism (m.numeric() must hold).
NumericModel numeric_model(const Mechanism& m);

// Why a mean-only mechanism (pm) has no distribution: every distribution estimator (here, EM's
// observation_model, estimates.hpp's estimate) throws it as std::invalid_argument.
extern const char* const mean_only_refusal;

struct MeanEstimate {
  double mean = 0;
  double standard_error = 0;
  double ci_low = 0, ci_high = 0;  // mean ± z·SE (normal interval)
};

MeanEstimate estimate_mean(const Aggregator& a, const NumericModel& model, double confidence = 0.95);

// The distribution over the mechanism's items (sd: levels; dlaplace: values lo … hi).
// `em`: EM's run on this aggregate, needed when post is Postprocess::em (estimates.hpp).
std::vector<ItemEstimate> estimate_distribution(const Aggregator& a, const NumericModel& model,
                                                Postprocess post, double confidence = 0.95,
                                                const BayesianUpdateResult* em = nullptr);

// The distribution summed over bins of consecutive atoms (bin b holds atoms bin_start[b] …
// bin_start[b + 1] − 1; bin_start[0] = 0, ascending) — a long range drawn readably. Each bin's
// unbiased frequency is f̂_B = π̂·(M⁻¹·1_B) with the plug-in variance (Σ_y π̂_y a_y² − f̂_B²)/n,
// a = M⁻¹·1_B: exact for the sum, whose items' errors are correlated (a sum of their variances
// would not be). `frequency` is the sum of the post-processed atoms; the interval as in
// estimates.hpp (em: the sums of the atoms of EM's run `em`). Cost: O(K²) plus, for sd (no
// stored inverse), one O(L³) inversion.
std::vector<ItemEstimate> estimate_bins(const Aggregator& a, const NumericModel& model,
                                        const std::vector<std::uint32_t>& bin_start, Postprocess post,
                                        double confidence = 0.95, const BayesianUpdateResult* em = nullptr);

// The CDF at each atom t: F(t) = the share of values at or below atom t's value. `unbiased` is
// Σ_{x ≤ t} f̂_x with its exact plug-in standard error (the atoms' errors are correlated: the
// sum's weights a_y(t) = Σ_{x ≤ t} M⁻¹[y][x] give (Σ_y π̂_y a_y(t)² − F̂(t)²)/n, as estimate_bins);
// `estimate` the post-processed one (em: EM's run; none: the unbiased one made monotone and
// clamped to [0, 1]). Cost O(K·atoms) after the inverse (sd: one O(L³) inversion). Not for
// dbitflip or the mean-only mechanisms (refused).
struct CdfPoint {
  double value = 0;     // the atom's value
  double estimate = 0;  // non-decreasing, in [0, 1]
  double unbiased = 0;
  double standard_error = 0;
};
std::vector<CdfPoint> estimate_cdf(const Aggregator& a, const NumericModel& model, Postprocess post,
                                   const BayesianUpdateResult* em = nullptr);

// The q-quantile, for each q in (0, 1): the smallest atom value whose estimated CDF reaches q,
// and a confidence interval by inverting the CDF's pointwise test — from the first atom where
// F̂(t) + z·SE(t) ≥ q to the first where F̂(t) − z·SE(t) ≥ q (the range's top if none): the
// values t at which "F(t) ≥ q" is not rejected at that level — widened to hold the estimate when
// the post-processed CDF puts it outside. Coverage is tested (tests/collector/test_numeric.cpp:
// sw, ε = 2, 20 000 reports); with few reports far in a tail (p99 of 2 000) the CDF's normal
// approximation fails and the interval under-covers. An empty CDF (no reports) is refused.
struct QuantileEstimate {
  double q = 0;
  double value = 0;
  double ci_low = 0, ci_high = 0;
};
std::vector<QuantileEstimate> estimate_quantiles(const std::vector<CdfPoint>& cdf, const std::vector<double>& qs,
                                                 double confidence = 0.95);

// The share of values in [lo, hi] (the rows whose value lies in it): estimate_bins' bin of those
// rows — unbiased with its standard error, post-processed, an interval; all 0 when no row's
// value lies in the range.
ItemEstimate estimate_range(const Aggregator& a, const NumericModel& model, double lo, double hi, Postprocess post,
                            double confidence = 0.95, const BayesianUpdateResult* em = nullptr);

// The numeric model as EM's observation model: a report is one item, Pr[y | x] its kernel.
ObservationModel observation_model(const NumericModel& model);
// observation_model(m) — what the estimators' EM is over: the kernel of `model` (m's numeric
// model, built already: dlaplace's costs O(W³)) when m is deconvolved through it, else m's channel.
ObservationModel observation_model(const Mechanism& m, const NumericModel& model);

// dbitflip (model.sampled_share > 0): Var(Σ a_y f̂_y) at the distribution f over n reports
// (see NumericModel).
double sampled_linear_variance(const NumericModel& model, const std::vector<double>& a,
                               const std::vector<double>& f, double n);

// What quantiles, ranges and distributions rest on, before any report: the standard error of
// the CDF F(t) (the share at rows 0 … t) at every row t < atoms − 1 for n reports of values spread
// evenly over the rows — the exact plug-in variance of estimate_cdf's unbiased CDF at that
// distribution (hh and haar-hrr: their leaf estimates' at its expected counts; haar-hrr's an upper
// bound, wavelet_estimate.hpp). O(rows × cells) for a kernel, O(rows × B·h) for a tree. Refuses
// the mean-only mechanisms (std::invalid_argument) and dbitflip.
std::vector<double> cdf_standard_errors(const NumericModel& model, double n);
// Its middle row's (F ≈ ½): `plan --for quantiles` ranks by it.
double median_cdf_standard_error(const NumericModel& model, double n);
// The expected Wasserstein-1 distance (in the value's units) of that unbiased CDF from the true
// one: √(2/π)·Σ_t SE(F(t))·(x_{t+1} − x_t), each F̂(t)'s error taken as normal. `plan --for
// distribution` ranks by it. Post-processing (EM, the consistent tree) lands closer; this is
// the unbiased estimate's figure, the same kind for every mechanism.
double expected_distribution_w1(const NumericModel& model, double n);

// The largest variance the noise gives one report's score, over every value: the mean's error
// against the reporting devices' own mean is at most √(this/n) at n reports, whatever their
// values (their spread is no error of the mechanism's, and every mechanism would add the same
// sampling error for a larger population). pm's worst is at the range's ends, Duchi's (sd, two
// levels) in its middle.
double worst_case_score_variance(const NumericModel& model);

}  // namespace tinyldp::collector

#endif
