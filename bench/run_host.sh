#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs the host benchmarks (one core, ratios in one run are what to compare on a shared
# machine) and writes docs/benchmarks.md with the compiler, flags and commit.
set -eu
cd "$(dirname "$0")/.."
cmake --preset host >/dev/null
cmake --build build/host --target bench_clients bench_ingest entropy_accounting >/dev/null
out=docs/benchmarks.md
tmp=$(mktemp -d)
taskset -c 0 build/host/bench/bench_clients --benchmark_format=csv --benchmark_min_time=0.2 >"$tmp/clients.csv" 2>/dev/null
taskset -c 0 build/host/bench/bench_ingest --benchmark_format=csv --benchmark_min_time=0.2 >"$tmp/ingest.csv" 2>/dev/null
{
  echo "# Host benchmarks"
  echo
  echo "Produced by \`bench/run_host.sh\` at commit $(git rev-parse --short HEAD), $(date -u +%Y-%m-%d)."
  echo "Compiler: $(g++ --version | head -1); flags: CMake RelWithDebInfo (-O2 -g -DNDEBUG); one core"
  echo "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), shared machine: compare"
  echo "ratios within this table, not across runs)."
  echo
  echo "## Clients (one report per iteration)"
  echo
  echo "\`BM_<mechanism>\`: the deterministic simulation source (8 xoshiro256++ lanes) through a"
  echo "1 KiB RandomBits buffer. \`BM_<mechanism>_drbg\`: the ChaCha20 DRBG, seeded and reseeded from"
  echo "getrandom(2), through a 16 KiB RandomBits buffer. \`BM_oue_testsource\`: the InsecureTestSource"
  echo "of the golden vectors. Numeric mechanisms take the integers [0, d − 1] (sd: 16 levels;"
  echo "dlaplace: Δ = d − 1, whose client scans all 2d − 1 noise weights). \`BM_olh_drbg_buffer/B\`: OLH"
  echo "over 1024 values through the DRBG with a B-byte RandomBits buffer (8: the C API's reader, 256:"
  echo "the Python module's, 16384: the rows above) — its argument is the buffer, not d."
  echo
  echo "| benchmark (d / 2ε) | CPU ns per report | reports/s | random bits/report |"
  echo "| --- | --- | --- | --- |"
  awk -F, 'NR>1 && $1 ~ /BM_/ && $1 !~ /BM_(chacha20|simulation)/ { gsub(/"/,"",$1); printf "| %s | %.0f | %.3g | %s |\n", $1, $4, $7, $11 }' "$tmp/clients.csv"
  echo
  echo "## Random-bit sources (bytes/s per request size)"
  echo
  echo "The ChaCha20 DRBG pays its fast key erasure (the next key from the first half of each refill's"
  echo "first block) on every refill of its 4-block buffer, so small requests cost more per byte;"
  echo "RandomBits buffers amortise it. Whole blocks of long requests go straight to the caller."
  echo
  echo "| benchmark (request bytes) | CPU ns per request | bytes/s |"
  echo "| --- | --- | --- |"
  awk -F, 'NR>1 && $1 ~ /BM_(chacha20|simulation)/ { gsub(/"/,"",$1); printf "| %s | %.0f | %.3g |\n", $1, $4, $6 }' "$tmp/clients.csv"
  echo
  echo "## Entropy accounting (random bits per report against the noise's Shannon entropy)"
  echo
  echo "Produced by \`build/host/bench/entropy_accounting\` (also a ctest: it fails if a client draws"
  echo "other than the bits it declares). Noise entropy = max over inputs of H(report | input), from"
  echo "the probabilities the code uses: the fewest random bits any sampler could use on average."
  echo "Every client draws a fixed number of bits whatever the input and the noise (constant time),"
  echo "which a variable-length optimal sampler would not; UE and RR pay for exact probabilities with"
  echo "~24 bits per Bernoulli(q) at the default precision; a coarser tolerance cuts that (the rows at"
  echo "1e-4, 1e-3 and 1e-2: OUE's q takes 5 bits at 1e-3, its p fitted — docs/cli.md, \"Precision\")."
  echo
  build/host/bench/entropy_accounting
  echo
  echo "## Collector ingest (strict parse + support counting)"
  echo
  echo "| benchmark (d) | CPU ns per report | payload bytes/s | reports/s |"
  echo "| --- | --- | --- | --- |"
  awk -F, 'NR>1 && $1 ~ /BM_/ { gsub(/"/,"",$1); printf "| %s | %.0f | %.3g | %.3g |\n", $1, $4, $6, $7 }' "$tmp/ingest.csv"
} >"$out"
rm -rf "$tmp"
echo "wrote $out"
