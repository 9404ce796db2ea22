// SPDX-License-Identifier: Apache-2.0
// Collector ingest: strict parse + support counting, per report; payload bytes/s and reports/s.
#include <benchmark/benchmark.h>

#include <vector>

#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace {
using namespace tinyldp;
using namespace tinyldp::collector;

// Privatizes 512 reports (value_of(i) for report i, deterministic source), then ingests them in
// turn: the measured loop is the strict parse plus support counting of one report.
template <class ValueOf>
void ingest_reports(benchmark::State& s, const Mechanism& m, ValueOf value_of) {
  port::InsecureTestSource src(1);
  RandomBits<port::InsecureTestSource> rng(src);
  std::vector<std::vector<uint8_t>> reports(512);
  for (std::size_t i = 0; i < reports.size(); ++i)
    if (m.privatize(value_of(i), rng, {}, reports[i]) != Status::ok) {
      s.SkipWithError("a report failed");
      return;
    }
  Aggregator a(m);
  std::size_t i = 0;
  for (auto _ : s) {
    benchmark::DoNotOptimize(a.ingest(reports[i]));
    i = (i + 1) % reports.size();
  }
  benchmark::DoNotOptimize(a.support());
  s.SetItemsProcessed(s.iterations());
  s.SetBytesProcessed(static_cast<int64_t>(s.iterations() * m.description().payload_bytes()));
}

void BM_ingest(benchmark::State& s, MechanismId id) {
  Mechanism m;
  if (Mechanism::configure({id, Epsilon::from_ratio(1, 1), static_cast<uint32_t>(s.range(0)), {}}, m) !=
      Status::ok) {
    s.SkipWithError("configure failed");
    return;
  }
  ingest_reports(s, m, [&](std::size_t i) { return static_cast<uint32_t>(i) % m.domain(); });
}
// Numeric mechanisms: range [0, range], sd with 16 levels, dlaplace with Δ = W.
void BM_ingest_numeric(benchmark::State& s, MechanismId id) {
  MechanismConfig c{id, Epsilon::from_ratio(1, 1), 0, {}};
  c.hi = static_cast<std::int32_t>(s.range(0));
  if (id == MechanismId::sd) c.levels = 16;
  Mechanism m;
  if (Mechanism::configure(c, m) != Status::ok) {
    s.SkipWithError("configure failed");
    return;
  }
  ingest_reports(s, m, [&](std::size_t i) { return static_cast<std::int32_t>(i % static_cast<std::size_t>(c.hi + 1)); });
}
BENCHMARK_CAPTURE(BM_ingest_numeric, sd, MechanismId::sd)->Arg(1000);
BENCHMARK_CAPTURE(BM_ingest_numeric, dlaplace, MechanismId::dlaplace)->Arg(1000);
BENCHMARK_CAPTURE(BM_ingest, oue, MechanismId::oue)->Arg(256)->Arg(1024)->Arg(4096);
BENCHMARK_CAPTURE(BM_ingest, sue, MechanismId::sue)->Arg(1024);
BENCHMARK_CAPTURE(BM_ingest, blh, MechanismId::blh)->Arg(1024);
BENCHMARK_CAPTURE(BM_ingest, olh, MechanismId::olh)->Arg(256)->Arg(1024)->Arg(4096);
BENCHMARK_CAPTURE(BM_ingest, krr, MechanismId::krr)->Arg(1024);
BENCHMARK_CAPTURE(BM_ingest, hr, MechanismId::hr)->Arg(1024);
}  // namespace
