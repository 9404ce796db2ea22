#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs bench_joint_em (the joint EM's speed anchor and the experiment's sizes, before and after
# issue 16's speed work) and writes docs/joint-em-benchmark.md with the compiler, commit and
# machine. Wall-clock times (EM uses both cores where it pays; the anchor one thread); on a
# shared machine compare the ratios within one run.
set -eu
cd "$(dirname "$0")/.."
cmake --preset host >/dev/null
cmake --build build/host --target bench_joint_em >/dev/null
out=docs/joint-em-benchmark.md
tmp=$(mktemp -d)
build/host/bench/bench_joint_em --benchmark_format=csv --benchmark_min_time=0.5 >"$tmp/em.csv" 2>/dev/null
# name, real ms, and the counters (cells, patterns, steps, alive, converged) by header name.
table() {
  awk -F, -v want="$1" '
    NR == 1 { gsub(/"/, ""); for (i = 1; i <= NF; ++i) col[$i] = i; next }
    $1 ~ want {
      gsub(/"/, "", $1)
      printf "| %s | %.4g | %s | %s | %s | %s |\n", $1, $3, $col["cells"], $col["patterns"], $col["steps"], $col["alive"]
    }' "$tmp/em.csv"
}
{
  echo "# Joint EM benchmark"
  echo
  echo "Produced by \`bench/run_joint_em.sh\` at commit $(git rev-parse --short HEAD), $(date -u +%Y-%m-%d)."
  echo "Compiler: $(g++ --version | head -1); CMake RelWithDebInfo (-O2 -g -DNDEBUG);"
  echo "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), shared machine: compare"
  echo "ratios within this file, not across runs). Synthetic reports (bench/bench_joint_em.cpp) of the"
  echo "sizes named; f = 0.5, p = 0.5, q = 0.75. Times are wall-clock milliseconds per benchmark"
  echo "iteration."
  echo
  echo "## Speed anchor (issue 16 item 4)"
  echo
  echo "google/rappor's C++ association EM: 1.1 s single-threaded for 50 000 reports over"
  echo "(3 + \"other\") × boolean cells. The same problem size here: 50 000 reports of two attributes"
  echo "(domains 4 and 2: 8 cells), max |ΔP| < 1e-6 within 1 000 steps, uniform start, one thread,"
  echo "timed from the reports' bits (grouping into distinct patterns, then EM)."
  echo
  echo "| benchmark | ms | cells | patterns | steps | alive |"
  echo "| --- | --- | --- | --- | --- | --- |"
  awk -F, 'NR == 1 { gsub(/"/, ""); for (i = 1; i <= NF; ++i) col[$i] = i; next }
    $1 ~ /BM_anchor/ { gsub(/"/, "", $1); printf "| %s | %.4g | 8 | %s | %s | %s |\n", $1, $3, $col["patterns"], $col["steps"], $col["alive"] }' "$tmp/em.csv"
  echo
  echo "## EM steps before and after (uniform start, plain steps, two threads)"
  echo
  echo "Size 0: NLTCS k = 8 (4 315 reports); 1 … 4: Adult k = 5 … 8 (3 256 reports; age 8 bins,"
  echo "workclass, education, sex, Salary, race, marital-status, hours-per-week 5 bins). Name: size/steps."
  echo "Before: the implementation of commit 36f78a9 (bench/joint_em_before.hpp: the per-cell product,"
  echo "a likelihood matrix when it fits 256 MiB). Each time includes the setup (packing or the matrix)."
  echo
  echo "| benchmark | ms | cells | patterns | steps | alive |"
  echo "| --- | --- | --- | --- | --- | --- |"
  table "BM_steps_"
  echo
  echo "## Whole runs now"
  echo
  echo "Name: size/rule; rule 0 = uniform start, max |ΔP| ≤ 1e-6 (the old default rule, which"
  echo "before took the 10 000-step cap: NLTCS k = 8 16.5 s, Adult k = 5 322 s); rule 1 = the"
  echo "default options (EmOptions{}). SQUAREM on, cells below 1e-12 pruned."
  echo
  echo "| benchmark | ms | cells | patterns | steps | alive |"
  echo "| --- | --- | --- | --- | --- | --- |"
  table "BM_run"
} >"$out"
rm -rf "$tmp"
echo "wrote $out"
