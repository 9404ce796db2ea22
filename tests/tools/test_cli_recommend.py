#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`tinyldp plan` without --mechanism recommends one: the mechanisms of the value kind ranked by
expected error — each the same number `plan -m X` prints (the collector's channel, not a second
formula) —, with report size, flash and RAM (docs/footprint.md's figures) beside each; limits
exclude with the reason; --explain says why the first is first; `plan -m X` is unchanged.
usage: test_cli_recommend.py <path to tinyldp>"""
import json
import math
import os
import re
import tempfile

from cli_harness import check, finish, run

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def recommend(*args, expect=0):
    return json.loads(run("plan", *args, "--json", expect=expect).stdout)


# Categorical, ε = 1, 16 items: every mechanism's error and report size are plan -m's own.
r = recommend("-e", 1, "-d", 16, "--n", 32561)
ranked = r["ranked"]
names = [j["mechanism"] for j in ranked]
check(set(names) == {"krr", "sue", "oue", "blh", "olh", "hr", "she", "the"}, f"the one-report categorical ones: {names}")
errors = [j["frequency_standard_error"] for j in ranked]
check(errors == sorted(errors), f"ranked by error: {errors}")
for j in ranked:
    own = json.loads(run("plan", "-m", j["mechanism"], "-e", 1, "-d", 16, "--n", 32561, "--json").stdout)
    check(own["frequency_standard_error"] == j["frequency_standard_error"] and own["report_bytes"] == j["report_bytes"],
          f"{j['mechanism']}: the same error and size as plan -m ({own['frequency_standard_error']})")
check([e["mechanism"] for e in r["excluded"]] == ["rr"] and "binary" in r["excluded"][0]["excluded"],
      f"rr is binary: not ranked, and why: {r['excluded']}")
# OUE's 4e^ε/(e^ε−1)² against k-RR's (e^ε+k−2)/(e^ε−1)²: k-RR wins below k = 3e^ε + 2.
e = math.e
check(names.index("oue") < names.index("krr"), "16 items at ε = 1: OUE before k-RR")
small = [j["mechanism"] for j in recommend("-e", 2, "-d", 3)["ranked"]]
check(small[0] == "krr", f"3 items at ε = 2 (< 3e² + 2): k-RR first, got {small}")
check(abs(recommend("-e", 2, "-d", 3, "--n", 1)["ranked"][0]["frequency_standard_error"] -
          math.sqrt((e ** 2 + 1) / (e ** 2 - 1) ** 2)) < 1e-4, "k-RR's closed form")

# Flash and RAM are docs/footprint.md's (cortex-m0 by default, --target another).
doc = open(os.path.join(SOURCE, "docs", "footprint.md"), encoding="utf-8").read()
oue = re.search(r"^\| `oue` \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|", doc, re.M)
by_name = {j["mechanism"]: j for j in ranked}
check((by_name["oue"]["flash_bytes"], by_name["oue"]["ram_bytes"]) == (int(oue[1]), int(oue[2])),
      f"oue's cortex-m0 figures: {by_name['oue']}")
m3 = {j["mechanism"]: j for j in recommend("-e", 1, "-d", 16, "--target", "cortex-m3")["ranked"]}
check(m3["oue"]["flash_bytes"] == int(oue[3]), "--target cortex-m3")
check("docs/footprint.md at" in r["footprint_source"], "the figures' source is stated")

# Limits: excluded with the reason; none left is exit 2. Within 8-byte reports hr and krr fit;
# a flash limit one byte below krr's documented figure (read, not typed: figures move) leaves
# hr (the smaller program) and excludes krr, saying by how much.
krr_flash = int(re.search(r"^\| `krr` \| (\d+) \|", doc, re.M)[1])
hr_flash = int(re.search(r"^\| `hr` \| (\d+) \|", doc, re.M)[1])
check(hr_flash < krr_flash, f"hr's program is the smaller one ({hr_flash} < {krr_flash} B)")
limited = recommend("-e", 1, "-d", 16, "--max-report-bytes", 8, "--max-flash", krr_flash - 1)
check([j["mechanism"] for j in limited["ranked"]] == ["hr"], f"8 bytes, {krr_flash - 1} B of flash: {limited['ranked']}")
reasons = {j["mechanism"]: j["excluded"] for j in limited["excluded"]}
check(reasons["oue"].startswith("report 9 B > --max-report-bytes 8") and
      reasons.get("krr") == f"flash {krr_flash} B > --max-flash {krr_flash - 1}", f"reasons: {reasons}")
p = run("plan", "-e", 1, "-d", 16, "--max-flash", 100, expect=2)
check("(none meets the limits)" in p.stdout, f"nothing fits: {p.stdout}")
# Over time: every mechanism's figures are its own device-list row, found by wire id (the row is
# the wire enumerator: l-osue's is `l_osue`); a limit one byte below LOLOHA's excludes both of
# its forms and keeps the smaller two-stage chains.
def row_flash(row):
    return int(re.search(rf"^\| `{row}` \| (\d+) \|", doc, re.M)[1])


memo = recommend("-e", 2, "--epsilon-one", 1, "-d", 16)
check({j["mechanism"]: j["flash_bytes"] for j in memo["ranked"]} ==
      {m: row_flash(m.replace("-", "_")) for m in ("l-sue", "l-osue", "l-oue", "l-soue", "l-grr", "loloha", "biloloha")},
      f"over time: each one's own row: {memo['ranked']}")
loloha_flash = row_flash("loloha")
memo = recommend("-e", 2, "--epsilon-one", 1, "-d", 16, "--max-flash", loloha_flash - 1)
reasons = {j["mechanism"]: j["excluded"] for j in memo["excluded"]}
check(reasons.get("loloha") == reasons.get("biloloha") == f"flash {loloha_flash} B > --max-flash {loloha_flash - 1}" and
      "l-osue" in [j["mechanism"] for j in memo["ranked"]], f"over time, a flash limit: {memo}")
numeric = recommend("-e", 2, "--epsilon-one", 1, "--lo", 0, "--hi", 100, "--grid-step", 10)
check({j["mechanism"]: j["flash_bytes"] for j in numeric["ranked"]} ==
      {"1bitmean": row_flash("one_bit_mean"), "dbitflip": row_flash("dbitflip")}, f"numeric over time: {numeric}")

# Numeric values: ranked by the mean's error; reports over time by ε∞ and ε₁.
# The Hybrid Mechanism's worst case is the smallest at every ε: 1.042 at ε = 2 (half-ranges
# squared), then the Piecewise Mechanism's (at the ends) 1.228, Duchi's (sd, in the middle) 1.724;
# at ε = 1 HM's 4.289 before Duchi's 4.683 and PM's 5.224 (PM beats Duchi from ε ≈ 1.3 on).
numeric = recommend("-e", 2, "--lo", 17, "--hi", 90)
check([j["mechanism"] for j in numeric["ranked"]] == ["hm", "pm", "sw", "dlaplace", "sd", "hh", "haar-hrr"] and
      "mean_standard_error" in numeric["ranked"][0], f"numeric: {numeric['ranked']}")
se = {j["mechanism"]: j["mean_standard_error"] for j in numeric["ranked"]}
check(abs((se["pm"] / se["sd"]) ** 2 - 1.2276 / 1.7241) < 0.01, f"pm against sd at ε = 2: {se}")
check(abs((se["hm"] / se["sd"]) ** 2 - 1.0423 / 1.7241) < 0.01, f"hm against sd at ε = 2: {se}")
# The ratios docs/cli.md quotes at ε = 4 and 8 (the formulas': pm 0.2243, 0.02531; hm 0.2035,
# 0.02487), within 2 %.
for eps, pm_ratio, hm_ratio in ((4, 0.24135 / 1.07602, 0.21898 / 1.07602), (8, 0.025341 / 1.001343, 0.024901 / 1.001343)):
    se = {j["mechanism"]: j["mean_standard_error"] for j in recommend("-e", eps, "--lo", 17, "--hi", 90)["ranked"]}
    check(abs((se["pm"] / se["sd"]) ** 2 / pm_ratio - 1) < 0.02, f"pm against sd at ε = {eps}: {se}")
    check(abs((se["hm"] / se["sd"]) ** 2 / hm_ratio - 1) < 0.02, f"hm against sd at ε = {eps}: {se}")
check([j["mechanism"] for j in recommend("-e", 1, "--lo", 17, "--hi", 90)["ranked"]][:3] == ["hm", "sd", "pm"],
      "HM, then Duchi's below ε ≈ 1.3")
check({j["mechanism"] for j in recommend("-e", 2, "--epsilon-one", 1, "--lo", 0, "--hi", 100)["ranked"]} ==
      {"1bitmean", "dbitflip"}, "numeric over time")

# --for quantiles: ranked by the SE of the CDF at the middle value (values spread evenly); the
# mean-only mechanisms and sd's two levels are not ranked, saying why. The figure is what an
# aggregate of such values gives: `--range 17:53` (the CDF at the middle row, 53) within 10 %.
quantiles = recommend("-e", 1, "--lo", 17, "--hi", 90, "--n", 32561, "--for", "quantiles")
check([j["mechanism"] for j in quantiles["ranked"]] == ["haar-hrr", "hh", "sw", "dlaplace"] and
      "cdf_standard_error" in quantiles["ranked"][0], f"for quantiles: {quantiles['ranked']}")
reasons = {j["mechanism"]: j["excluded"] for j in quantiles["excluded"]}
check(reasons.get("pm") == "gives the mean only, no distribution" and "too coarse for quantiles" in reasons.get("sd", ""),
      f"not ranked for quantiles: {reasons}")
with tempfile.TemporaryDirectory() as tmp:
    uniform = os.path.join(tmp, "uniform.csv")
    with open(uniform, "w") as f:
        f.write("v\n" + "".join(f"{17 + (i * 31) % 74}\n" for i in range(32561)))
    for j in quantiles["ranked"][:3]:
        reports = os.path.join(tmp, f"uniform-{j['mechanism']}.tldp")
        run("simulate", "-m", j["mechanism"], "-e", 1, "--lo", 17, "--hi", 90, "-i", uniform, "-c", "v", "-o", reports,
            "--seed", 5)
        measured = json.loads(run("aggregate", reports, "-f", "json", "--range", "17:53").stdout)["range"]["standard_error"]
        check(abs(measured / j["cdf_standard_error"] - 1) < 0.1, f"{j['mechanism']}: plan's CDF SE {j} against {measured}")
# The figures docs/cli.md, docs/accuracy.md and the CHANGELOG quote: over [17, 90] at n = 32 561
# and ε = 1 (haar-hrr 0.029, hh 0.033, sw 0.042, dlaplace 3.1; for the mean hh 1.0, haar-hrr 1.1,
# hm 0.42), and over [0, 4095] at n = 10⁵ the crossover: haar-hrr first at ε ≤ 1, hh at 2 and 4,
# sw at 8 (0.0119 against hh's 0.0136 at ε = 1; hh 0.0047 against haar-hrr's 0.0057 at ε = 4).
cdf_se = {j["mechanism"]: j["cdf_standard_error"] for j in quantiles["ranked"]}
for name, quoted in (("haar-hrr", 0.029), ("hh", 0.033), ("sw", 0.042), ("dlaplace", 3.1)):
    check(abs(cdf_se[name] / quoted - 1) < 0.05, f"{name}'s CDF SE as docs/cli.md quotes it: {cdf_se}")
mean_se = {j["mechanism"]: j["mean_standard_error"] for j in recommend("-e", 1, "--lo", 17, "--hi", 90, "--n", 32561)["ranked"]}
for name, quoted in (("hh", 1.0), ("haar-hrr", 1.1), ("hm", 0.42)):
    check(abs(mean_se[name] / quoted - 1) < 0.05, f"{name}'s mean SE as docs/cli.md quotes it: {mean_se}")
wide = {eps: recommend("-e", eps, "--lo", 0, "--hi", 4095, "--n", 100000, "--for", "quantiles")["ranked"]
        for eps in (0.5, 1, 2, 4, 8)}
check([wide[e][0]["mechanism"] for e in (0.5, 1, 2, 4, 8)] == ["haar-hrr", "haar-hrr", "hh", "hh", "sw"],
      f"the crossover: {wide}")
for eps, first, second in ((1, 0.0119, 0.0136), (4, 0.0047, 0.0057)):
    se = [j["cdf_standard_error"] for j in wide[eps][:2]]
    check(abs(se[0] / first - 1) < 0.02 and abs(se[1] / second - 1) < 0.02, f"the crossover's figures at ε = {eps}: {se}")
p = run("plan", "-e", 1, "-d", 16, "--for", "quantiles", expect=2)
check("--for quantiles ranks the numeric mechanisms" in p.stderr, f"--for quantiles, categorical: {p.stderr}")

# --for distribution: ranked by the expected W1 of the unbiased CDF (in the values' units; its
# agreement with simulated fleets is tests/collector/test_planned_errors.cpp's), the same rows
# required as for quantiles; sd ranks once it has a row per value.
dist = recommend("-e", 1, "--lo", 17, "--hi", 90, "--n", 32561, "--for", "distribution")
w1 = [j["distribution_w1"] for j in dist["ranked"]]
check([j["mechanism"] for j in dist["ranked"]] == ["haar-hrr", "hh", "sw", "dlaplace"] and w1 == sorted(w1) and
      dist["request"].endswith("for the distribution"), f"for the distribution: {dist}")
reasons = {j["mechanism"]: j["excluded"] for j in dist["excluded"]}
check(reasons.get("hm") == "gives the mean only, no distribution" and
      "too coarse for the distribution" in reasons.get("sd", ""), f"not ranked for the distribution: {reasons}")
# ε = 1 over 74 values at n = 32 561: the wavelet 1.5 years, the tree 1.6, sw 2.5
# (EM takes it far lower, docs/numeric-accuracy.md), dlaplace 171; sd over 74 levels 5.7.
check(all(abs(a / b - 1) < 0.05 for a, b in zip(w1, (1.47, 1.65, 2.49, 171))), f"W1 figures: {w1}")
sd74 = recommend("-e", 1, "--lo", 17, "--hi", 90, "--n", 32561, "--levels", 74, "--for", "distribution")
check([j["mechanism"] for j in sd74["ranked"]] == ["sw", "sd"], f"sd over 74 levels: {sd74}")
p = run("plan", "-e", 1, "-d", 16, "--for", "distribution", expect=2)
check("--for distribution ranks the numeric mechanisms" in p.stderr, f"--for distribution, categorical: {p.stderr}")

# --explain, the text table, and the errors.
p = run("plan", "-e", 1, "-d", 16, "--max-flash", 1500, "--explain")
check(p.stdout.splitlines()[2].split()[:2] == ["1", "olh"] and "why olh first" in p.stdout and
      "without the limits oue would be first" in p.stdout, f"--explain: {p.stdout}")
check("needs" in p.stdout and "× the reports for the same error" in p.stdout, "the next one's cost in reports")
p = run("plan", "-e", 1, "--kind", "numeric", expect=2)
check("--lo and --hi" in p.stderr, f"numeric needs a range: {p.stderr}")
p = run("plan", "-d", 16, expect=2)
check("give --epsilon" in p.stderr, f"no ε: {p.stderr}")
p = run("plan", "-m", "oue", "-e", 1, "-d", 16, "--explain", expect=2)
check("are for the recommendation" in p.stderr, f"recommendation options with -m: {p.stderr}")
p = run("plan", "-m", "oue", "-e", 1, "-d", 16)
check(p.stdout.startswith("mechanism           oue over 16 items\n"), f"plan -m as before: {p.stdout}")

finish()
