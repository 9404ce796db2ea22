// SPDX-License-Identifier: Apache-2.0
// The central ε of a shuffled batch (collector/shuffle_amplification.hpp): FMT21's numerical
// bound at the notes' reference points, and the closed form. scripts/gate-benchmark runs it and
// writes docs/gate-benchmark.md; the goal is under 1 s for n = 10⁷.
#include <benchmark/benchmark.h>

#include "tinyldp/collector/shuffle_amplification.hpp"

namespace {

// Arguments: n, ε₀, −log10 δ.
void BM_numerical_epsilon(benchmark::State& state) {
  const auto n = static_cast<std::uint64_t>(state.range(0));
  const auto epsilon0 = static_cast<double>(state.range(1));
  double delta = 1;
  for (auto i = state.range(2); i > 0; --i) delta /= 10;
  for (auto _ : state) benchmark::DoNotOptimize(tinyldp::collector::numerical_epsilon(epsilon0, n, delta));
}
BENCHMARK(BM_numerical_epsilon)
    ->Args({100000, 4, 6})
    ->Args({1000000, 1, 6})
    ->Args({1000000, 4, 6})
    ->Args({1000000, 8, 6})
    ->Args({10000000, 4, 7})
    ->Unit(benchmark::kMillisecond);

void BM_closed_form_epsilon(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(tinyldp::collector::closed_form_epsilon(4.0, 10000000, 1e-7));
}
BENCHMARK(BM_closed_form_epsilon);

}  // namespace
