#!/bin/sh
# Runs the host benchmarks (one core, ratios in one run are what to compare on a shared
# machine) and writes docs/benchmarks.md with the compiler, flags and commit.
set -eu
cd "$(dirname "$0")/.."
cmake --preset host >/dev/null
cmake --build build/host --target bench_clients bench_ingest >/dev/null
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
  echo "ratios within this table, not across runs). Source: the deterministic simulation source."
  echo
  echo "## Clients (one report per iteration)"
  echo
  echo "| benchmark (d / 2ε) | CPU ns per report | reports/s | random bits/report |"
  echo "| --- | --- | --- | --- |"
  awk -F, 'NR>1 && $1 ~ /BM_/ { gsub(/"/,"",$1); printf "| %s | %.0f | %.3g | %s |\n", $1, $4, $7, $11 }' "$tmp/clients.csv"
  echo
  echo "## Collector ingest (strict parse + support counting)"
  echo
  echo "| benchmark (d) | CPU ns per report | payload bytes/s | reports/s |"
  echo "| --- | --- | --- | --- |"
  awk -F, 'NR>1 && $1 ~ /BM_/ { gsub(/"/,"",$1); printf "| %s | %.0f | %.3g | %.3g |\n", $1, $4, $6, $7 }' "$tmp/ingest.csv"
} >"$out"
rm -rf "$tmp"
echo "wrote $out"
