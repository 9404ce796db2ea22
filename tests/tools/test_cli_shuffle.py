# SPDX-License-Identifier: Apache-2.0
"""The central ε of a shuffled batch in `plan` and `aggregate` (docs/privacy-model.md, "Shuffled
batches"): the JSON and the text agree with the reference values of FMT21 where the configuration
realizes their ε₀, aggregate takes n from the reports it counted, memoized mechanisms use ε₁, and
--delta outside (0, 1) is refused."""
import json
import os
import re
import tempfile

from cli_harness import check, finish, run

# plan at the notes' rows: k-RR at ε 4 realizes 4 to 2^-32's rounding, and 1 likewise.
for epsilon, n, delta, closed, ref_lower, ref_upper in [
    ("4", 100000, "1e-6", 0.5378, 0.1675, 0.1725),
    ("1", 1000000, "1e-6", 0.0238, 0.0043, 0.0046),
    ("4", 10000000, "1e-7", 0.0728, 0.0168, 0.0169),
]:
    p = run("plan", "-m", "krr", "-e", epsilon, "-d", "4", "--n", n, "--delta", delta, "--json")
    s = json.loads(p.stdout)["shuffled_batch"]
    check(s["n"] == n and s["delta"] == float(delta), f"plan n, delta: {s}")
    check(abs(s["epsilon0"] - float(epsilon)) < 1e-6, f"plan epsilon0: {s}")
    check(abs(s["closed_form"] - closed) < 5e-4, f"closed form {s['closed_form']} vs {closed}")
    check(ref_lower - 5e-5 <= s["numerical_lower"] <= s["numerical_upper"] <= ref_upper + 5e-5,
          f"numerical ({s['numerical_lower']}, {s['numerical_upper']}) outside ({ref_lower}, {ref_upper})")
    check("analyst" in s["protects"] and "gate" in s["protects"], f"protects: {s['protects']}")
    text = run("plan", "-m", "krr", "-e", epsilon, "-d", "4", "--n", n, "--delta", delta).stdout
    shown = re.search(r"numerical \(FMT21\)\s+epsilon ([0-9.]+)", text)
    check(shown is not None and abs(float(shown.group(1)) - s["numerical_upper"]) < 1e-6, f"plan text: {text}")

# Outside the closed form's condition it says so; the numerical bound still answers.
s = json.loads(run("plan", "-m", "krr", "-e", "4", "-d", "4", "--n", "50", "--json").stdout)["shuffled_batch"]
check(s["closed_form"] is None and 0 < s["numerical_upper"] <= s["epsilon0"], f"small batch: {s}")
text = run("plan", "-m", "krr", "-e", "4", "-d", "4", "--n", "50").stdout
check("not applicable" in text, f"small batch text: {text}")

# Memoized: ε₀ is ε₁.
s = json.loads(run("plan", "-m", "l-osue", "-e", "4", "--epsilon-one", "1", "-d", "8", "--n", "1000000",
                   "--json").stdout)["shuffled_batch"]
check(abs(s["epsilon0"] - 1) < 1e-5 and "epsilon one" in s["epsilon0_is"], f"memoized epsilon0: {s}")

# aggregate: n is the reports counted.
with tempfile.TemporaryDirectory() as tmp:
    values = os.path.join(tmp, "values.txt")
    with open(values, "w") as f:
        f.write("".join(f"{i % 8}\n" for i in range(5000)))
    reports = os.path.join(tmp, "r.tldp")
    run("simulate", "-m", "oue", "-e", "2", "-d", "8", "-i", values, "-o", reports, "--seed", "3")
    about = json.loads(run("aggregate", reports, "--format", "json", "--delta", "1e-5").stdout)  # about at the top
    s = about["shuffled_batch"]
    check(s["n"] == about["reports"] == 5000 and s["delta"] == 1e-5, f"aggregate n: {s}")
    check(abs(s["epsilon0"] - about["realized_epsilon"]) < 1e-12, f"aggregate epsilon0: {s}")
    check(s["numerical_upper"] < s["epsilon0"], f"aggregate amplification: {s}")
    csv = run("aggregate", reports)
    check("tinyldp: shuffled batch of 5000 reports" in csv.stderr and "still face epsilon0" in csv.stderr,
          f"aggregate csv stderr: {csv.stderr}")
    # A counted file is not a shuffled batch by itself: the output says what the figure assumes.
    check("holds only if the reports came through a shuffler" in csv.stderr and "tinyldp gate" in s["holds_if"],
          f"aggregate's assumption: {csv.stderr}")
    p = run("aggregate", reports, "--delta", "0", expect=1)
    check("(0, 1)" in p.stderr, f"aggregate --delta 0: {p.stderr}")

# δ must be well below 1/n: plan warns at δ·n ≥ 1 and not below.
for n, too_large in [(100000, False), (1000000, True), (10000000, True)]:
    p = run("plan", "-m", "krr", "-e", "4", "-d", "4", "--n", n)
    s = json.loads(run("plan", "-m", "krr", "-e", "4", "-d", "4", "--n", n, "--json").stdout)["shuffled_batch"]
    check(s["delta_too_large"] == too_large and ("WARNING: delta is not below 1/n" in p.stdout) == too_large,
          f"plan n {n}, delta 1e-6: {s['delta_too_large']} {p.stdout}")

for bad in ["0", "1", "-1e-6", "x"]:
    p = run("plan", "-m", "krr", "-e", "1", "--delta", bad, expect=1)
    check("--delta must lie in (0, 1)" in p.stderr, f"plan --delta {bad}: {p.stderr}")

finish()
