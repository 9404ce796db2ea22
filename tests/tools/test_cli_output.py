#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`tinyldp aggregate`'s tables as a reader's tools see them: the CSV read back with Python's
csv module (RFC 4180) — labels with a comma and with quotes survive, one table per output (the
numeric mean in it, `kind` telling rows apart), counts as plain numbers equal to the estimate
× reports, every interval containing the estimate printed beside it, whatever the
post-processing — and the JSON saying the same.
usage: test_cli_output.py <path to tinyldp>"""
import csv
import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile

TINYLDP = sys.argv[1]
failures = 0


def run(*args):
    p = subprocess.run([TINYLDP, *map(str, args)], capture_output=True, text=True)
    check(p.returncode == 0, f"{' '.join(map(str, args))}: exit {p.returncode}\n{p.stderr}")
    return p.stdout


def check(condition, message):
    global failures
    if not condition:
        failures += 1
        print("FAIL", message)


def check_rows(rows, reports, post, what):
    """Plain counts equal to estimate × reports, intervals around the estimate."""
    for r in rows:
        if r["kind"] != "frequency":
            continue
        check(re.fullmatch(r"-?\d+\.\d", r["count"]) is not None, f"{what}: plain count {r['count']!r}")
        check(abs(float(r["count"]) - float(r["estimate"]) * reports) <= 0.05 + 1e-5 * reports,
              f"{what} {r['item']}: count {r['count']} = estimate {r['estimate']} × {reports}")
        check(float(r["ci_low"]) <= float(r["estimate"]) <= float(r["ci_high"]),
              f"{what} {r['item']}: {r['estimate']} in [{r['ci_low']}, {r['ci_high']}]")
        if post == "none":
            check(r["estimate"] == r["unbiased_estimate"], f"{what}: without post-processing the estimate is unbiased")
        else:
            check(0 <= float(r["ci_low"]) and float(r["ci_high"]) <= 1, f"{what}: post-processed interval in [0, 1]")


with tempfile.TemporaryDirectory() as tmp:
    path = lambda name: os.path.join(tmp, name)
    labels = ["green, light", 'say "hi"', "plain", "a label much longer than any chart has room for, to be cut"]
    labels += [f"c{i}" for i in range(36)]  # a long domain: 40 categories
    counts = [3000, 2000, 1500, 1000] + [40 + 10 * i for i in range(36)]
    with open(path("data.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "shade"])
        for label, count in zip(labels, counts):
            for _ in range(count):
                w.writerow([len(label), label])
    n = sum(counts)
    run("simulate", "-m", "oue", "-e", "2", "-d", 40, "-i", path("data.csv"), "-c", "shade", "--labels",
        "-o", path("shade.tldp"), "--seed", 5)
    for post in ["none", "clip", "norm-sub", "simplex", "em"]:
        out = run("aggregate", path("shade.tldp"), "--labels", path("shade.tldp.labels"), "--truth", path("data.csv"),
                  "--column", "shade", "--postprocess", post, "--plot", path(f"shade-{post}.svg"))
        check("\n\n" not in out, f"{post}: one table, no blank line")
        rows = list(csv.DictReader(io.StringIO(out)))
        check(list(rows[0]) == ["kind", "item", "estimate", "count", "ci_low", "ci_high", "unbiased_estimate",
                                "standard_error", "true_value"], f"{post}: header {list(rows[0])}")
        check([r["item"] for r in rows] == labels, f"{post}: labels read back exactly: {[r['item'] for r in rows][:3]}")
        check(all(len(r) == 9 and None not in r for r in rows), f"{post}: every row has every column")
        check_rows(rows, n, post, post)
        truth = {r["item"]: float(r["true_value"]) for r in rows}
        check(math.isclose(truth["green, light"], 3000 / n, rel_tol=1e-5), f"{post}: truth of a quoted label")
        j = json.loads(run("aggregate", path("shade.tldp"), "--labels", path("shade.tldp.labels"), "-f", "json",
                           "--postprocess", post))
        for item in j["items"]:
            check(math.isclose(item["count"], item["estimate"] * j["reports"], rel_tol=1e-12, abs_tol=1e-9),
                  f"{post} JSON {item['item']}: count = frequency × reports")
            check(item["ci_low"] <= item["estimate"] <= item["ci_high"], f"{post} JSON: interval contains frequency")
            check("unbiased_estimate" in item and "standard_error" in item, f"{post} JSON: unbiased fields")
    # The unbiased interval is the estimate ± z·SE; post-processing cuts it to [0, 1] and
    # stretches it to the post-processed value, never moving it otherwise.
    raw = {r["item"]: r for r in csv.DictReader(io.StringIO(run("aggregate", path("shade.tldp"), "--labels",
                                                                path("shade.tldp.labels"))))}
    for r in raw.values():
        z = (float(r["ci_high"]) - float(r["estimate"])) / float(r["standard_error"])
        check(abs(z - 1.959964) < 1e-3, f"unbiased interval at 1.96 SE: {z}")
    for r in csv.DictReader(io.StringIO(run("aggregate", path("shade.tldp"), "--labels", path("shade.tldp.labels"),
                                            "--postprocess", "norm-sub"))):
        u = raw[r["item"]]
        low = min(max(float(u["ci_low"]), 0), float(r["estimate"]))
        check(abs(float(r["ci_low"]) - low) < 1e-5, f"norm-sub {r['item']}: interval from the unbiased one")

    # A numeric mechanism: the mean and the distribution in one table.
    with open(path("ages.csv"), "w") as f:
        f.write("age\n" + "".join(f"{20 + (i * 7) % 41}\n" for i in range(8000)))
    run("simulate", "-m", "dlaplace", "-e", "2", "--lo", 20, "--hi", 60, "-i", path("ages.csv"), "-c", "age",
        "-o", path("age.tldp"), "--seed", 9)
    for post in ["none", "norm-sub", "em"]:
        rows = list(csv.DictReader(io.StringIO(run("aggregate", path("age.tldp"), "--truth", path("ages.csv"), "-c",
                                                   "age", "--postprocess", post))))
        check([r["kind"] for r in rows] == ["mean"] + ["quantile"] * 4 + ["frequency"] * 41, f"dlaplace {post}: kinds")
        quantiles, rows = rows[1:5], rows[:1] + rows[5:]
        for q in quantiles:  # the value, its interval around it, the truth's quantile; no count or SE
            check(float(q["ci_low"]) <= float(q["estimate"]) <= float(q["ci_high"]) and q["count"] == "" and
                  q["standard_error"] == "" and 20 <= float(q["true_value"]) <= 60, f"dlaplace {post}: quantile {q}")
        mean = rows[0]
        check(mean["item"] == "" and mean["count"] == "" and
              float(mean["ci_low"]) < float(mean["estimate"]) < float(mean["ci_high"]), f"dlaplace {post}: mean row")
        check(abs(float(mean["true_value"]) - 40) < 0.1, f"dlaplace {post}: true mean {mean['true_value']}")
        check([r["item"] for r in rows[1:]] == [str(v) for v in range(20, 61)], f"dlaplace {post}: items")
        check_rows(rows, 8000, post, f"dlaplace {post}")
        if post == "em":  # a distribution, where the unbiased estimates leave [0, 1]
            estimates = [float(r["estimate"]) for r in rows[1:]]
            check(min(estimates) >= 0 and abs(sum(estimates) - 1) < 1e-6, f"dlaplace em: a distribution")
            check(max(abs(float(r["unbiased_estimate"])) for r in rows[1:]) > 1, "dlaplace: unbiased beyond ±1")
    j = json.loads(run("aggregate", path("age.tldp"), "--postprocess", "em", "--em-tolerance", "1e-4", "-f", "json"))
    check(j["postprocess"] == "em" and 0 < j["em_iterations"] < 10000 and j["em_converged"] is True,
          f"em's run in the JSON: {j.get('em_iterations')}, {j.get('em_converged')}")
    p = subprocess.run([TINYLDP, "aggregate", path("age.tldp"), "--postprocess", "em", "--em-max-iterations", "3"],
                       capture_output=True, text=True)
    check(p.returncode == 0 and "em stopped at --em-max-iterations 3" in p.stderr, f"em at its cap: {p.stderr}")
    # The default chart of a numeric distribution draws EM's bars: stopped at its cap, the chart's
    # title and stderr say so (once converged, neither does).
    for cap, tolerance, converged in [("3", "1e-9", False), ("10000", "1e-3", True)]:
        svg = path(f"age-cap{cap}.svg")
        p = subprocess.run([TINYLDP, "aggregate", path("age.tldp"), "--plot", svg, "--em-max-iterations", cap,
                            "--em-tolerance", tolerance], capture_output=True, text=True)
        with open(svg) as f:
            drawn = f.read()
        said = f"warning: em not converged after {cap} iterations" in drawn
        check(p.returncode == 0 and said != converged and ("em stopped" in p.stderr) != converged,
              f"unconverged chart (cap {cap}): title {said}, stderr {p.stderr}")
    p = subprocess.run([TINYLDP, "aggregate", path("age.tldp"), "--postprocess", "em", "--em-max-iterations", "0"],
                       capture_output=True, text=True)
    check(p.returncode != 0 and "--em-max-iterations must be at least 1" in p.stderr, f"cap 0 refused: {p.stderr}")

print(f"{1 if failures == 0 else 0} passed, {1 if failures else 0} failed ({failures} failed checks)")
sys.exit(1 if failures else 0)
