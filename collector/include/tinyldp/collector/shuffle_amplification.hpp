// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/shuffle_amplification.hpp — the central (ε, δ) of a shuffled batch: n
// reports of one ε₀-LDP randomizer, one per device, whose senders a shuffler stripped and whose
// order it permuted, seen by an analyst who gets only the batch (Feldman, McMillan, Talwar,
// "Hiding among the clones", FOCS 2021 — FMT21). The gate and the network, which see each report
// with its sender, still face ε₀ per report; docs/privacy-model.md, "Shuffled batches".
//
// Two bounds on ε for a given n, ε₀ and δ:
//  - the closed form (FMT21's theorem), valid only when ε₀ ≤ ln(n / (16 ln(4/δ))); outside it
//    the answer is "not applicable" (nullopt), never a number;
//  - the numerical bound (FMT21's analysis by clones): with C ~ Bin(n − 1, e^−ε₀),
//    A ~ Bin(C, ½), Δ ~ Bern(e^ε₀ / (e^ε₀ + 1)), the batch is (ε, δ)-DP when
//    P = (A + Δ, C − A + 1 − Δ) and Q = (A + 1 − Δ, C − A + Δ) are, i.e. when
//    δ(ε) = Σ_c Pr[C = c] · D_c(ε) ≤ δ, D_c the hockey-stick divergence of P and Q given C = c.
//    It is computed as a bracket: `upper` is a true upper bound of the analysis' ε (every mass
//    it leaves out counted against it), `lower` a true lower bound (the analysis cannot certify
//    less); their distance is at most about 10⁻⁴ relative (δ bracketed to ~10⁻³).
//
// Cost: O(s · t · log(1/tolerance)) for s ≤ 2048 evaluated c values of the ~16 σ of C that
// carry mass and t terms of a binomial tail each (t ~ √c where ε is small): about 40 ms for
// n = 10⁷ (bench/bench_shuffle_amplification, docs/gate-benchmark.md). Host only.
#ifndef TINYLDP_COLLECTOR_SHUFFLE_AMPLIFICATION_HPP
#define TINYLDP_COLLECTOR_SHUFFLE_AMPLIFICATION_HPP

#include <cstdint>
#include <optional>

namespace tinyldp::collector {

// The largest batch the numerical bound is computed for (it keeps the probabilities of every c
// within 8 σ of C's mean: ~ 8·10⁵ of them at this n); the closed form has no limit.
inline constexpr std::uint64_t max_numerical_batch = 10'000'000'000;

// A bracket of a quantity the numerical analysis defines: lower ≤ exact ≤ upper.
struct Bracket {
  double lower = 0, upper = 0;
};

// The central guarantee of one shuffled batch, for the analyst.
struct ShuffledEpsilon {
  double epsilon0 = 0;  // the local ε of one report (the mechanism's realized ε; memoized: ε₁)
  std::uint64_t n = 0;  // reports in the batch, one per device
  double delta = 0;
  std::optional<Bracket> numerical;   // nullopt: n above max_numerical_batch
  std::optional<double> closed_form;  // nullopt: ε₀ > ln(n / (16 ln(4/δ))), outside its theorem
};

// Both bounds. Refuses (std::invalid_argument, saying which) ε₀ negative or not finite, n = 0,
// δ outside (0, 1).
ShuffledEpsilon shuffled_epsilon(double epsilon0, std::uint64_t n, double delta);

// FMT21's closed form; nullopt outside its validity condition. Same refusals.
std::optional<double> closed_form_epsilon(double epsilon0, std::uint64_t n, double delta);

// The numerical bound's ε bracket. Same refusals, and n above max_numerical_batch.
Bracket numerical_epsilon(double epsilon0, std::uint64_t n, double delta);

// δ(ε) of the numerical analysis at one ε ∈ [0, ε₀], as a bracket (what numerical_epsilon
// inverts; tests compare it with a direct sum). Same refusals for ε₀ and n.
Bracket numerical_delta(double epsilon0, std::uint64_t n, double epsilon);

}  // namespace tinyldp::collector

#endif
