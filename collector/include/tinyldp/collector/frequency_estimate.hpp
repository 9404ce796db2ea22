// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/frequency_estimate.hpp — unbiased frequency estimates from support counts.
//
// Every frequency oracle in the core reduces, on the collector, to a channel: a report
// "supports" item i with probability p if the device's value was i, and q otherwise
// (RR: support for bit 1; k-RR: report == i; UE: bit i set). With C(i) the number of n reports
// supporting i:  ĉ(i) = (C(i) − n·q)/(p − q), unbiased, with
//   Var ĉ(i) = [c_i·p(1−p) + (n − c_i)·q(1−q)] / (p − q)²   (c_i the true count), which for an
//   item nobody holds is the textbook n·q(1−q)/(p−q)².
// p and q are the *realized* probabilities (the Dyadics the device used), converted exactly to
// double. A report may also support an item by an integer amount instead of 0 or 1 (SHE: its
// component y_i + T): then p and q are the expected support given value i and given another
// value, the estimator is the same, and the variances p(1−p), q(1−q) of one report's 0/1
// support become the channel's var_p and var_q. Host only. Cost: O(d) time and memory per
// estimate.
#ifndef TINYLDP_COLLECTOR_FREQUENCY_ESTIMATE_HPP
#define TINYLDP_COLLECTOR_FREQUENCY_ESTIMATE_HPP

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "tinyldp/krr.hpp"
#include "tinyldp/probability.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace tinyldp::collector {

// Exact for bits ≤ 53 (default-precision probabilities have ≤ 30); correctly rounded above.
inline double to_double(Dyadic p) { return std::ldexp(static_cast<double>(p.num), -p.bits); }
inline double to_double(Epsilon e) { return std::ldexp(static_cast<double>(e.q32), -32); }

struct Channel {
  double p = 0;  // Pr[report supports i | value i] (E[support of i | value i])
  double q = 0;  // Pr[report supports i | value j ≠ i] (E[support of i | value j ≠ i])
  // Var[support of i] given value i, given value j ≠ i; negative: 0/1 support, p(1−p), q(1−q).
  double var_p = -1;
  double var_q = -1;
  double variance_p() const { return var_p >= 0 ? var_p : p * (1 - p); }
  double variance_q() const { return var_q >= 0 ? var_q : q * (1 - q); }
};

inline Channel channel_of(const BinaryRr& rr) {
  const double p = to_double(rr.keep_probability());
  return {p, 1.0 - p};
}
inline Channel channel_of(const KaryRr& krr) {
  const double q = to_double(krr.other_probability());
  return {std::ldexp(static_cast<double>(krr.keep_numerator()), -krr.other_probability().bits), q};
}
inline Channel channel_of(const UnaryEncoding& ue) { return {to_double(ue.p()), to_double(ue.q())}; }

struct FrequencyEstimate {
  std::vector<double> count;     // unbiased estimate of each item's count
  std::vector<double> variance;  // its variance for an item nobody holds: n·q(1−q)/(p−q)²
                                 // (n·var_q/(p−q)² for integer support)
  std::uint64_t reports = 0;
};

inline double estimate_count(std::uint64_t support, std::uint64_t n, Channel ch) {
  return (static_cast<double>(support) - static_cast<double>(n) * ch.q) / (ch.p - ch.q);
}

// Variance of ĉ(i) when the true count of i is true_count.
inline double count_variance(std::uint64_t n, double true_count, Channel ch) {
  const double d = ch.p - ch.q;
  const double others = static_cast<double>(n) - true_count;
  // In the original evaluation order for 0/1 support, so those estimates stay bit-identical.
  const double held = ch.var_p >= 0 ? true_count * ch.var_p : true_count * ch.p * (1 - ch.p);
  const double rest = ch.var_q >= 0 ? others * ch.var_q : others * ch.q * (1 - ch.q);
  return (held + rest) / (d * d);
}

inline FrequencyEstimate estimate_frequencies(std::span<const std::uint64_t> support,
                                              std::uint64_t n, Channel ch) {
  FrequencyEstimate e;
  e.reports = n;
  e.count.reserve(support.size());
  e.variance.assign(support.size(), count_variance(n, 0.0, ch));
  for (std::uint64_t c : support) e.count.push_back(estimate_count(c, n, ch));
  return e;
}

}  // namespace tinyldp::collector

#endif
