// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/bayesian_update.hpp — the non-negative maximum-likelihood estimate of one
// attribute's distribution, by EM (the iterative Bayesian update), for every mechanism.
//
// Beside the unbiased estimate (estimates.hpp, numeric_estimate.hpp), which can leave [0, 1]
// far (dlaplace's values: ±6 at ε = 2), EM answers with a distribution: non-negative, summing
// to 1, the one under which the aggregate's counts are most likely. What it maximizes depends
// on what a report adds to the counts, which the mechanism's model decides (ObservationModel):
//  - outputs: a report is one item (rr, krr, sd's levels, dlaplace's values, l-grr, 1bitmean's
//    bit): the counts are a histogram of the outputs, and the likelihood is exact:
//    ℓ(P) = Σ_y n_y ln Σ_x P(x)·M[x][y], M[x][y] = Pr[output y | value x] — the k-RR channel (p on
//    the diagonal, q elsewhere) or the numeric model's dense matrix (dlaplace's clamped noise).
//    EM: P'(x) = P(x)·Σ_y (n_y/n)·M[x][y] / Σ_x' P(x')·M[x'][y].
//  - supports: a report supports several items (unary encodings, local hashing, Hadamard
//    response, SHE, THE, the memoized chains, LOLOHA): the aggregate keeps one count per item,
//    not the reports, so the whole-report likelihood is out of reach. EM maximizes the
//    *composite* likelihood of the counts instead, item by item binomial:
//    ℓ(P) = Σ_i C_i ln π_i + (N − C_i) ln(1 − π_i), π_i = q' + (p' − q')·P(i), N = n·t trials,
//    where t is the most one report adds to a count (SHE: 2T + 1, else 1) and p' = p/t, q' = q/t.
//    The terms are separable and concave, so the maximum on the simplex is computed directly
//    (KKT: one Lagrange multiplier, found by bisection; iterations = 1): EM steps, each item a
//    two-point mixture, would reach the same point but take thousands of iterations (measured
//    on the table's examples: 1 600 – 3 200, SHE over 10 000). For SHE, whose support is an integer sum, this is a
//    quasi-likelihood whose per-item stationary point is the unbiased estimate. The composite
//    likelihood treats the items of one report as independent; its maximum is consistent, but
//    its curvature is not an honest standard error, so no interval is derived from it.
// Each EM step never decreases ℓ (the test checks it, and track_likelihood records it).
// Stopping (outputs): max_x |ΔP(x)| ≤ tolerance, or the iteration cap. Start: uniform (every item
// positive; an item EM drives to 0 stays there). Host only.
// Cost per iteration: O(K) for a (p, q) channel, O(K·Y) for a dense one (Y the outputs seen),
// and O(K·B) once for support counts (B ≤ 200 bisection steps); memory O(K) (the dense matrix
// is the model's).
#ifndef TINYLDP_COLLECTOR_BAYESIAN_UPDATE_HPP
#define TINYLDP_COLLECTOR_BAYESIAN_UPDATE_HPP

#include <cstdint>
#include <span>
#include <vector>

#include "tinyldp/collector/frequency_estimate.hpp"
#include "tinyldp/collector/models/numeric_noise.hpp"

namespace tinyldp::collector {

class Aggregator;
class Mechanism;

// How the aggregate's counts arise from a distribution over the items.
struct ObservationModel {
  enum class Counts { outputs, supports };
  Counts counts = Counts::outputs;
  std::uint32_t items = 0;
  // outputs: atoms × items row-major, Pr[output y | value x] at [x·items + y]; empty: the
  // channel's (p on the diagonal, q elsewhere).
  std::vector<double> kernel;
  // The kernel's rows, the values the distribution is over, when they are not the outputs
  // (sw: its D buckets, reported as N = D + 2B cells); 0: items.
  std::uint32_t atoms = 0;
  std::uint32_t atom_count() const { return atoms == 0 ? items : atoms; }
  // The kernel as a band (sw), when it is one: EM then steps in O(atoms + items), not O(atoms·items).
  KernelBand band;
  Channel channel{};
  double trials = 1;  // supports: the most one report adds to a count
};

// The model of a mechanism's aggregate (a dense kernel for the deconvolved ones: dlaplace,
// built from the numeric model, O(W³)).
ObservationModel observation_model(const Mechanism& m);

struct BayesianUpdateOptions {
  double tolerance = 1e-6;               // stop when max_x |ΔP(x)| ≤ tolerance
  std::uint32_t max_iterations = 10000;  // or after this many iterations
  bool track_likelihood = false;         // record ℓ before each iteration and at the end
  // EMS (Li et al., SIGMOD 2020): after each step, P(x) ← (1 − 2s)·P(x) + s·(P(x − 1) + P(x + 1))
  // over the ordered atoms (an end keeps 1 − s and gives s to its one neighbour); 0: plain EM.
  // The paper's s = 1/4 (binomial weights ¼, ½, ¼). 0 ≤ s < ½; outputs counts only. A smoothed
  // step may lower ℓ: EMS maximizes no likelihood, it trades variance for a little bias.
  double smoothing = 0;
  // Also stop when a step raises ℓ (in counts: Σ_y n_y ln D_y) by less than this (the SW paper's
  // and its public code's rule, 10⁻³ there); 0: max_x |ΔP(x)| ≤ tolerance alone. Outputs only.
  double likelihood_tolerance = 0;
};

struct BayesianUpdateResult {
  std::vector<double> p;  // the estimate over the atoms: non-negative, sums to 1
  std::uint32_t iterations = 0;
  bool converged = false;  // the tolerance was met within the cap
  std::vector<double> log_likelihood;  // track_likelihood: ℓ at the start and after each step
};

// EM from support counts of `reports` reports (support.size() == model.items). No reports:
// the uniform distribution, converged.
BayesianUpdateResult bayesian_update(const ObservationModel& model, std::span<const std::uint64_t> support,
                                     std::uint64_t reports, const BayesianUpdateOptions& options = {});
BayesianUpdateResult bayesian_update(const Aggregator& a, const BayesianUpdateOptions& options = {});

// How many times EM has run in this process (either overload counts once). One aggregate's
// estimators share one run (estimates.hpp); tests/tools/test_cli_em_once.py checks through this
// count that `tinyldp aggregate` runs EM once. A relaxed atomic: free beside a run.
std::uint64_t bayesian_update_runs();

// ℓ(P) as above (without the multinomial or binomial coefficients).
double observation_log_likelihood(const ObservationModel& model, std::span<const std::uint64_t> support,
                                  std::uint64_t reports, std::span<const double> p);

}  // namespace tinyldp::collector

#endif
