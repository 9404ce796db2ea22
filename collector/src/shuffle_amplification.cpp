// SPDX-License-Identifier: Apache-2.0
// FMT21's bounds (shuffle_amplification.hpp), reimplemented from the paper.
//
// How the numerical bound stays an upper bound while summing little:
//  - only the c of C ~ Bin(n − 1, e^−ε₀) in a window [first, last] are summed; the mass below
//    and above it is bounded by Chernoff (exp(−N·KL(k/N ‖ p))) and counted against us: the mass
//    below at the largest divergence any c has (κ_prev below), the mass above at D_{last+1};
//  - D_c falls as c grows (one more clone is one more independent Bern(½) added to both
//    coordinates: post-processing), so a block of consecutive c is bounded above by its first
//    c's divergence and below by the next block's first: the blocks are as wide as keeps the
//    bracket within about 10⁻³ of δ, and at most 2048 divergences are computed per δ(ε);
//  - D_c itself is a sum of positive terms over one binomial tail, from the first positive
//    one (the threshold is closed-form), each term O(1) from the previous; it stops when a
//    geometric bound of what is left is below 10⁻¹² of the sum, and that bound is added to the
//    upper end;
//  - every binomial probability is Loader's saddle-point form (absolute error of its logarithm
//    ~10⁻¹⁴ whatever n), and the final δ bracket is widened by 10⁻⁹ relative to cover rounding.
// D(P‖Q) = D(Q‖P): P(x) = Q(c + 1 − x), Bin(c, ½) being symmetric, so one direction is summed.
#include "tinyldp/collector/shuffle_amplification.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace tinyldp::collector {
namespace {

constexpr double ln_sqrt_2pi = 0.918938533204672741780329736406;
constexpr double largest_epsilon0 = 700;    // e^−ε₀ stays a normal double
constexpr double divergence_tail = 1e-12;   // D_c's sum stops when what is left is below this share
constexpr double block_bracket = 1e-3;      // a block's share of δ's bracket, relative
constexpr std::uint64_t most_divergences = 2048;
constexpr double rounding_margin = 1e-9;    // relative, on both ends of δ's bracket
constexpr double window_share_of_delta = 1e-6;  // C's mass left outside the window, relative to δ

// ln(k!) − ln(√(2πk) (k/e)^k): Loader (2000), "Fast and accurate computation of binomial
// probabilities"; the series from k = 16 on, exact below.
double stirling_error(double k) {
  if (k < 16) return std::lgamma(k + 1) - (k + 0.5) * std::log(k) + k - ln_sqrt_2pi;
  const double k2 = k * k;
  constexpr double s0 = 1.0 / 12, s1 = 1.0 / 360, s2 = 1.0 / 1260, s3 = 1.0 / 1680, s4 = 1.0 / 1188;
  if (k > 500) return (s0 - s1 / k2) / k;
  if (k > 80) return (s0 - (s1 - s2 / k2) / k2) / k;
  if (k > 35) return (s0 - (s1 - (s2 - s3 / k2) / k2) / k2) / k;
  return (s0 - (s1 - (s2 - (s3 - s4 / k2) / k2) / k2) / k2) / k;
}

// x ln(x / mean) + mean − x, without cancellation when x is near the mean (Loader's bd0).
double deviance(double x, double mean) {
  if (std::fabs(x - mean) < 0.1 * (x + mean)) {
    const double v = (x - mean) / (x + mean);
    double sum = (x - mean) * v, power = 2 * x * v;
    const double v2 = v * v;
    for (int j = 1; j < 1000; ++j) {
      power *= v2;
      const double next = sum + power / (2 * j + 1);
      if (next == sum) return sum;
      sum = next;
    }
    return sum;
  }
  return x * (std::log(x) - std::log(mean)) + mean - x;
}

// ln Pr[Bin(trials, p) = k], q = 1 − p given separately (each to full precision).
double log_binomial_pmf(std::uint64_t trials, std::uint64_t k, double p, double q) {
  const double N = static_cast<double>(trials), x = static_cast<double>(k);
  if (k == 0) return N * std::log(q);
  if (k == trials) return N * std::log(p);
  const double y = N - x;
  return stirling_error(N) - stirling_error(x) - stirling_error(y) - deviance(x, N * p) - deviance(y, N * q) +
         0.5 * std::log(N / (x * y)) - ln_sqrt_2pi;
}

void check_epsilon0_and_n(double epsilon0, std::uint64_t n) {
  if (!(epsilon0 >= 0) || !std::isfinite(epsilon0))
    throw std::invalid_argument("epsilon0 " + std::to_string(epsilon0) + ": a local epsilon is finite and ≥ 0");
  if (epsilon0 > largest_epsilon0)
    throw std::invalid_argument("epsilon0 " + std::to_string(epsilon0) +
                                ": above 700 a report is no privacy to amplify (e^-epsilon0 underflows)");
  if (n == 0) throw std::invalid_argument("a shuffled batch holds at least one report (n = 0)");
}

void check_delta(double delta) {
  if (!(delta > 0 && delta < 1))
    throw std::invalid_argument("delta " + std::to_string(delta) + ": it must lie in (0, 1)");
}

// N·KL(k/N ‖ p): Chernoff's exponent, Pr[C ≤ k] (k below the mean) or Pr[C ≥ k] (above) at
// most its exp(−·). p = e^−ε₀ is passed as its logarithm so that huge ε₀ lose nothing.
double chernoff_exponent(std::uint64_t trials, std::uint64_t k, double log_p, double log_q) {
  const double N = static_cast<double>(trials), a = static_cast<double>(k) / N;
  const double below = a > 0 ? a * (std::log(a) - log_p) : 0;
  const double above = a < 1 ? (1 - a) * (std::log1p(-a) - log_q) : 0;
  return N * (below + above);
}

// The distribution of C ~ Bin(n − 1, e^−ε₀) over the c that matter, and the mass outside.
struct CloneWeights {
  std::uint64_t first = 0;
  std::vector<double> weight;  // Pr[C = first + i]
  double below = 0, above = 0;  // upper bounds of Pr[C < first] and Pr[C > last]
  std::uint64_t last() const { return first + weight.size() - 1; }
};

CloneWeights clone_weights(std::uint64_t n, double epsilon0, double outside_budget) {
  const std::uint64_t trials = n - 1;
  const double log_p = -epsilon0, log_q = std::log(-std::expm1(-epsilon0));
  const double p = std::exp(log_p), q = -std::expm1(-epsilon0);
  CloneWeights w;
  std::uint64_t last = trials;
  if (trials > 0) {
    const double needed = -std::log(outside_budget);
    const double mean = static_cast<double>(trials) * p;
    const auto floor_mean = static_cast<std::uint64_t>(std::floor(mean));
    const std::uint64_t ceil_mean = std::min(trials, static_cast<std::uint64_t>(std::ceil(mean)));
    // The largest k ≤ mean whose lower tail Pr[C ≤ k] is within the budget: the window starts after it.
    if (const double at_zero = chernoff_exponent(trials, 0, log_p, log_q); at_zero >= needed && floor_mean > 0) {
      std::uint64_t lo = 0, hi = floor_mean;  // exponent(lo) ≥ needed > exponent(hi)
      while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (chernoff_exponent(trials, mid, log_p, log_q) >= needed ? lo : hi) = mid;
      }
      w.first = lo + 1;
      w.below = std::exp(-chernoff_exponent(trials, lo, log_p, log_q));
    }
    // The smallest k ≥ mean whose upper tail Pr[C ≥ k] is within the budget: the window ends before it.
    if (const double at_all = chernoff_exponent(trials, trials, log_p, log_q); at_all >= needed) {
      std::uint64_t lo = ceil_mean, hi = trials;  // exponent(lo) < needed ≤ exponent(hi)
      if (chernoff_exponent(trials, lo, log_p, log_q) >= needed) hi = lo;
      while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (chernoff_exponent(trials, mid, log_p, log_q) >= needed ? hi : lo) = mid;
      }
      last = hi - 1;
      w.above = std::exp(-chernoff_exponent(trials, hi, log_p, log_q));
    }
  }
  w.weight.reserve(last - w.first + 1);
  for (std::uint64_t c = w.first; c <= last; ++c) w.weight.push_back(std::exp(log_binomial_pmf(trials, c, p, q)));
  return w;
}

// The two coefficients of P(x) − e^ε Q(x) = κ_prev·b(x − 1) + κ_this·b(x), b = Bin(c, ½)'s
// pmf, and the ratio r = −κ_this/κ_prev the term is positive above: b(x−1)/b(x) > r.
struct DivergenceTerms {
  double kappa_prev = 0, kappa_this = 0, ratio = 1;
  DivergenceTerms(double epsilon0, double epsilon) {
    const double scale = 1 + std::exp(-epsilon0);  // e^ε₀ + 1 over e^ε₀: no overflow for large ε₀
    kappa_prev = -std::expm1(epsilon - epsilon0) / scale;
    kappa_this = (std::exp(-epsilon0) - std::exp(epsilon)) / scale;
    ratio = (std::expm1(epsilon) - std::expm1(-epsilon0)) / -std::expm1(epsilon - epsilon0);
  }
};

// D_c(ε) = Σ_x max(0, P(x) − e^ε Q(x)) given c clones: the terms from the first positive one,
// x = ⌊r(c+1)/(1+r)⌋ + 1, up; stopped when a geometric bound of the rest is negligible (it is
// added to `upper`), looked at every 8 terms.
Bracket divergence_given_clones(std::uint64_t c, const DivergenceTerms& t) {
  if (!(t.kappa_prev > 0)) return {};
  const double cd = static_cast<double>(c);
  const double threshold = (cd + 1) * t.ratio / (1 + t.ratio);
  auto x = std::min<std::uint64_t>(c + 1, static_cast<std::uint64_t>(std::floor(threshold)) + 1);
  x = std::max<std::uint64_t>(x, 1);
  double before = std::exp(log_binomial_pmf(c, x - 1, 0.5, 0.5));  // b(x − 1)
  double sum = 0;
  for (;;) {
    for (int k = 0; k < 8; ++k, ++x) {
      if (x > c) return {sum + t.kappa_prev * before, sum + t.kappa_prev * before};  // x = c + 1: b(x) = 0
      const double xd = static_cast<double>(x);
      const double at = before * (cd - xd + 1) / xd;  // b(x)
      sum += std::max(0.0, t.kappa_prev * before + t.kappa_this * at);
      before = at;
    }
    // What is left, Σ_{y≥x} term(y) ≤ κ_prev·Σ_{y≥x−1} b(y) ≤ κ_prev·b(x−1)/(1 − ρ), ρ = b(x)/b(x−1):
    // the ratio only falls from here (x > (c + 1)/2).
    const double xd = static_cast<double>(x);
    const double rho = (cd - xd + 1) / xd;
    if (rho < 1) {
      const double rest = t.kappa_prev * before / (1 - rho);
      if (rest <= divergence_tail * sum || before == 0) return {sum, sum + rest};
    }
  }
}

Bracket delta_bracket(const CloneWeights& w, double epsilon0, double epsilon) {
  if (epsilon >= epsilon0) return {};  // κ_prev ≤ 0: P ≤ e^ε Q everywhere
  const DivergenceTerms t(epsilon0, epsilon);
  const std::uint64_t first = w.first, count = w.weight.size(), after = w.last() + 1;
  // Blocks as wide as keeps each within block_bracket of its share: D falls by ln(D_first/D_after)
  // over the window, roughly evenly.
  const Bracket at_first = divergence_given_clones(first, t), at_after = divergence_given_clones(after, t);
  std::uint64_t blocks = std::min<std::uint64_t>(most_divergences, count);
  if (at_after.lower > 0 && at_first.upper > at_after.lower)
    blocks = std::min<std::uint64_t>(
        blocks, 1 + static_cast<std::uint64_t>(std::ceil(std::log(at_first.upper / at_after.lower) / block_bracket)));
  const std::uint64_t width = (count + blocks - 1) / blocks;
  Bracket delta;
  Bracket start = at_first;
  for (std::uint64_t b = 0; b < count; b += width) {
    const std::uint64_t end = std::min(count, b + width);
    const Bracket next = end == count ? at_after : divergence_given_clones(first + end, t);
    double mass = 0;
    for (std::uint64_t i = b; i < end; ++i) mass += w.weight[i];
    delta.upper += mass * start.upper;
    delta.lower += mass * (width == 1 ? start.lower : next.lower);  // one c: its own divergence
    start = next;
  }
  delta.upper += w.below * t.kappa_prev + w.above * at_after.upper;  // D_c ≤ κ_prev for every c
  delta.upper = std::min(1.0, delta.upper * (1 + rounding_margin));
  delta.lower *= 1 - rounding_margin;
  return delta;
}

// A search's stopping width at ε (relative 10⁻⁷, and absolute 10⁻¹² near 0).
double epsilon_tolerance(double epsilon) { return 1e-7 * epsilon + 1e-12; }

// The bracket [a, b] of where `excess` (ln δ_x(ε) − ln δ, falling in ε) changes sign, narrowed to
// epsilon_tolerance: excess(a) > 0 ≥ excess(b) throughout. Illinois steps (regula falsi that
// halves a stale end's value), a bisection every fourth step so that the width at least halves.
template <class Excess>
Bracket narrow_sign_change(const Excess& excess, double a, double excess_a, double b, double excess_b) {
  int stale = 0;  // which end the last step kept: −1 a moved, +1 b moved
  for (int step = 0; b - a > epsilon_tolerance(b); ++step) {
    const double margin = 0.25 * epsilon_tolerance(b);
    double c = 0.5 * (a + b);
    if (step % 4 != 3 && std::isfinite(excess_b)) c = b - excess_b * (b - a) / (excess_b - excess_a);
    c = std::clamp(c, a + margin, b - margin);
    const double at = excess(c);
    if (at > 0) {
      a = c, excess_a = at;
      if (stale == -1) excess_b *= 0.5;
      stale = -1;
    } else {
      b = c, excess_b = at;
      if (stale == +1) excess_a *= 0.5;
      stale = +1;
    }
  }
  return {a, b};
}

}  // namespace

std::optional<double> closed_form_epsilon(double epsilon0, std::uint64_t n, double delta) {
  check_epsilon0_and_n(epsilon0, n);
  check_delta(delta);
  const double log_term = std::log(4 / delta), nd = static_cast<double>(n);
  if (epsilon0 > std::log(nd / (16 * log_term))) return std::nullopt;
  const double a = 8 * std::sqrt(std::exp(epsilon0) * log_term / nd), c = 8 * std::exp(epsilon0) / nd;
  const double shrink = -std::expm1(-epsilon0) / (1 + std::exp(-epsilon0 - std::log1p(a + c)));
  return std::log1p(shrink * (a + c));
}

Bracket numerical_delta(double epsilon0, std::uint64_t n, double epsilon) {
  check_epsilon0_and_n(epsilon0, n);
  if (!(epsilon >= 0) || !std::isfinite(epsilon))
    throw std::invalid_argument("epsilon " + std::to_string(epsilon) + ": it must be finite and ≥ 0");
  if (n > max_numerical_batch)
    throw std::invalid_argument("n = " + std::to_string(n) + ": the numerical bound is computed up to n = 10^10");
  return delta_bracket(clone_weights(n, epsilon0, 1e-18), epsilon0, epsilon);
}

Bracket numerical_epsilon(double epsilon0, std::uint64_t n, double delta) {
  check_epsilon0_and_n(epsilon0, n);
  check_delta(delta);
  if (n > max_numerical_batch)
    throw std::invalid_argument("n = " + std::to_string(n) + ": the numerical bound is computed up to n = 10^10");
  if (epsilon0 == 0) return {};
  const CloneWeights w = clone_weights(n, epsilon0, window_share_of_delta * delta);
  const auto delta_at = [&](double epsilon) { return delta_bracket(w, epsilon0, epsilon); };
  const double log_delta = std::log(delta);
  const auto upper_excess = [&](double epsilon) { return std::log(delta_at(epsilon).upper) - log_delta; };
  const auto lower_excess = [&](double epsilon) { return std::log(delta_at(epsilon).lower) - log_delta; };
  Bracket result;
  // upper: the smallest ε the upper δ certifies (δ_upper(ε₀) = 0). The closed form, where it
  // holds, is a head start, taken only once checked.
  const double at_zero = upper_excess(0);
  if (at_zero <= 0) return result;  // no amplification needed: ε = 0 already certified
  double hi = epsilon0, at_hi = -HUGE_VAL;
  if (const auto closed = closed_form_epsilon(epsilon0, n, delta); closed && *closed < hi)
    if (const double at = upper_excess(*closed); at <= 0) hi = *closed, at_hi = at;
  result.upper = narrow_sign_change(upper_excess, 0, at_zero, hi, at_hi).upper;
  // lower: the largest ε whose lower δ still exceeds δ — the analysis' exact ε lies above it;
  // first tried just below the upper end.
  double lo = 0, at_lo = lower_excess(0);
  if (at_lo <= 0) return result;
  if (const double near = result.upper * (1 - 1e-4), at = lower_excess(near); at > 0) lo = near, at_lo = at;
  result.lower = narrow_sign_change(lower_excess, lo, at_lo, result.upper, lower_excess(result.upper)).lower;
  return result;
}

ShuffledEpsilon shuffled_epsilon(double epsilon0, std::uint64_t n, double delta) {
  ShuffledEpsilon s;
  s.epsilon0 = epsilon0;
  s.n = n;
  s.delta = delta;
  s.closed_form = closed_form_epsilon(epsilon0, n, delta);
  if (n <= max_numerical_batch) s.numerical = numerical_epsilon(epsilon0, n, delta);
  return s;
}

}  // namespace tinyldp::collector
