// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/estimates.hpp — frequencies with standard errors, confidence intervals
// and optional consistency post-processing, from an aggregator's support counts.
//
// Raw estimates are unbiased: f̂(i) = ĉ(i)/n with ĉ(i) = (C(i) − nq)/(p − q). Their standard
// error uses the plug-in variance [ĉ p(1−p) + (n − ĉ) q(1−q)]/(p − q)² with ĉ clipped to
// [0, n]; intervals are normal (f̂ ± z·SE). Post-processing (post-processing never costs
// privacy) makes the frequencies a distribution:
//  - clip:      negatives → 0, then rescale to sum 1 (clip-and-renormalize);
//  - norm-sub:  subtract the same δ from every positive entry and clip at 0, iterating until
//               the entries sum to 1 (Wang et al.'s Norm-Sub);
//  - simplex:   the Euclidean projection onto the probability simplex (sort-based). When the
//               positive entries sum to at least 1 it is the same point as norm-sub (a test
//               checks this); otherwise it may also lift slightly negative entries.
//  - em:        the maximum-likelihood distribution by EM from the support counts
//               (bayesian_update.hpp): a function of the counts, not of the frequencies alone,
//               so never apply_postprocess. The caller runs it once per aggregate and hands
//               the run to every estimator (estimate, estimate_distribution, estimate_bins),
//               which only read it.
// Every item carries both: the unbiased estimate with its standard error, and the answer —
// `frequency`, post-processed when asked, with `count` = frequency·n. Its interval contains it:
// without post-processing the normal interval of the unbiased estimate; with it, that interval
// cut to [0, 1] (where every true frequency lies) and stretched to reach the post-processed
// value, so it covers the truth whenever the normal interval does. Host only.
#ifndef TINYLDP_COLLECTOR_ESTIMATES_HPP
#define TINYLDP_COLLECTOR_ESTIMATES_HPP

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/bayesian_update.hpp"

namespace tinyldp::collector {

enum class Postprocess { none, clip, norm_sub, simplex, em };
std::optional<Postprocess> postprocess_from_name(std::string_view name);
const char* name_of(Postprocess p);

struct ItemEstimate {
  double count = 0;                // frequency · n: how many reporters hold the item
  double frequency = 0;            // post-processed (the unbiased estimate if none)
  double unbiased_frequency = 0;   // unbiased: ĉ/n before post-processing
  double standard_error = 0;       // of the unbiased frequency
  double ci_low = 0, ci_high = 0;  // contains frequency (see above)
};

// z such that P(|Z| ≤ z) = confidence for a standard normal Z (0 < confidence < 1).
double normal_quantile_two_sided(double confidence);

// Categorical mechanisms and sd (its levels: a k-RR channel); dlaplace goes through
// estimate_distribution (numeric_estimate.hpp), which inverts the noise kernel. `em`: EM's run
// on this aggregate (bayesian_update), needed when post is Postprocess::em and there are
// reports (std::invalid_argument without it, or with another number of items).
// An aggregate that pools epochs of a memoized mechanism (Aggregator::pool_epochs) counts
// several reports of one device, which share its memo: the most ordered pairs of reports that
// can come from one device in two epochs, Σ_{r≠s} min(n_r, n_s) over the epochs' report counts
// (every device of the smaller epoch also reporting in the larger). estimate() adds that many
// times the memo covariance (MemoCovariance, with the estimate's frequency) to each item's
// variance: exact for a fleet that reports every epoch with unchanged values, an upper bound
// when values change or devices miss epochs (their reports then share fewer memos). 0 for an
// aggregate of one epoch.
double same_device_pairs(const Aggregator& aggregator);

std::vector<ItemEstimate> estimate(const Aggregator& aggregator, Postprocess post,
                                   double confidence = 0.95, const BayesianUpdateResult* em = nullptr);

// The distribution `em` holds for an estimate of `items` items: the check every estimator makes.
const std::vector<double>& em_distribution(const BayesianUpdateResult* em, std::size_t items);

// Fills count, frequency and the interval of estimates whose unbiased_frequency and
// standard_error are set (n reports), as described above (post is not em).
void finish_estimates(std::vector<ItemEstimate>& items, Postprocess post, std::uint64_t n,
                      double confidence);
// The same with the post-processed frequencies given (em's, which need the counts).
void finish_estimates(std::vector<ItemEstimate>& items, Postprocess post, std::uint64_t n,
                      double confidence, const std::vector<double>& postprocessed);
// The interval at z standard errors around an unbiased value, cut to [0, 1] and stretched to
// contain the post-processed value unless post is none.
std::pair<double, double> interval_around(double unbiased, double standard_error, double z,
                                          double postprocessed, Postprocess post);

// The post-processing steps on their own (frequencies summing to about 1); apply_postprocess
// refuses em (std::invalid_argument: it needs the counts).
std::vector<double> clip_and_renormalize(std::vector<double> f);
std::vector<double> norm_sub(std::vector<double> f);
std::vector<double> project_onto_simplex(std::vector<double> f);
// The Euclidean projection onto {f ≥ 0, Σ f ≤ 1}: negatives to 0, then, if they still sum to
// more than 1, the projection onto the simplex (for non-negative entries, norm-sub). For
// frequencies of candidates that need not cover every value (Bloom filters, bloom_decode.hpp):
// the truth lies in that set, so the answer is never farther from it than f.
std::vector<double> project_onto_capped_simplex(std::vector<double> f);
std::vector<double> apply_postprocess(std::vector<double> raw, Postprocess post);

}  // namespace tinyldp::collector

#endif
