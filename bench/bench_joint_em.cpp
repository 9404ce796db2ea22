// SPDX-License-Identifier: Apache-2.0
// The joint EM's speed (collector/joint.hpp, issue 16 item 4), on synthetic record reports of
// the experiment's sizes (bench/run_joint_em.sh writes docs/joint-em-benchmark.md):
//  - BM_anchor: google/rappor's association-EM problem size — 50 000 reports of two attributes
//    with domains 4 and 2 (8 cells), max |ΔP| < 1e-6 within 1 000 steps, uniform start, one
//    thread (its C++ EM takes 1.1 s) — timed from the reports' bytes: grouping and EM.
//  - BM_steps_before / BM_steps_after: EM steps from the uniform start on the NLTCS k = 8 and
//    Adult k = 5 … 8 sizes, the implementation before this work (joint_em_before.hpp) and now.
//  - BM_run: whole runs now, by the old default rule (uniform start, max |ΔP| ≤ 1e-6) and by
//    the default (the marginals' product, |Δ max P| ≤ 0.001).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "joint_em_before.hpp"
#include "tinyldp/collector/joint.hpp"

namespace {
using namespace tinyldp::collector;

// RAPPOR's composed per-bit channel at f = 0.5, p = 0.5, q = 0.75.
constexpr double f_half = 0.5;
constexpr double q_star = 0.75 * (1 - f_half / 2) + 0.5 * f_half / 2;
constexpr double p_star = 0.5 * (1 - f_half / 2) + 0.75 * f_half / 2;

// n reports' bits (width per report, 0/1 bytes) of cells drawn from a random joint over `sizes`.
std::vector<std::uint8_t> simulated_bits(const std::vector<std::uint32_t>& sizes, std::size_t n, std::uint64_t seed) {
  std::uint64_t cells = 1;
  std::uint32_t width = 0;
  for (auto s : sizes) cells *= s, width += s;
  std::mt19937_64 gen(seed);
  std::gamma_distribution<double> weight(0.3, 1.0);  // a sparse-ish joint
  std::vector<double> joint(cells);
  for (double& x : joint) x = weight(gen);
  std::discrete_distribution<std::uint64_t> cell(joint.begin(), joint.end());
  std::bernoulli_distribution one(q_star), zero(p_star);
  std::vector<std::uint8_t> bits(n * width);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t c = cell(gen);
    std::uint32_t offset = width;
    for (std::size_t j = sizes.size(); j-- > 0;) {
      const std::uint32_t v = static_cast<std::uint32_t>(c % sizes[j]);
      c /= sizes[j];
      offset -= sizes[j];
      for (std::uint32_t b = 0; b < sizes[j]; ++b) bits[i * width + offset + b] = b == v ? one(gen) : zero(gen);
    }
  }
  return bits;
}

JointProblem grouped(const std::vector<std::uint32_t>& sizes, const std::vector<std::uint8_t>& bits) {
  JointProblem pr = empty_joint_problem(sizes, std::vector<double>(sizes.size(), q_star),
                                        std::vector<double>(sizes.size(), p_star));
  for (std::size_t i = 0; i < bits.size(); i += pr.width) add_pattern(pr, &bits[i]);
  finish_patterns(pr);
  return pr;
}

// Every run carries the same counters (the CSV reporter needs them all).
void label(benchmark::State& s, const JointProblem& pr, const JointEstimate& e) {
  s.counters["cells"] = static_cast<double>(pr.cells());
  s.counters["patterns"] = static_cast<double>(pr.patterns());
  s.counters["steps"] = e.iterations;
  s.counters["alive"] = static_cast<double>(e.alive);
  s.counters["converged"] = e.converged;
}

void BM_anchor(benchmark::State& s, bool accelerate) {
  const std::vector<std::uint32_t> sizes = {4, 2};
  const auto bits = simulated_bits(sizes, 50000, 1);
  EmOptions o{StopRule::max_change, 1e-6, 1000};
  o.start = EmStart::uniform;
  o.threads = 1;
  o.accelerate = accelerate;
  JointEstimate e;
  std::size_t patterns = 0;
  for (auto _ : s) {
    const JointProblem pr = grouped(sizes, bits);
    e = estimate_em(pr, o);
    patterns = pr.patterns();
    benchmark::DoNotOptimize(e.p.data());
  }
  label(s, empty_joint_problem(sizes, {}, {}), e);
  s.counters["patterns"] = static_cast<double>(patterns);
}
BENCHMARK_CAPTURE(BM_anchor, plain, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_anchor, squarem, true)->Unit(benchmark::kMillisecond);

// The experiment's sizes: 0 = NLTCS k = 8 (4 315 reports); 1 … 4 = Adult k = 5 … 8 (3 256
// reports; age 8 bins, workclass, education, sex, Salary, race, marital-status, hours 5 bins).
struct Size {
  std::vector<std::uint32_t> sizes;
  std::size_t reports;
};
const Size& size_of(std::int64_t i) {
  static const std::vector<Size> all = {
      {std::vector<std::uint32_t>(8, 2), 4315},
      {{8, 9, 16, 2, 2}, 3256},
      {{8, 9, 16, 2, 2, 5}, 3256},
      {{8, 9, 16, 2, 2, 5, 7}, 3256},
      {{8, 9, 16, 2, 2, 5, 7, 5}, 3256},
  };
  return all[static_cast<std::size_t>(i)];
}

const JointProblem& problem(std::int64_t i) {
  static std::vector<JointProblem> cache(5);
  static std::vector<bool> made(5);
  if (!made[static_cast<std::size_t>(i)]) {
    const Size& z = size_of(i);
    cache[static_cast<std::size_t>(i)] = grouped(z.sizes, simulated_bits(z.sizes, z.reports, 7 + static_cast<std::uint64_t>(i)));
    made[static_cast<std::size_t>(i)] = true;
  }
  return cache[static_cast<std::size_t>(i)];
}

// Args: (size, steps). Time per benchmark iteration = setup + `steps` EM steps, two threads.
void BM_steps_before(benchmark::State& s) {
  const JointProblem& pr = problem(s.range(0));
  JointEstimate e;
  for (auto _ : s) e.p = tinyldp::bench::em_steps_before(pr, static_cast<std::uint32_t>(s.range(1)));
  e.iterations = static_cast<std::uint32_t>(s.range(1));
  e.alive = pr.cells();
  e.converged = false;
  label(s, pr, e);
}
void BM_steps_after(benchmark::State& s) {
  const JointProblem& pr = problem(s.range(0));
  EmOptions o{StopRule::max_change, 0, static_cast<std::uint32_t>(s.range(1))};
  o.start = EmStart::uniform;
  o.accelerate = false;
  o.prune_below = 0;
  JointEstimate e;
  for (auto _ : s) {
    e = estimate_em(pr, o);
    benchmark::DoNotOptimize(e.p.data());
  }
  label(s, pr, e);
}
BENCHMARK(BM_steps_before)->Args({0, 5})->Args({1, 5})->Args({2, 2})->Args({3, 1})->Args({4, 1})
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_steps_after)->Args({0, 5})->Args({1, 5})->Args({2, 2})->Args({3, 1})->Args({4, 1})
    ->Unit(benchmark::kMillisecond)->UseRealTime();

// Args: (size, rule): 0 = uniform start, max |ΔP| ≤ 1e-6 (the old default), SQUAREM;
// 1 = the default options.
void BM_run(benchmark::State& s) {
  const JointProblem& pr = problem(s.range(0));
  EmOptions o;
  if (s.range(1) == 0) {
    o.start = EmStart::uniform;
    o.stop = StopRule::max_change;
    o.tolerance = 1e-6;
  }
  JointEstimate e;
  for (auto _ : s) {
    e = estimate_em(pr, o);
    benchmark::DoNotOptimize(e.p.data());
  }
  label(s, pr, e);
}
// (The old rule on Adult k = 7, 8 takes minutes: left out.)
BENCHMARK(BM_run)->Args({0, 0})->Args({1, 0})->Args({2, 0})->Args({0, 1})->Args({1, 1})->Args({2, 1})->Args({3, 1})
    ->Args({4, 1})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
