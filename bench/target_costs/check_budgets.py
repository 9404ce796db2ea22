#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Instruction budgets per report (and per DRBG byte) on every emulated target.

Reads target_costs' output (run under QEMU with -icount: deterministic instruction counts) on
stdin and compares every measured line with its budget in budgets.txt for this target: a line
over its budget, a line without one, or a budget with no line fails. A change that needs more
instructions raises the number in budgets.txt in the same commit and says why (as
tests/footprint/budgets.txt does for flash and stack).

With --doc it checks docs/target-costs.md instead (scripts/target-costs writes it): every count
its tables give for this target must be within DOC_TOLERANCE_PERCENT of this run's, and every
measured line must be in them — the published figures stay true.

usage: target_costs | check_budgets.py --budgets budgets.txt --target cortex-m0
         [--scale F --expect-over]
       target_costs | check_budgets.py --doc docs/target-costs.md --target cortex-m0
         [--plant-stale case,parameter,unit]
  --scale F      multiplies every budget by F first
  --expect-over  the selftest: succeed only if the run finished and some count is over its
                 (lowered) budget — the check catches a regression
  --plant-stale  the selftest of --doc: moves that documented count past the tolerance and
                 succeeds only if the check reports it
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from doc_tables import table_rows  # noqa: E402  (bench/doc_tables.py, shared with footprint.py)

TARGETS = ["cortex-m0", "cortex-m3", "cortex-m4f", "rv32imac"]
# The column each target has in docs/target-costs.md.
TITLES = {"cortex-m0": "Cortex-M0", "cortex-m3": "Cortex-M3", "cortex-m4f": "Cortex-M4F",
          "rv32imac": "RV32IMAC"}
# How far a documented count may be from the measured one before the document is stale
# (docs/target-costs.md states it).
DOC_TOLERANCE_PERCENT = 2.0
# What docs/target-costs.md calls each case that is not plainly its name (scripts/target-costs
# writes the names; the device list's entries go by theirs).
NAMES = {
    "sue_without_rng": "sue without the source's fills",
    "oue_without_rng": "oue without the source's fills",
    "sue_mechanism_alone": "sue, mechanism alone (random words from a table)",
    "sue_unaligned_without_rng": "sue without the source's fills, report at an odd address",
    "oue_unaligned_without_rng": "oue without the source's fills, report at an odd address",
    "oue_mechanism_alone": "oue, mechanism alone (random words from a table)",
    "drbg_fill": "ChaCha20 DRBG fill", "drbg_randombits_draw32": "DRBG through RandomBits (draw32)",
    "chacha20_block": "chacha20_block", "poly1305": "Poly1305", "seal_tag": "sealing's tag (ChaCha20 + Poly1305)",
    "report_auth_seal": "ReportAuth seal (RAM storage)",
}


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


def read_doc(path, target):
    """{(case, parameter, unit): count} of the target's column in docs/target-costs.md."""
    cases = {title: name for name, title in NAMES.items()}
    figures = {}
    with open(path) as f:
        for header, cells in table_rows(f):
            if header[:3] != ["what", "d or request", "unit"]:
                continue
            column = header.index(TITLES[target])
            if cells[column] != "—":
                name = cases.get(cells[0], cells[0])
                figures[(name, cells[1], cells[2].replace(" ", "_"))] = float(cells[column])
    return figures


def check_doc(path, target, measured, plant, compiler_version):
    with open(path) as f:
        toolchain = [line for line in f if line.startswith(f"- {TITLES[target]}: ")]
    if compiler_version and not any(compiler_version in line for line in toolchain):
        print(f"SKIP: {path} was measured on {target} with another compiler than this build's"
              f" ({compiler_version}): its counts are not comparable")
        sys.exit(77)
    figures = read_doc(path, target)
    if plant:
        key = tuple(plant.split(","))
        if key not in figures:
            sys.exit(f"cannot plant {plant}: {path} has no such count for {target}")
        figures[key] *= 1 + 2 * DOC_TOLERANCE_PERCENT / 100
    problems = []
    for key, value in sorted(measured.items()):
        documented = figures.get(key)
        if documented is None:
            problems.append(f"{' '.join(key)}: measured {value}, not in the document")
        elif abs(value - documented) > documented * DOC_TOLERANCE_PERCENT / 100:
            problems.append(f"{' '.join(key)}: documented {documented:g}, measured {value:g}")
    for key in sorted(set(figures) - set(measured)):
        problems.append(f"{' '.join(key)}: documented, but nothing measured")
    for p in problems:
        print(f"STALE on {target}: {p}")
    if plant:
        if any(p.startswith(" ".join(tuple(plant.split(","))) + ":") for p in problems):
            print(f"the check reports the planted stale count ({plant})")
            return
        sys.exit(f"FAIL: the planted stale count {plant} was not reported")
    if problems:
        sys.exit(f"{path} no longer matches this build on {target}: run scripts/target-costs to"
                 " regenerate it (and say in the commit why the counts moved)")
    print(f"{len(measured)} counts of {path} within {DOC_TOLERANCE_PERCENT:g} % of this run's on {target}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--budgets")
    p.add_argument("--doc")
    p.add_argument("--target", required=True, choices=TARGETS)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--expect-over", action="store_true")
    p.add_argument("--plant-stale", metavar="CASE,PARAMETER,UNIT")
    p.add_argument("--compiler-version", help="this build's; --doc skips (77) if the document's differs")
    a = p.parse_args()
    if bool(a.budgets) == bool(a.doc):
        p.error("give --budgets or --doc")
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
    if a.doc:
        check_doc(a.doc, a.target, measured, a.plant_stale, a.compiler_version)
        return
    budgets = read_budgets(a.budgets, a.target)
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
