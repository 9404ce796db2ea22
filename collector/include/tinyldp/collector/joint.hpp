// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/joint.hpp — the joint distribution of k chosen attributes from
// multi-attribute record reports (record_rr.hpp, record_counts.hpp).
//
// Cells: ω = (ω_1, …, ω_k), index Σ_j ω_j · stride_j with the last attribute's stride 1.
// The per-bit channel of attribute j is (q*_j, p*_j): P(report bit 1 | value bit set / unset).
// Given ω the report's bits are independent, so a report pattern's likelihood factorizes:
// L(y | ω) ∝ Π_j r_j(y_{j, ω_j}) with r(1) = q*/p*, r(0) = (1 − q*)/(1 − p*) (the factor common
// to all ω cancels). Reports with the same bits over the chosen attributes are grouped first,
// so every estimator costs (distinct patterns G) × (cells C), never N.
//
// Estimators:
//  - em: maximum likelihood by EM on whole reports (iterative Bayesian update), from the
//    product of the debiased marginals (or uniform, or a given start); SQUAREM-accelerated with
//    a monotone safeguard; cells whose probability falls below `prune_below` are dropped
//    ("alive" candidates only). A step costs 2 · G · (alive cells) kernel evaluations: with one
//    channel for all chosen attributes, an AND, a popcount and a table look-up each (no
//    likelihood matrix kept); both cores when G · C is large, identical iterates with 1 or 2.
//    Memory: (G + C) × ⌈width/64⌉ words and 4–7 doubles per alive cell (one more with a prior).
//    Stop: max_ω |ΔP(ω)| ≤ δ (max_change, δ = 10^-4 by default), the paper's
//    |Δ max_ω P(ω)| ≤ δ (largest_cell, its δ = 0.001), or the iteration cap.
//  - map (EM with `prior_strength` α > 0): the posterior mode under a Dirichlet prior whose
//    pseudo-counts α·M(ω) are centred on the product of the debiased marginals M, by the same EM
//    with the pseudo-counts added to each step's expected counts. Its objective (log-likelihood
//    + Σ α·M(ω) ln P(ω)) is strictly concave where M > 0, so the estimate is one point whatever
//    the start, and EM's early stop stops being the regularizer: where the reports say little
//    (large f, many cells) it stays near M, where they say much it follows them. α is in reports
//    (the CLI's default: the number of cells, one pseudo-report per cell).
//  - lasso: the seed paper's regression of the debiased per-bit (marginal) frequencies on the
//    cells' indicator design, non-negative coordinate descent with an L1 weight λ, normalized.
//    For k ≥ 2 marginals do not identify the joint: it returns *a* sparse joint that fits them.
//  - lremh: lasso's estimate as EM's start, its zero cells pruned, then EM.
//  - cooccurrence (`pairs` in the CLI): the k-wise co-occurrence of the cell's k bits, debiased
//    bit by bit — E[Π_j (y_{j,ω_j} − p*_j)/(q*_j − p*_j)] = P(ω), the inverse of the 2^k × 2^k
//    noise matrix of those bits (for k = 2 the 4 × 4 matrix of google/rappor's pairwise
//    decoder) — then the constrained least-squares fit (β ≥ 0, Σβ = 1), which for this
//    unbiased, identity-design estimate is the Euclidean projection onto the simplex.
//    Identifies the joint at every k; its variance grows like ((q* − p*)^-2)^k.
//  - baselines: uniform; the product of the attributes' estimated marginals.
// AVD = ½ Σ |P − P̂| (total variation). Host only.
#ifndef TINYLDP_COLLECTOR_JOINT_HPP
#define TINYLDP_COLLECTOR_JOINT_HPP

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tinyldp/collector/record_counts.hpp"

namespace tinyldp::collector {

// The reports seen through k chosen attributes: distinct bit patterns with their counts.
struct JointProblem {
  std::vector<std::uint32_t> sizes;     // |Ω_j| of the chosen attributes, in order
  std::vector<double> q_star, p_star;   // their per-bit channels
  std::vector<std::uint32_t> offsets;   // where attribute j's bits start in a pattern
  std::uint32_t width = 0;              // bits per pattern (Σ sizes)
  std::vector<std::uint8_t> bits;       // pattern g's bit b at bits[g · width + b] (0 or 1)
  std::vector<double> counts;           // pattern g's number of reports
  double reports = 0;
  std::map<std::string, double> pending;  // add_pattern's grouping until finish_patterns
  std::uint64_t cells() const;
  std::size_t patterns() const { return counts.size(); }
};

// The largest joint the estimators accept (cells of the chosen attributes).
inline constexpr std::uint64_t max_joint_cells = std::uint64_t{1} << 24;

// The chosen attributes' view of `counts` (attribute indices into its schema, distinct); nullopt
// and a reason if an index is out of range or repeated, or the joint has too many cells.
std::optional<JointProblem> make_joint_problem(const RecordCounts& counts,
                                               const std::vector<std::uint32_t>& attributes,
                                               std::string& error);
// From sizes and channels, patterns added one report at a time (tests, simulations).
JointProblem empty_joint_problem(std::vector<std::uint32_t> sizes, std::vector<double> q_star,
                                 std::vector<double> p_star);
// Adds one report's bits over the chosen attributes (width entries, 0/1), grouping equal ones.
// (Keeps no index: call finish_patterns after the last one.)
void add_pattern(JointProblem& problem, const std::uint8_t* bits, double count = 1);
void finish_patterns(JointProblem& problem);

enum class StopRule { largest_cell, max_change };
// EM's start when none is given: the product of the debiased marginals projected onto the
// simplex (cells holding a value whose marginal projects to 0 start, and stay, at 0), or 1/C.
enum class EmStart { marginals, uniform };

struct EmOptions {
  // Default: max_ω |ΔP(ω)| ≤ 10^-4 from the product of the marginals, the best mean AVD of the
  // rules measured on NLTCS and Adult (docs/joint-em-stopping.md). EM run to 10^-6 overfits at
  // a few thousand reports; the paper's |Δ max P| ≤ 0.001 from there stops at the marginals.
  StopRule stop = StopRule::max_change;
  double tolerance = 1e-4;           // δ
  std::uint32_t max_iterations = 10000;  // EM steps (SQUAREM's trial steps count)
  double prune_below = 1e-12;        // cells whose probability falls below are dropped
  // Working memory: SQUAREM's three extra cell vectors are kept only within it (else plain EM).
  std::size_t memory_limit = std::size_t{256} << 20;
  unsigned threads = 2;
  bool track_likelihood = false;     // record the log-likelihood of every accepted iterate
  EmStart start = EmStart::marginals;
  bool accelerate = true;            // SQUAREM with the monotone safeguard
  bool reference_kernel = false;     // the per-cell product even when the popcount kernel applies
  // α > 0: the posterior mode under the Dirichlet prior of α pseudo-reports spread by the product
  // of the marginals (see `map` above); the tracked log-likelihood is then that objective.
  double prior_strength = 0;
};
// map's tolerance where none is given: it runs to its one optimum (a step of 10^-8 at most).
inline constexpr double map_tolerance = 1e-8;
// map's options from EM's: the prior of `prior_strength` reports (none: one per cell of the
// problem) and, unless `tolerance` is given, map_tolerance. The CLI's and Python's defaults.
EmOptions map_options(const JointProblem& problem, EmOptions em, std::optional<double> prior_strength,
                      std::optional<double> tolerance);

struct JointEstimate {
  std::vector<double> p;             // over all cells (zeros where pruned)
  std::uint32_t iterations = 0;
  bool converged = true;
  std::uint64_t alive = 0;           // cells EM worked on
  std::size_t memory_bytes = 0;      // the estimator's working memory
  std::vector<double> log_likelihood;  // per accepted iterate, the start first (track_likelihood);
                                       // with a prior, the objective it maximizes
};

JointEstimate estimate_em(const JointProblem& problem, const EmOptions& options = {},
                          const std::vector<double>* start = nullptr);
JointEstimate estimate_lasso(const JointProblem& problem, double lambda = 1e-3);
JointEstimate estimate_lremh(const JointProblem& problem, double lambda = 1e-3, const EmOptions& options = {});
JointEstimate estimate_cooccurrence(const JointProblem& problem);

// The log-likelihood Σ_g n_g ln Σ_ω P(ω) L_g(ω) (up to the constant dropped above).
double log_likelihood(const JointProblem& problem, const std::vector<double>& p);

// Attribute j's debiased frequencies (t_v = (c_v/N − p*)/(q* − p*); unbiased, may leave [0, 1]).
std::vector<double> debiased_marginal(const JointProblem& problem, std::uint32_t j);
std::vector<double> uniform_joint(const JointProblem& problem);
// Π_j of each attribute's debiased marginal projected onto the simplex (estimates.hpp's
// project_onto_simplex, as for the constrained least squares of `pairs`).
std::vector<double> product_of_marginals(const JointProblem& problem);

double average_variation_distance(const std::vector<double>& p, const std::vector<double>& q);

}  // namespace tinyldp::collector

#endif
