#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of the precision options (--epsilon-tolerance, --precision-bits): plan's
realized ε and random bits follow them and its trade table shows them; a coarse file round-trips
through simulate and aggregate (the header carries the precision, so the collector configures the
same probabilities), merging or aggregating files of two precisions together is refused, and
every misuse is refused with the option named.
usage: test_cli_precision.py <path to tinyldp>"""
import json
import os
import tempfile

from cli_harness import check, finish, run

def plan(*args):
    return json.loads(run("plan", *args, "--json").stdout)


# plan: at every tolerance the realized ε is within it below the request, and a coarser one draws
# fewer random bits; OUE at ε = 1, d = 1024 and 10⁻³ takes 5 bits per slot (unary_encoding.hpp's
# fitted p), against 24 at the default.
default = plan("-m", "oue", "-e", "1", "-d", "1024")
coarse = plan("-m", "oue", "-e", "1", "-d", "1024", "--epsilon-tolerance", "1e-3")
check(default["random_bits_per_report"] == 1 + 1024 * 24, f"oue default bits: {default['random_bits_per_report']}")
check(coarse["random_bits_per_report"] == 5132, f"oue at 1e-3: {coarse['random_bits_per_report']} bits")
check(1 - 1e-3 <= coarse["realized_epsilon"] <= 1, f"oue at 1e-3 realizes {coarse['realized_epsilon']}")
check("2111/2^12" in coarse["probabilities"] and "9/2^5" in coarse["probabilities"],
      f"oue at 1e-3: {coarse['probabilities']}")
for mech, extra in [("krr", ["-d", "16"]), ("olh", ["-d", "1024"]), ("sue", ["-d", "64"]), ("hr", ["-d", "256"]),
                    ("sd", ["--lo", "0", "--hi", "100"]), ("pm", ["--lo", "0", "--hi", "100"]),
                    ("sw", ["--lo", "0", "--hi", "100"]), ("hh", ["--lo", "0", "--hi", "100"])]:
    bits = []
    for tolerance in ("4.76837158203125e-7", "1e-4", "1e-3", "1e-2"):
        j = plan("-m", mech, "-e", "2", *extra, "--epsilon-tolerance", tolerance)
        check(2 - float(tolerance) - 1e-9 <= j["realized_epsilon"] <= 2,
              f"{mech} at {tolerance}: realized {j['realized_epsilon']}")
        bits.append(j["random_bits_per_report"])
    check(bits == sorted(bits, reverse=True) and bits[-1] < bits[0], f"{mech}: bits {bits} do not fall")
# A bit cap: every probability within it.
capped = plan("-m", "krr", "-e", "1", "-d", "16", "--precision-bits", "8")
check(capped["random_bits_per_report"] <= 8 and capped["realized_epsilon"] <= 1, f"krr capped at 8: {capped}")

# The trade table: four rows (the default first), variance against the default's, and a
# whole-report instruction count per target that falls with the random bytes.
rows = default["precision_trade"]
check([round(r["epsilon_tolerance"], 9) for r in rows] == [4.77e-07, 0.0001, 0.001, 0.01],
      f"trade tolerances: {[r['epsilon_tolerance'] for r in rows]}")
check(rows[0]["variance_ratio"] == 1.0, f"the default row's variance ratio: {rows[0]['variance_ratio']}")
check(all(1 <= r["variance_ratio"] < 1.03 for r in rows), f"variance ratios: {[r['variance_ratio'] for r in rows]}")
check(rows[2]["random_bytes_per_report"] == 5132 / 8, f"trade at 1e-3: {rows[2]['random_bytes_per_report']} bytes")
for target in ("cortex-m0", "cortex-m3", "cortex-m4f", "rv32imac"):
    counts = [r["whole_report_instructions"][target] for r in rows]
    check(all(c is not None and c > 0 for c in counts) and counts[2] < 0.45 * counts[0],
          f"{target}: whole-report instructions {counts}")
text = run("plan", "-m", "oue", "-e", "1", "-d", "1024").stdout
check("precision (--epsilon-tolerance)" in text and "M3 instr" in text, f"plan's text has no trade table:\n{text}")
# Mechanisms without a precision of their own have no table.
check("precision_trade" not in plan("-m", "dlaplace", "-e", "1", "--lo", "0", "--hi", "10"), "dlaplace has a trade table")

with tempfile.TemporaryDirectory() as tmp:
    path = lambda name: os.path.join(tmp, name)
    values = [v % 8 for v in range(20000)]
    with open(path("values.txt"), "w") as f:
        f.write("\n".join(map(str, values)) + "\n")
    # A coarse file round-trips: the estimates within 6 SE of the truth (1/8 each).
    run("simulate", "-m", "oue", "-e", "1", "-d", "8", "--epsilon-tolerance", "1e-2", "-i", path("values.txt"),
        "-o", path("coarse.tldp"), "--seed", "3")
    out = run("aggregate", path("coarse.tldp"), "--format", "csv").stdout.splitlines()
    rows = [line.split(",") for line in out[1:] if line]
    header = out[0].split(",")
    est, se = header.index("unbiased_estimate"), header.index("standard_error")
    check(len(rows) >= 8, f"aggregate printed {out}")
    for r in rows[:8]:
        check(abs(float(r[est]) - 0.125) <= 6 * float(r[se]), f"coarse oue estimate {r}")
    # The fit reaches the memo stage of a UE chain (its stage 1 is OUE at ε∞) and hh's OUE levels:
    # their estimates at a coarse precision are unbiased too (every value's within 6 SE of 1/8).
    for name, args in [("l-osue", ["-e", "2", "--epsilon-one", "1", "-d", "8"]),
                       ("hh", ["-e", "1", "--lo", "0", "--hi", "7"])]:
        run("simulate", "-m", name, *args, "--epsilon-tolerance", "1e-2", "-i", path("values.txt"),
            "-o", path(name + ".tldp"), "--seed", "5")
        lines = run("aggregate", path(name + ".tldp"), "--format", "csv").stdout.splitlines()
        cols = lines[0].split(",")
        freq = [r.split(",") for r in lines[1:] if r.startswith("frequency,")]
        check(len(freq) == 8, f"{name} at 1e-2: {len(freq)} frequencies")
        for r in freq:
            z = (float(r[cols.index("unbiased_estimate")]) - 0.125) / float(r[cols.index("standard_error")])
            check(abs(z) <= 6, f"{name} at 1e-2: estimate {r} is {z:.1f} SE from 1/8")
    # Files of two precisions: the digests differ, and mixing them is refused, naming the tolerance.
    run("simulate", "-m", "oue", "-e", "1", "-d", "8", "-i", path("values.txt"), "-o", path("default.tldp"),
        "--seed", "4")
    mixed = run("aggregate", path("coarse.tldp"), path("default.tldp"), expect=2)
    check("epsilon-tolerance 0.01" in mixed.stderr, f"mixed precisions: {mixed.stderr}")

# Misuse: each refused with the option named, exit 2.
for args, words in [
    (["-m", "dlaplace", "-e", "1", "--lo", "0", "--hi", "9", "--epsilon-tolerance", "1e-3"], "--epsilon-tolerance is not a parameter of dlaplace"),
    (["-m", "she", "-e", "1", "-d", "8", "--precision-bits", "8"], "--precision-bits is not a parameter of she"),
    (["-m", "rappor", "--f", "0.5", "--p", "0.25", "--q", "0.75", "-d", "8", "--epsilon-tolerance", "1e-3"],
     "--f, --p and --q"),
    (["-m", "oue", "-e", "1", "-d", "8", "--precision-bits", "0"], "--precision-bits must be 1 … 64"),
    (["-m", "oue", "-e", "1", "-d", "8", "--precision-bits", "65"], "--precision-bits must be 1 … 64"),
    (["-m", "oue", "-e", "1", "-d", "8", "--epsilon-tolerance", "1"], "must be below --epsilon"),
    (["-m", "oue", "-e", "1", "-d", "8", "--epsilon-tolerance", "0"], "--epsilon-tolerance"),
    (["-m", "l-osue", "-e", "2", "--epsilon-one", "0.5", "-d", "8", "--epsilon-tolerance", "0.5"],
     "must be below --epsilon-one"),
    (["-m", "oue", "-e", "1", "-d", "8", "--epsilon-tolerance", "-1e-3"], "--epsilon-tolerance"),
    (["-m", "oue", "-e", "1", "-d", "8", "--epsilon-tolerance", "lots"], "--epsilon-tolerance"),
]:
    p = run("plan", *args, expect=2)
    check(words in p.stderr, f"plan {' '.join(args)}: {p.stderr.strip()!r} lacks {words!r}")

finish()
