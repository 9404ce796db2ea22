#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Instruction budgets per report (and per DRBG byte) on every emulated target.

Reads target_costs' output (run under QEMU with -icount: deterministic instruction counts) on
stdin and compares every measured line with its budget in budgets.txt for this target: a line
over its budget, a line without one, or a budget with no line fails. A change that needs more
instructions raises the number in budgets.txt in the same commit and says why (as
tests/footprint/budgets.txt does for flash and stack).

usage: target_costs | check_budgets.py --budgets budgets.txt --target cortex-m0
         [--scale F --expect-over]
  --scale F      multiplies every budget by F first
  --expect-over  the selftest: succeed only if the run finished and some count is over its
                 (lowered) budget — the check catches a regression
"""
import argparse
import sys

TARGETS = ["cortex-m0", "cortex-m3", "cortex-m4f", "rv32imac"]


def read_budgets(path, target):
    budgets = {}
    column = TARGETS.index(target)
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split()
            if len(fields) != 3 + len(TARGETS):
                sys.exit(f"{path}: malformed line: {line}")
            budgets[(fields[0], fields[1], fields[2])] = float(fields[3 + column])
    return budgets


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--budgets", required=True)
    p.add_argument("--target", required=True, choices=TARGETS)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--expect-over", action="store_true")
    a = p.parse_args()
    budgets = read_budgets(a.budgets, a.target)
    measured = {}
    done = False
    for line in sys.stdin:
        line = line.strip()
        if line == "done":
            done = True
        elif line.startswith("error"):
            sys.exit(f"FAIL: target_costs reported {line}")
        parts = line.split(",")
        if len(parts) == 4 and parts[0] not in ("case", "calibration"):
            unit = parts[2].replace(" ", "_")
            measured[(parts[0], parts[1], unit)] = float(parts[3])
    if not done or not measured:
        sys.exit("FAIL: target_costs did not finish (no 'done' line)")
    failures = []
    for key, value in sorted(measured.items()):
        budget = budgets.get(key)
        if budget is None:
            failures.append(f"{' '.join(key)}: {value} instructions, no budget")
        elif value > budget * a.scale:
            failures.append(f"{' '.join(key)}: {value} instructions, budget {budget * a.scale:g}")
    for key in sorted(set(budgets) - set(measured)):
        failures.append(f"{' '.join(key)}: a budget, but nothing measured")
    print(f"{len(measured)} measurements on {a.target}; {len(failures)} over budget or unbudgeted")
    for f in failures:
        print("  " + f)
    if a.expect_over:
        if not any("budget " in f for f in failures):
            sys.exit("FAIL: no count exceeded the lowered budgets")
        print("the lowered budgets caught the counts")
    elif failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
