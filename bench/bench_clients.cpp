// Host benchmarks of every mechanism's client (one report per iteration) with the fast
// deterministic simulation source. Run with bench/run_host.sh.
#include <benchmark/benchmark.h>

#include <vector>

#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/port/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace {
using namespace tinyldp;
using Rng = RandomBits<port::InsecureTestSource, 256>;

Epsilon eps_of(const benchmark::State& s) { return Epsilon::from_ratio(static_cast<uint64_t>(s.range(1)), 2); }

void report_bits(benchmark::State& s, uint64_t bits) {
  s.counters["random_bits"] = static_cast<double>(bits);
  s.SetItemsProcessed(s.iterations());
}

void BM_oue(benchmark::State& s) {
  UnaryEncoding m;
  UnaryEncoding::configure_oue(eps_of(s), static_cast<uint32_t>(s.range(0)), m);
  port::InsecureTestSource src(1);
  Rng rng(src);
  std::vector<uint8_t> r(m.report_bytes());
  uint32_t v = 0;
  for (auto _ : s) {
    m.privatize(v, rng, r.data(), r.size());
    benchmark::DoNotOptimize(r.data());
    v = (v + 1) % m.domain();
  }
  report_bits(s, m.random_bits_per_report());
}
void BM_sue(benchmark::State& s) {
  UnaryEncoding m;
  UnaryEncoding::configure_sue(eps_of(s), static_cast<uint32_t>(s.range(0)), m);
  port::InsecureTestSource src(1);
  Rng rng(src);
  std::vector<uint8_t> r(m.report_bytes());
  uint32_t v = 0;
  for (auto _ : s) {
    m.privatize(v, rng, r.data(), r.size());
    benchmark::DoNotOptimize(r.data());
    v = (v + 1) % m.domain();
  }
  report_bits(s, m.random_bits_per_report());
}
template <class M, class Report>
void run_scalar(benchmark::State& s, const M& m, uint32_t d) {
  port::InsecureTestSource src(1);
  Rng rng(src);
  Report r{};
  uint32_t v = 0;
  for (auto _ : s) {
    m.privatize(v, rng, r);
    benchmark::DoNotOptimize(r);
    v = (v + 1) % d;
  }
  report_bits(s, m.random_bits_per_report());
}
void BM_krr(benchmark::State& s) {
  KaryRr m;
  KaryRr::configure(eps_of(s), static_cast<uint32_t>(s.range(0)), m);
  run_scalar<KaryRr, uint32_t>(s, m, m.domain());
}
void BM_olh(benchmark::State& s) {
  LocalHashing m;
  LocalHashing::configure_olh(eps_of(s), static_cast<uint32_t>(s.range(0)), m);
  run_scalar<LocalHashing, LocalHashingReport>(s, m, m.domain());
}
void BM_hr(benchmark::State& s) {
  HadamardResponse m;
  HadamardResponse::configure(eps_of(s), static_cast<uint32_t>(s.range(0)), m);
  run_scalar<HadamardResponse, HadamardReport>(s, m, m.domain());
}
void BM_rr(benchmark::State& s) {
  BinaryRr m;
  BinaryRr::configure(eps_of(s), m);
  run_scalar<BinaryRr, uint8_t>(s, m, 2);
}

// d ∈ {16, 256, 1024, 4096} × ε ∈ {0.5, 1, 2, 4} (second argument is 2ε).
void grid(benchmark::internal::Benchmark* b) {
  for (int64_t d : {16, 256, 1024, 4096})
    for (int64_t two_eps : {1, 2, 4, 8}) b->Args({d, two_eps});
}
BENCHMARK(BM_oue)->Apply(grid);
BENCHMARK(BM_sue)->Apply(grid);
BENCHMARK(BM_krr)->Apply(grid);
BENCHMARK(BM_olh)->Apply(grid);
BENCHMARK(BM_hr)->Apply(grid);
BENCHMARK(BM_rr)->Args({2, 1})->Args({2, 2})->Args({2, 4})->Args({2, 8});
}  // namespace
