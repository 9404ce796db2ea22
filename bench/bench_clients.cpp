// SPDX-License-Identifier: Apache-2.0
// Host benchmarks of every mechanism's client (one report per iteration) and of the ChaCha20
// DRBG. Run with bench/run_host.sh, which writes docs/benchmarks.md.
//
// Sources: BM_<mechanism> use the fast deterministic simulation source (what simulations at
// scale use); BM_<mechanism>_drbg the ChaCha20 DRBG seeded and reseeded from the OS (what a
// real collector-side or gateway client uses); BM_oue_testsource the InsecureTestSource the
// golden vectors are defined with. Every benchmark checks each report's status and stops with
// an error if one fails (a DRBG without a reseed source fails closed, and a benchmark that
// ignored that would time nothing).
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/entropy/host_os_source.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/port/test/simulation_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace {
using namespace tinyldp;

// The random-bit buffer: a few KiB amortise the DRBG's per-call cost (its fast key erasure and
// 16-block batches); the simulation source is fast at any size.
constexpr size_t sim_buffer = 1024;
constexpr size_t drbg_buffer = 16384;

struct Simulation {
  port::SimulationSource source{1};
  RandomBits<port::SimulationSource, sim_buffer> rng{source};
  bool ready(benchmark::State&) { return true; }
};
template <size_t BufferBytes = drbg_buffer>
struct DrbgWith {
  port::HostOsSource os;
  port::ChaCha20Drbg drbg;
  RandomBits<port::ChaCha20Drbg, BufferBytes> rng{drbg};
  bool ready(benchmark::State& s) {
    drbg.set_reseed_source(os);
    if (drbg.seed(os) != EntropyResult::ok) {
      s.SkipWithError("DRBG seeding failed");
      return false;
    }
    return true;
  }
};
using Drbg = DrbgWith<>;
struct TestSource {
  port::InsecureTestSource source{1};
  RandomBits<port::InsecureTestSource, 256> rng{source};
  bool ready(benchmark::State&) { return true; }
};

Epsilon eps_of(const benchmark::State& s) { return Epsilon::from_ratio(static_cast<uint64_t>(s.range(1)), 2); }
uint32_t d_of(const benchmark::State& s) { return static_cast<uint32_t>(s.range(0)); }

// Times `privatize(value, rng)` over values 0, 1, …, domain − 1, 0, …
template <class Source, class Privatize>
void run(benchmark::State& s, uint32_t domain, uint64_t random_bits, Privatize privatize) {
  auto source = std::make_unique<Source>();  // the DRBG's state is large for a stack frame
  if (!source->ready(s)) return;
  uint32_t v = 0;
  for (auto _ : s) {
    if (privatize(v, source->rng) != Status::ok) {
      s.SkipWithError("privatize failed");
      break;
    }
    v = v + 1 == domain ? 0 : v + 1;
  }
  s.counters["random_bits"] = static_cast<double>(random_bits);
  s.SetItemsProcessed(s.iterations());
}

template <class Source, bool Optimized>
void BM_ue(benchmark::State& s) {
  UnaryEncoding m;
  if ((Optimized ? UnaryEncoding::configure_oue(eps_of(s), d_of(s), m)
                 : UnaryEncoding::configure_sue(eps_of(s), d_of(s), m)) != Status::ok)
    return s.SkipWithError("configure failed");
  std::vector<uint8_t> r(m.report_bytes());
  run<Source>(s, m.domain(), m.random_bits_per_report(), [&](uint32_t v, auto& rng) {
    const Status st = m.privatize(v, rng, r.data(), r.size());
    benchmark::DoNotOptimize(r.data());
    benchmark::ClobberMemory();
    return st;
  });
}
// Mechanisms whose report is a small value (Value: what privatize takes, the run's v converted).
template <class Source, class M, class Report, class Value = uint32_t>
void run_scalar(benchmark::State& s, const M& m, uint32_t domain) {
  run<Source>(s, domain, m.random_bits_per_report(), [&](uint32_t v, auto& rng) {
    Report r{};
    const Status st = m.privatize(static_cast<Value>(v), rng, r);
    benchmark::DoNotOptimize(r);
    return st;
  });
}
template <class Source>
void BM_krr(benchmark::State& s) {
  KaryRr m;
  if (KaryRr::configure(eps_of(s), d_of(s), m) != Status::ok) return s.SkipWithError("configure");
  run_scalar<Source, KaryRr, uint32_t>(s, m, m.domain());
}
template <class Source, bool Optimized>
void BM_lh(benchmark::State& s) {
  LocalHashing m;
  if ((Optimized ? LocalHashing::configure_olh(eps_of(s), d_of(s), m)
                 : LocalHashing::configure_blh(eps_of(s), d_of(s), m)) != Status::ok)
    return s.SkipWithError("configure failed");
  run_scalar<Source, LocalHashing, LocalHashingReport>(s, m, m.domain());
}
template <class Source>
void BM_hr(benchmark::State& s) {
  HadamardResponse m;
  if (HadamardResponse::configure(eps_of(s), d_of(s), m) != Status::ok) return s.SkipWithError("configure");
  run_scalar<Source, HadamardResponse, HadamardReport>(s, m, m.domain());
}
template <class Source>
void BM_rr(benchmark::State& s) {
  BinaryRr m;
  if (BinaryRr::configure(eps_of(s), m) != Status::ok) return s.SkipWithError("configure");
  run_scalar<Source, BinaryRr, uint8_t>(s, m, 2);
}
// Numeric mechanisms on the integers [0, d − 1]: sd with 16 levels, dlaplace with Δ = d − 1.
template <class Source>
void BM_sd(benchmark::State& s) {
  StochasticDiscretization m;
  if (StochasticDiscretization::configure(eps_of(s), 0, static_cast<int32_t>(d_of(s)) - 1, 16, m) !=
      Status::ok)
    return s.SkipWithError("configure failed");
  run_scalar<Source, StochasticDiscretization, uint32_t, int32_t>(s, m, d_of(s));
}
template <class Source>
void BM_dlaplace(benchmark::State& s) {
  const int32_t hi = static_cast<int32_t>(d_of(s)) - 1;
  std::vector<uint64_t> table(DiscreteLaplace::table_entries(0, hi));
  DiscreteLaplace m;
  if (DiscreteLaplace::configure(eps_of(s), 0, hi, static_cast<uint32_t>(hi), table.data(),
                                 table.size(), m) != Status::ok)
    return s.SkipWithError("configure failed");
  run_scalar<Source, DiscreteLaplace, int32_t, int32_t>(s, m, d_of(s));
}

// The DRBG alone: bytes/s for requests of range(0) bytes (fast key erasure on every request).
void BM_chacha20_drbg(benchmark::State& s) {
  auto d = std::make_unique<Drbg>();
  if (!d->ready(s)) return;
  std::vector<uint8_t> out(static_cast<size_t>(s.range(0)));
  for (auto _ : s) {
    if (d->drbg.fill(out.data(), out.size(), TINYLDP_ENTROPY_BLOCKING) != EntropyResult::ok) {
      s.SkipWithError("DRBG fill failed");
      break;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  s.SetBytesProcessed(static_cast<int64_t>(s.iterations()) * s.range(0));
}
// OLH (d = 1024, ε = 1) through the DRBG with a RandomBits buffer of range(0) bytes: 8 is what
// the C API reads per request (c/src/forwards.hpp), 256 what the Python module and the command
// use, 16384 the BM_<mechanism>_drbg rows. A report's fixed costs (forget_drawn, the stack
// scrub) and the DRBG's per-request cost at that size, separated from the mechanism's.
template <size_t BufferBytes>
void BM_olh_drbg_buffer(benchmark::State& s) {
  LocalHashing m;
  if (LocalHashing::configure_olh(Epsilon::from_ratio(1, 1), 1024, m) != Status::ok)
    return s.SkipWithError("configure failed");
  run_scalar<DrbgWith<BufferBytes>, LocalHashing, LocalHashingReport>(s, m, m.domain());
}
// The simulation source alone, for comparison.
void BM_simulation_source(benchmark::State& s) {
  port::SimulationSource source(1);
  std::vector<uint8_t> out(static_cast<size_t>(s.range(0)));
  for (auto _ : s) {
    if (source.fill(out.data(), out.size(), TINYLDP_ENTROPY_BLOCKING) != EntropyResult::ok) {
      s.SkipWithError("the simulation source failed");
      break;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  s.SetBytesProcessed(static_cast<int64_t>(s.iterations()) * s.range(0));
}

// d ∈ {16, 256, 1024, 4096} × ε ∈ {0.5, 1, 2, 4} (second argument is 2ε).
void grid(benchmark::internal::Benchmark* b) {
  for (int64_t d : {16, 256, 1024, 4096})
    for (int64_t two_eps : {1, 2, 4, 8}) b->Args({d, two_eps});
}
// The DRBG rows: every d at ε = 1.
void drbg_grid(benchmark::internal::Benchmark* b) {
  for (int64_t d : {16, 256, 1024, 4096}) b->Args({d, 2});
}
BENCHMARK(BM_ue<Simulation, true>)->Name("BM_oue")->Apply(grid);
BENCHMARK(BM_ue<Simulation, false>)->Name("BM_sue")->Apply(grid);
BENCHMARK(BM_krr<Simulation>)->Name("BM_krr")->Apply(grid);
BENCHMARK(BM_lh<Simulation, false>)->Name("BM_blh")->Apply(grid);
BENCHMARK(BM_lh<Simulation, true>)->Name("BM_olh")->Apply(grid);
BENCHMARK(BM_hr<Simulation>)->Name("BM_hr")->Apply(grid);
BENCHMARK(BM_sd<Simulation>)->Name("BM_sd")->Apply(grid);
BENCHMARK(BM_dlaplace<Simulation>)->Name("BM_dlaplace")->Apply(grid);
BENCHMARK(BM_rr<Simulation>)->Name("BM_rr")->Args({2, 1})->Args({2, 2})->Args({2, 4})->Args({2, 8});

BENCHMARK(BM_ue<Drbg, true>)->Name("BM_oue_drbg")->Apply(drbg_grid);
BENCHMARK(BM_ue<Drbg, false>)->Name("BM_sue_drbg")->Apply(drbg_grid);
BENCHMARK(BM_krr<Drbg>)->Name("BM_krr_drbg")->Apply(drbg_grid);
BENCHMARK(BM_lh<Drbg, true>)->Name("BM_olh_drbg")->Apply(drbg_grid);
BENCHMARK(BM_hr<Drbg>)->Name("BM_hr_drbg")->Apply(drbg_grid);
BENCHMARK(BM_ue<TestSource, true>)->Name("BM_oue_testsource")->Args({1024, 2});

BENCHMARK(BM_olh_drbg_buffer<8>)->Name("BM_olh_drbg_buffer/8");
BENCHMARK(BM_olh_drbg_buffer<256>)->Name("BM_olh_drbg_buffer/256");
BENCHMARK(BM_olh_drbg_buffer<drbg_buffer>)->Name("BM_olh_drbg_buffer/16384");

// Request sizes: 8 (the C API's), 32 to 1024 (RandomBits buffers), 4096 and 65536 (long).
BENCHMARK(BM_chacha20_drbg)->Arg(8)->Arg(32)->Arg(128)->Arg(256)->Arg(1024)->Arg(4096)->Arg(65536);
BENCHMARK(BM_simulation_source)->Arg(4096);
}  // namespace
