// SPDX-License-Identifier: Apache-2.0
// EM on whole record reports (joint.hpp's estimate_em).
//
// One EM step maps P to P'(ω) = P(ω) · (1/N) Σ_g n_g L_g(ω) / d_g with d_g = Σ_ω P(ω) L_g(ω). It
// runs as two passes over (distinct patterns × alive cells), each sum taken in one fixed order
// whatever the thread count, so 1 and 2 threads give the same iterates bit for bit:
//  - E pass: every pattern's d_g, summed tile by tile of cells (threads split the patterns);
//  - M pass: every cell's Σ_g (n_g / d_g) L_g(ω), patterns in order (threads split the cells).
// The fast kernel: when the chosen attributes share one channel, L_g(ω) = r1^m r0^(k−m) with m
// the number of ω's k bits set in pattern g, m = popcount(y_g & mask(ω)) over the pattern's
// packed 64-bit words, so a pair costs an AND, a popcount and a table look-up. Attributes of
// different channels (or `reference_kernel`) use the per-cell product Π_j r_j(y_{g, o_j + ω_j}).
//
// Acceleration: SQUAREM (Varadhan & Roland 2008, scheme S3): from x, x1 = F(x), x2 = F(x1),
// r = x1 − x, v = x2 − 2·x1 + x, α = −‖r‖/‖v‖ clamped to [−α_max, −1], x' = x − 2αr + α²v,
// then one EM step from x'. Safeguards: α is halved towards −1 while x' leaves the simplex or its
// log-likelihood falls below x1's; α = −1 is x' = x2, an EM iterate, which is always accepted,
// so the accepted sequence's likelihood never decreases. α_max starts at 1 and grows ×4 each
// time α reaches it.
#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <thread>

#include "joint_cells.hpp"
#include "tinyldp/collector/joint.hpp"

// The fast kernel with the popcount instruction where the CPU has it (GCC/Clang pick the clone
// at load time); the portable software popcount elsewhere.
#if defined(__x86_64__) && defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
#define TINYLDP_POPCOUNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define TINYLDP_POPCOUNT_CLONES
#endif

namespace tinyldp::collector {

namespace {

// Cells per tile: a tile's masks and probabilities stay in the L1 cache across the patterns.
constexpr std::size_t tile_cells = 1024;
// Below this many (pattern, cell) pairs per pass, a second thread costs more than it saves.
constexpr std::size_t pairs_worth_a_thread = std::size_t{1} << 17;

// Runs body(first, last) over [0, n) in `threads` contiguous slices (one if not worth it).
template <class Body>
void in_slices(std::size_t n, unsigned threads, bool worth_it, Body body) {
  if (!worth_it || threads <= 1 || n < 2) {
    body(std::size_t{0}, n);
    return;
  }
  std::vector<std::thread> pool;
  const std::size_t step = (n + threads - 1) / threads;
  for (unsigned t = 1; t < threads; ++t) {
    const std::size_t first = std::min(n, t * step), last = std::min(n, first + step);
    pool.emplace_back([&body, first, last] { body(first, last); });
  }
  body(0, std::min(n, step));
  for (auto& th : pool) th.join();
}

// Σ_c p[c] · table[popcount(y & mask[c])] over n cells of one 64-bit word (four partial sums in
// a fixed order: deterministic, and not serialized on one addition's latency).
TINYLDP_POPCOUNT_CLONES
double weighted_sum_one_word(std::uint64_t y, const std::uint64_t* mask, const double* p, std::size_t n,
                             const double* table) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t c = 0;
  for (; c + 4 <= n; c += 4) {
    s0 += p[c] * table[std::popcount(y & mask[c])];
    s1 += p[c + 1] * table[std::popcount(y & mask[c + 1])];
    s2 += p[c + 2] * table[std::popcount(y & mask[c + 2])];
    s3 += p[c + 3] * table[std::popcount(y & mask[c + 3])];
  }
  for (; c < n; ++c) s0 += p[c] * table[std::popcount(y & mask[c])];
  return (s0 + s1) + (s2 + s3);
}

// The same over `words` words per pattern and mask.
TINYLDP_POPCOUNT_CLONES
double weighted_sum_words(const std::uint64_t* y, std::size_t words, const std::uint64_t* mask, const double* p,
                          std::size_t n, const double* table) {
  double s = 0;
  for (std::size_t c = 0; c < n; ++c) {
    int m = 0;
    for (std::size_t w = 0; w < words; ++w) m += std::popcount(y[w] & mask[c * words + w]);
    s += p[c] * table[m];
  }
  return s;
}

// acc[c] += scaled[popcount(y & mask[c])] (scaled = the table times the pattern's n_g / d_g).
TINYLDP_POPCOUNT_CLONES
void accumulate_one_word(std::uint64_t y, const std::uint64_t* mask, double* acc, std::size_t n,
                         const double* scaled) {
  for (std::size_t c = 0; c < n; ++c) acc[c] += scaled[std::popcount(y & mask[c])];
}

TINYLDP_POPCOUNT_CLONES
void accumulate_words(const std::uint64_t* y, std::size_t words, const std::uint64_t* mask, double* acc,
                      std::size_t n, const double* scaled) {
  for (std::size_t c = 0; c < n; ++c) {
    int m = 0;
    for (std::size_t w = 0; w < words; ++w) m += std::popcount(y[w] & mask[c * words + w]);
    acc[c] += scaled[m];
  }
}

// The patterns and the alive cells in the form the kernels read.
class Likelihoods {
 public:
  Likelihoods(const JointProblem& pr, const std::vector<std::uint64_t>& cells, bool reference)
      : pr_(pr), k_(pr.sizes.size()) {
    fast_ = !reference;
    for (std::size_t j = 1; j < k_; ++j)
      fast_ = fast_ && pr.q_star[j] == pr.q_star[0] && pr.p_star[j] == pr.p_star[0];
    const auto pos = detail::cell_positions(pr, cells);
    if (!fast_) {
      ratios_ = detail::pattern_ratios(pr);
      positions_ = pos;
      return;
    }
    words_ = (pr.width + 63) / 64;
    patterns_.assign(pr.patterns() * words_, 0);
    for (std::size_t g = 0; g < pr.patterns(); ++g)
      for (std::uint32_t b = 0; b < pr.width; ++b)
        if (pr.bits[g * pr.width + b]) patterns_[g * words_ + b / 64] |= std::uint64_t{1} << (b % 64);
    masks_.assign(cells.size() * words_, 0);
    for (std::size_t c = 0; c < cells.size(); ++c)
      for (std::size_t j = 0; j < k_; ++j) {
        const std::uint32_t b = pos[c * k_ + j];
        masks_[c * words_ + b / 64] |= std::uint64_t{1} << (b % 64);
      }
    // table[m] = r1^m · r0^(k − m), the product the reference kernel forms, in one fixed order.
    const double r1 = detail::ratio(pr, 0, 1), r0 = detail::ratio(pr, 0, 0);
    table_.resize(k_ + 1);
    for (std::size_t m = 0; m <= k_; ++m) {
      double l = 1;
      for (std::size_t j = 0; j < k_; ++j) l *= j < m ? r1 : r0;
      table_[m] = l;
    }
  }

  bool fast() const { return fast_; }
  std::size_t bytes() const {
    return (patterns_.size() + masks_.size()) * 8 + ratios_.size() * sizeof(double) + positions_.size() * 4;
  }

  // Σ_{c ∈ [first, last)} p[c] · L_g(c).
  double weighted_sum(std::size_t g, const double* p, std::size_t first, std::size_t last) const {
    if (fast_) {
      if (words_ == 1) return weighted_sum_one_word(patterns_[g], &masks_[first], p + first, last - first, table_.data());
      return weighted_sum_words(&patterns_[g * words_], words_, &masks_[first * words_], p + first, last - first,
                                table_.data());
    }
    double s = 0;
    for (std::size_t c = first; c < last; ++c) s += p[c] * reference(g, c);
    return s;
  }

  // acc[c] += w · L_g(c) for c ∈ [first, last).
  void accumulate(std::size_t g, double w, double* acc, std::size_t first, std::size_t last) const {
    if (fast_) {
      double scaled[max_record_attributes + 1];
      for (std::size_t m = 0; m <= k_; ++m) scaled[m] = w * table_[m];
      if (words_ == 1)
        accumulate_one_word(patterns_[g], &masks_[first], acc + first, last - first, scaled);
      else
        accumulate_words(&patterns_[g * words_], words_, &masks_[first * words_], acc + first, last - first, scaled);
      return;
    }
    for (std::size_t c = first; c < last; ++c) acc[c] += w * reference(g, c);
  }

  // Keeps the cells c with keep[c] (in order).
  void keep_cells(const std::vector<bool>& keep) {
    const std::size_t per = fast_ ? words_ : k_;
    auto& v32 = positions_;
    std::size_t out = 0;
    for (std::size_t c = 0; c < keep.size(); ++c) {
      if (!keep[c]) continue;
      for (std::size_t i = 0; i < per; ++i) {
        if (fast_)
          masks_[out * per + i] = masks_[c * per + i];
        else
          v32[out * per + i] = v32[c * per + i];
      }
      ++out;
    }
    if (fast_)
      masks_.resize(out * per);
    else
      v32.resize(out * per);
  }

 private:
  double reference(std::size_t g, std::size_t c) const {
    double l = 1;
    for (std::size_t j = 0; j < k_; ++j) l *= ratios_[g * pr_.width + positions_[c * k_ + j]];
    return l;
  }

  const JointProblem& pr_;
  std::size_t k_;
  bool fast_ = true;
  std::size_t words_ = 0;
  std::vector<std::uint64_t> patterns_, masks_;  // fast: G × words, C × words
  std::vector<double> table_;
  std::vector<double> ratios_;            // reference: pattern_ratios
  std::vector<std::uint32_t> positions_;  // reference: cell_positions
};

// One EM step x → next; returns the log-likelihood at x (Σ_g n_g ln d_g) when asked, else 0.
// With a prior (pseudo-counts a_c = α·M(c) per alive cell), the step is the MAP one:
// next(c) ∝ x(c)·Σ_g (n_g/d_g) L_g(c) + a_c, the expected counts plus the pseudo-counts.
class EmStep {
 public:
  EmStep(const JointProblem& pr, const Likelihoods& lik, unsigned threads, const std::vector<double>& prior)
      : pr_(pr), lik_(lik), threads_(std::max(1u, threads)), prior_(prior), d_(pr.patterns()), w_(pr.patterns()) {}

  double operator()(const std::vector<double>& x, std::vector<double>& next, bool want_likelihood) {
    const std::size_t G = pr_.patterns(), C = x.size();
    const std::size_t tiles = (C + tile_cells - 1) / tile_cells;
    const bool worth = G * C >= pairs_worth_a_thread;
    in_slices(G, threads_, worth, [&](std::size_t first, std::size_t last) {
      std::fill(d_.begin() + static_cast<std::ptrdiff_t>(first), d_.begin() + static_cast<std::ptrdiff_t>(last), 0.0);
      for (std::size_t t = 0; t < tiles; ++t) {
        const std::size_t c0 = t * tile_cells, c1 = std::min(C, c0 + tile_cells);
        for (std::size_t g = first; g < last; ++g) d_[g] += lik_.weighted_sum(g, x.data(), c0, c1);
      }
    });
    double ll = 0;
    for (std::size_t g = 0; g < G; ++g) {
      w_[g] = pr_.counts[g] / d_[g];
      if (want_likelihood) ll += pr_.counts[g] * std::log(d_[g]);
    }
    next.assign(C, 0.0);
    in_slices(tiles, threads_, worth, [&](std::size_t first, std::size_t last) {
      for (std::size_t t = first; t < last; ++t) {
        const std::size_t c0 = t * tile_cells, c1 = std::min(C, c0 + tile_cells);
        for (std::size_t g = 0; g < G; ++g) lik_.accumulate(g, w_[g], next.data(), c0, c1);
      }
    });
    if (prior_.empty()) {
      for (std::size_t c = 0; c < C; ++c) next[c] = x[c] * next[c] / pr_.reports;
    } else {
      double total = 0;
      for (std::size_t c = 0; c < C; ++c) total += next[c] = x[c] * next[c] + prior_[c];
      for (std::size_t c = 0; c < C; ++c) next[c] /= total;
    }
    return ll;
  }

  std::size_t bytes() const { return (d_.size() + w_.size()) * sizeof(double); }

 private:
  const JointProblem& pr_;
  const Likelihoods& lik_;
  unsigned threads_;
  const std::vector<double>& prior_;  // pseudo-counts per alive cell, or empty
  std::vector<double> d_, w_;
};

// The stopping rule's measure of the EM step x → next.
double step_measure(StopRule rule, const std::vector<double>& x, const std::vector<double>& next) {
  double largest_old = 0, largest_new = 0, change = 0;
  for (std::size_t c = 0; c < x.size(); ++c) {
    largest_old = std::max(largest_old, x[c]);
    largest_new = std::max(largest_new, next[c]);
    change = std::max(change, std::abs(next[c] - x[c]));
  }
  return rule == StopRule::largest_cell ? std::abs(largest_new - largest_old) : change;
}

void normalize(std::vector<double>& x) {
  const double s = std::accumulate(x.begin(), x.end(), 0.0);
  for (double& v : x) v /= s;
}

}  // namespace

JointEstimate estimate_em(const JointProblem& pr, const EmOptions& o, const std::vector<double>* start) {
  const std::uint64_t total_cells = pr.cells();
  JointEstimate out;
  out.p.assign(total_cells, 0.0);
  out.converged = false;
  // The start, and the cells alive in it.
  std::vector<double> initial;
  if (start)
    initial = *start;
  else if (o.start == EmStart::marginals)
    initial = product_of_marginals(pr);
  else
    initial = uniform_joint(pr);
  std::vector<std::uint64_t> alive;
  std::vector<double> x;
  for (std::uint64_t c = 0; c < total_cells && c < initial.size(); ++c)
    if (initial[c] > 0) {
      alive.push_back(c);
      x.push_back(initial[c]);
    }
  if (alive.empty() || pr.patterns() == 0) return out;
  normalize(x);
  // The prior's pseudo-counts α·M(c) on the alive cells (M the product of the marginals).
  std::vector<double> prior;
  if (o.prior_strength > 0) {
    const std::vector<double> centre = product_of_marginals(pr);
    for (std::uint64_t c : alive) prior.push_back(o.prior_strength * centre[c]);
  }

  Likelihoods lik(pr, alive, o.reference_kernel);
  EmStep step(pr, lik, o.threads, prior);
  // Vectors of alive cells: x, F(x), the M pass's sums; SQUAREM adds x2, x', F(x').
  const std::size_t C0 = alive.size();
  const std::size_t vectors = prior.empty() ? 4 : 5;
  const bool accelerate = o.accelerate && lik.bytes() + (vectors + 3) * C0 * sizeof(double) <= o.memory_limit;
  out.memory_bytes = lik.bytes() + step.bytes() + (accelerate ? vectors + 3 : vectors) * C0 * sizeof(double);
  const bool need_likelihood = o.track_likelihood || accelerate;

  std::vector<double> fx, x2, xp, fxp;
  // The objective EM increases: the log-likelihood, plus Σ_c a_c ln x(c) with a prior (the
  // log-density of its Dirichlet(a + 1) up to a constant).
  auto evaluate = [&](const std::vector<double>& at, std::vector<double>& next) {
    ++out.iterations;
    double objective = step(at, next, need_likelihood);
    if (need_likelihood)
      for (std::size_t c = 0; c < prior.size(); ++c)
        if (prior[c] > 0) objective += prior[c] * std::log(at[c]);
    return objective;
  };
  auto track = [&](double ll) {
    if (o.track_likelihood) out.log_likelihood.push_back(ll);
  };
  // Drops the cells below prune_below in both x and F(x) (EM keeps a zero at zero).
  auto prune = [&] {
    if (!(o.prune_below > 0)) return;
    std::vector<bool> keep(x.size());
    std::size_t kept = 0;
    for (std::size_t c = 0; c < x.size(); ++c) kept += keep[c] = x[c] >= o.prune_below || fx[c] >= o.prune_below;
    if (kept == x.size() || kept == 0) return;
    std::size_t w = 0;
    for (std::size_t c = 0; c < keep.size(); ++c)
      if (keep[c]) {
        alive[w] = alive[c], x[w] = x[c], fx[w] = fx[c];
        if (!prior.empty()) prior[w] = prior[c];
        ++w;
      }
    alive.resize(kept), x.resize(kept), fx.resize(kept);
    if (!prior.empty()) prior.resize(kept);
    lik.keep_cells(keep);
    normalize(x);
    normalize(fx);
  };

  double lx = evaluate(x, fx);
  track(lx);
  double alpha_max = 1;
  const std::vector<double>* result = &fx;
  while (true) {
    if (step_measure(o.stop, x, fx) <= o.tolerance) {
      out.converged = true;
      break;
    }
    if (out.iterations >= o.max_iterations) break;
    if (!accelerate) {
      x.swap(fx);
      lx = evaluate(x, fx);
      track(lx);
      prune();
      continue;
    }
    // x1 = F(x) is fx; x2 = F(x1).
    const double l1 = evaluate(fx, x2);
    track(l1);
    if (step_measure(o.stop, fx, x2) <= o.tolerance) {
      out.converged = true;
      result = &x2;
      break;
    }
    if (out.iterations >= o.max_iterations) {
      result = &x2;
      break;
    }
    double rr = 0, vv = 0;
    for (std::size_t c = 0; c < x.size(); ++c) {
      const double r = fx[c] - x[c], v = x2[c] - 2 * fx[c] + x[c];
      rr += r * r, vv += v * v;
    }
    double alpha = vv > 0 ? -std::sqrt(rr / vv) : -alpha_max;
    alpha = std::clamp(alpha, -alpha_max, -1.0);
    if (alpha == -alpha_max) alpha_max *= 4;
    bool accepted = false;
    while (out.iterations < o.max_iterations) {
      if (alpha > -1.01) alpha = -1;
      if (alpha == -1) {
        xp = x2;
      } else {
        xp.resize(x.size());
        bool inside = true;
        for (std::size_t c = 0; c < x.size(); ++c) {
          const double r = fx[c] - x[c], v = x2[c] - 2 * fx[c] + x[c];
          xp[c] = x[c] - 2 * alpha * r + alpha * alpha * v;
          inside = inside && xp[c] >= 0;
        }
        if (!inside) {
          alpha = (alpha - 1) / 2;
          continue;
        }
        normalize(xp);
      }
      const double lp = evaluate(xp, fxp);
      if (alpha == -1 || lp >= l1) {
        x.swap(xp), fx.swap(fxp);
        track(lp);
        accepted = true;
        break;
      }
      alpha = (alpha - 1) / 2;
    }
    if (!accepted) {  // the cap: x2, an EM iterate, is the answer
      result = &x2;
      break;
    }
    prune();
  }
  out.alive = alive.size();
  for (std::size_t c = 0; c < alive.size(); ++c) out.p[alive[c]] = (*result)[c];
  return out;
}

}  // namespace tinyldp::collector
