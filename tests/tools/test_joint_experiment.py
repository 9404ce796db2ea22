# SPDX-License-Identifier: Apache-2.0
"""Smoke test of experiments/joint-experiment --quick: on small synthetic files shaped like NLTCS
(16 binary columns, no header) and Adult (its header and values, some rows with a missing value)
it writes the CSV, the Markdown report and the three plots; every run has every estimator and
both baselines with an AVD in [0, 1] and the record's ε₁ and ε∞; a second run reuses the cached
rows; a different EM setting against the cache, and a k out of range, are refused with the reason;
an estimate over --timeout is recorded as a timeout.
argv: the tinyldp command, the script."""
import csv
import os
import random
import subprocess
import sys
import tempfile
from cli_harness import TINYLDP, check, finish

SCRIPT = sys.argv[2]
work = tempfile.mkdtemp(prefix="tinyldp-joint-experiment-")
data, out = os.path.join(work, "data"), os.path.join(work, "out")
os.makedirs(data)
rng = random.Random(5)

# NLTCS-like: correlated indicators (a latent "disabled" flag raises every bit's probability).
with open(os.path.join(data, "nltcs.csv"), "w") as f:
    for _ in range(3000):
        level = rng.random() < 0.3
        f.write(",".join("1" if rng.random() < (0.6 if level else 0.1) else "0" for _ in range(16)) + "\n")

# Adult-like: the columns the script reads, the values its discretization knows.
columns = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
           "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country", "Salary"]
choices = {"workclass": ["Private", "Self-emp-not-inc", "Local-gov", "?"],
           "education": ["HS-grad", "Bachelors", "11th", "Some-college", "Masters"],
           "marital-status": ["Married-civ-spouse", "Never-married", "Divorced"],
           "race": ["White", "Black", "Asian-Pac-Islander"], "sex": ["Male", "Female"]}
with open(os.path.join(data, "adult.csv"), "w") as f:
    f.write(", ".join(columns) + "\n")
    for _ in range(4000):
        row = {c: rng.choice(v) for c, v in choices.items()}
        row.update({"age": rng.randint(17, 90), "hours-per-week": rng.choice([20, 40, 40, 50]), "fnlwgt": 1,
                    "education-num": 9, "occupation": "Sales", "relationship": "Husband", "capital-gain": 0,
                    "capital-loss": 0, "native-country": "United-States"})
        rich = row["sex"] == "Male" and row["education"] in ("Bachelors", "Masters")
        row["Salary"] = ">50K" if rng.random() < (0.6 if rich else 0.15) else "<=50K"
        f.write(", ".join(str(row[c]) for c in columns) + "\n")


def script(*args):
    return subprocess.run([SCRIPT, "--quick", "--data", data, "--out", out, "--tinyldp", TINYLDP, *args],
                          capture_output=True, text=True)


p = script()
check(p.returncode == 0, f"--quick: exit {p.returncode}\n{p.stderr}")
csv_path, md_path = os.path.join(out, "joint-experiment.csv"), os.path.join(out, "joint-experiment.md")
for name in ["joint-avd-nltcs.png", "joint-avd-adult.png", "joint-time.png"]:
    path = os.path.join(out, "images", name)
    ok = os.path.exists(path)
    check(ok and open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(path) > 10000,
          f"{name} is a PNG with a chart in it")
with open(csv_path, newline="") as f:
    rows = list(csv.DictReader(f))
estimators = {"em", "map", "lasso", "lremh", "pairs", "uniform", "marginals"}
runs = {}
for r in rows:
    runs.setdefault((r["dataset"], r["k"], r["f"], r["run"]), {})[r["estimator"]] = r
# --quick: both data sets, k 2 and 3, f 0.1 and 0.9, 2 runs.
check(len(runs) == 2 * 2 * 2 * 2, f"16 (data set, k, f, run) configurations, got {len(runs)}")
for conf, by in runs.items():
    check(set(by) == estimators, f"{conf}: every estimator and both baselines, got {sorted(by)}")
    for name, r in by.items():
        check(r["status"] == "ok" and 0 <= float(r["avd"]) <= 1, f"{conf} {name}: AVD in [0, 1], got {r['avd']}")
        check(float(r["epsilon_one"]) > 0 and float(r["epsilon_infinity"]) > float(r["epsilon_one"]),
              f"{conf} {name}: the record's epsilons, got {r['epsilon_one']}, {r['epsilon_infinity']}")
    check(float(by["uniform"]["avd"]) > 0.05, f"{conf}: the uniform baseline is far from a skewed joint")
sample = {r["dataset"]: int(r["reports"]) for r in rows}
# 20 % of 3 000 rows; 10 % of the Adult rows without a '?' (the script drops those).
check(sample.get("nltcs") == 600, f"nltcs reports: 20 % of 3000, got {sample.get('nltcs')}")
adult_rows = {int(r["rows"]) for r in rows if r["dataset"] == "adult"}
check(len(adult_rows) == 1 and 2500 < min(adult_rows) < 3500 and sample.get("adult") == round(0.1 * min(adult_rows)),
      f"adult: rows with '?' removed, 10 % report: {adult_rows}, {sample.get('adult')}")
# Record sizes: 16 binary attributes, and Adult's 8 at f = 0.9: ε∞ = d · 2 ln((2 − f)/f).
eps16 = [float(r["epsilon_infinity"]) for r in rows if r["dataset"] == "nltcs" and r["f"] == "0.9"]
check(eps16 and abs(eps16[0] - 6.4215) < 0.01, f"NLTCS at f = 0.9: epsilon infinity 6.42, got {eps16[:1]}")
md = open(md_path).read() if os.path.exists(md_path) else ""
for text in ["## nltcs: AVD", "## adult: time", "| 3 | 0.9 |", "experiments/joint-experiment --quick", "marginals"]:
    check(text in md, f"the report has '{text}'")

# A second run computes nothing: the CSV's rows are reused as they are.
before = open(csv_path).read()
p = script("--no-plots")
check(p.returncode == 0 and "timed out" not in p.stderr and open(csv_path).read() == before,
      f"a second run reuses the cache\n{p.stderr}")
p = script("--stop", "largest-cell")
check(p.returncode != 0 and "--fresh" in p.stderr and "stop = max-change" in p.stderr,
      f"another stopping rule against the cache is refused with the way out: {p.stderr.strip()[-300:]}")
p = script("--k", "2,9")
check(p.returncode != 0 and "k must be in 2" in p.stderr, f"k = 9 refused: {p.stderr.strip()[-200:]}")
# A limit no process can meet: every estimate is recorded as a timeout, and the report still says so.
slow = os.path.join(work, "slow")
p = subprocess.run([SCRIPT, "--quick", "--data", data, "--out", slow, "--tinyldp", TINYLDP, "--datasets", "nltcs",
                    "--k", "2", "--f", "0.5", "--runs", "1", "--timeout", "0.001", "--no-plots"],
                   capture_output=True, text=True)
check(p.returncode == 0, f"--timeout 0.001: exit {p.returncode}\n{p.stderr[-500:]}")
with open(os.path.join(slow, "joint-experiment.csv"), newline="") as f:
    statuses = {r["estimator"]: r["status"] for r in csv.DictReader(f)}
check(statuses == {e: "timeout" for e in ["em", "map", "lasso", "lremh", "pairs"]}, f"every estimate timed out: {statuses}")
md = open(os.path.join(slow, "joint-experiment.md")).read() if os.path.exists(os.path.join(slow, "joint-experiment.md")) else ""
check("timeout (1/1)" in md and "not met" in md, "the report shows the timeouts and the missed 1 s goal")
finish()
