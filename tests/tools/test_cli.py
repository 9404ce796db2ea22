#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of the `tinyldp` command: round trips for every mechanism, `plan` against
the formulas, `inspect`, the SVG, and every error path's exit code and message.
usage: test_cli.py <path to tinyldp>"""
import csv
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from cli_harness import old_state, report_file, split_report_file

TINYLDP = sys.argv[1]
failures = 0


def run(*args, expect=0):
    p = subprocess.run([TINYLDP, *map(str, args)], capture_output=True, text=True)
    if p.returncode != expect:
        fail(f"{' '.join(map(str, args))}: exit {p.returncode}, expected {expect}\n{p.stderr}")
    return p


def fail(message):
    global failures
    failures += 1
    print("FAIL", message)


def check(condition, message):
    if not condition:
        fail(message)


with tempfile.TemporaryDirectory() as tmp:
    path = lambda name: os.path.join(tmp, name)
    # 20000 values over 8 categories with shares 30, 20, 15, 15, 10, 5, 5, 0 %.
    shares = [30, 20, 15, 15, 10, 5, 5, 0]
    values = [v for v, s in enumerate(shares) for _ in range(200 * s)]
    with open(path("values.txt"), "w") as f:
        f.write("\n".join(map(str, values)) + "\n")
    with open(path("data.csv"), "w") as f:
        f.write("id,colour\n")
        for i, v in enumerate(values):
            f.write(f"{i}, {['red', 'green', 'blue', 'grey', 'pink', 'teal', 'gold', 'void'][v]}\n")
    truth = [s / 100 for s in shares]
    open(path("empty.txt"), "w").close()

    # Round trips: every estimate within 5 standard errors of the truth.
    for mech, d in [("rr", 2), ("krr", 8), ("sue", 8), ("oue", 8), ("blh", 8), ("olh", 8), ("hr", 8)]:
        src = path("values.txt")
        if mech == "rr":
            src = path("bits.txt")
            with open(src, "w") as f:
                f.write("\n".join("1" if v < 2 else "0" for v in values) + "\n")
        run("simulate", "-m", mech, "-e", "1.5", "-d", d, "-i", src, "-o", path(f"{mech}.tldp"), "--seed", 7)
        out = json.loads(run("aggregate", path(f"{mech}.tldp"), "--format", "json").stdout)
        check(out["reports"] == len(values), f"{mech}: {out['reports']} reports")
        expected = [0.5, 0.5] if mech == "rr" else truth
        for item, t in zip(out["items"], expected):
            err = abs(item["estimate"] - t)
            check(err <= 5 * item["standard_error"], f"{mech} item {item['item']}: {item['estimate']} vs {t}")
            check(item["ci_low"] <= item["estimate"] <= item["ci_high"], f"{mech}: CI around the estimate")

    # CSV column with labels, truth, plot and post-processing.
    run("simulate", "-m", "oue", "-e", "2", "-d", 8, "-i", path("data.csv"), "-c", "colour", "--labels",
        "-o", path("colour.tldp"), "--seed", 3)
    check(open(path("colour.tldp.labels")).read().split() == ["red", "green", "blue", "grey", "pink", "teal", "gold"],
          "label file lists labels in order of first appearance")
    p = run("aggregate", path("colour.tldp"), "--labels", path("colour.tldp.labels"), "--truth", path("data.csv"),
            "--column", "colour", "--postprocess", "simplex", "--plot", path("colour.svg"))
    same = run("aggregate", path("colour.tldp"), "--labels", path("colour.tldp.labels"), "--truth", path("data.csv"),
               "--truth-column", 1, "--postprocess", "simplex")
    check(p.stdout == same.stdout, "--column and --truth-column, by name or index, agree")
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    check(list(rows[0])[-1] == "true_value" and rows[0]["item"] == "red", "CSV output with labels and truth")
    check(abs(sum(float(r["estimate"]) for r in rows) - 1) < 1e-4, "simplex output sums to 1 (6 printed digits)")
    check(all(float(r["estimate"]) >= 0 for r in rows), "simplex output is non-negative")
    root = ET.parse(path("colour.svg")).getroot()
    check(root.tag.endswith("svg") and len(list(root.iter("{http://www.w3.org/2000/svg}circle"))) >= 8,
          "SVG is well-formed and draws the true frequencies")
    svg_text = open(path("colour.svg")).read()
    check("estimate with its 95 % interval" in svg_text and "true frequency" in svg_text, "SVG legend")
    check(len(list(root.iter("{http://www.w3.org/2000/svg}rect"))) >= 1 + 7 + 1, "SVG: background, bars, legend")
    check(">red<" in svg_text and ">frequency<" in svg_text and ">colour<" in svg_text, "SVG: axis labels")

    # Shards: saved states merge to the same estimate as one pass.
    run("simulate", "-m", "krr", "-e", "1", "-d", 8, "-i", path("values.txt"), "-o", path("a.tldp"), "--seed", 1)
    run("simulate", "-m", "krr", "-e", "1", "-d", 8, "-i", path("values.txt"), "-o", path("b.tldp"), "--seed", 2)
    both = run("aggregate", path("a.tldp"), path("b.tldp")).stdout
    run("aggregate", path("a.tldp"), "--save-state", path("a.state"))
    run("aggregate", path("b.tldp"), "--save-state", path("b.state"))
    merged = run("aggregate", "--merge-state", path("a.state"), "--merge-state", path("b.state")).stdout
    check(both == merged, "merged shard states give the same estimates")
    # A saved state is untrusted input: a report count that would overflow on merging, and a
    # non-canonical configuration, are refused with the reason (docs/cli.md).
    state = bytearray(old_state(open(path("a.state"), "rb").read()))
    reports_at = len(state) - 8 * 8 - 8  # k-RR over 8 items: 8 support counts after the count
    state[reports_at:reports_at + 8] = (2 ** 64 - 3).to_bytes(8, "little")
    open(path("huge.state"), "wb").write(bytes(state))
    err = run("aggregate", "--merge-state", path("a.state"), "--merge-state", path("huge.state"), expect=2).stderr
    check("a count would overflow 64 bits" in err, f"merge overflow refused: {err}")
    with open(path("bits.txt"), "w") as f:
        f.write("0\n1\n1\n0\n1\n")
    run("simulate", "-m", "rr", "-e", "1", "-d", 2, "-i", path("bits.txt"), "-o", path("rr.tldp"), "--seed", 1)
    run("aggregate", path("rr.tldp"), "--save-state", path("rr.state"))
    state = bytearray(old_state(open(path("rr.state"), "rb").read()))
    state[8 + 17:8 + 21] = (12345).to_bytes(4, "little")  # its record's domain: rr's is 2 (not in its digest)
    open(path("odd.state"), "wb").write(bytes(state))
    err = run("aggregate", "--merge-state", path("odd.state"), expect=2).stderr
    check("its domain is 2 (values 0 and 1), not 12345" in err, f"non-canonical state refused: {err}")

    # plan: the numbers follow from the printed fractions.
    plan = json.loads(run("plan", "-m", "oue", "-e", "1", "-d", 16, "--n", 100000, "--target-se", 0.005,
                          "--group", 3, "--json").stdout)
    q_num, q_den = plan["probabilities"].split("q = ")[1].split("/2^")
    q = int(q_num) / 2 ** int(q_den)
    v1 = q * (1 - q) / (0.5 - q) ** 2
    check(math.isclose(plan["frequency_standard_error"], math.sqrt(v1 / 100000), rel_tol=1e-9), "plan SE")
    check(plan["n_for_target_se"] == math.ceil(v1 / 0.005 ** 2), "plan n for a target SE")
    check(math.isclose(plan["realized_epsilon"], math.log(0.5 * (1 - q) / (0.5 * q)), abs_tol=1e-9),
          "plan realized epsilon = ln(p(1-q)/((1-p)q))")
    check(plan["realized_epsilon"] <= 1.0, "realized epsilon never above the requested one")
    check(math.isclose(plan["group_epsilon"], 3 * plan["realized_epsilon"]), "group privacy")
    e = plan["epsilon_for_target_se"]
    check(e is not None and 1.0 < e < 1.5, f"epsilon for the target SE at n = 1e5: {e}")
    check(plan["random_bits_per_report"] == 1 + 16 * int(q_den), "random bits per report")

    # A file with a header and no records (the header is the file up to the first record).
    with open(path("one.txt"), "w") as f:
        f.write("3\n")
    run("simulate", "-m", "krr", "-e", "1", "-d", 8, "-i", path("one.txt"), "-o", path("one.tldp"), "--seed", 1)
    open(path("empty.tldp"), "wb").write(open(path("one.tldp"), "rb").read()[:40])

    # plan against the closed forms of docs (BRIEF §3), evaluated at the realized probabilities.
    def fraction(text):
        num, exp = text.split("/2^")
        return int(num) / 2 ** int(exp)

    for mech, d, formula in [
        ("rr", 2, lambda e, k: e / (e - 1) ** 2),  # p(1-p)/(2p-1)^2 with e = p/(1-p)
        ("krr", 8, lambda e, k: (e + k - 2) / (e - 1) ** 2),
        ("krr", 100, lambda e, k: (e + k - 2) / (e - 1) ** 2),
        ("sue", 8, lambda e, k: math.sqrt(e) / (math.sqrt(e) - 1) ** 2),
    ]:
        for eps in ["0.5", "1", "2", "4"]:
            j = json.loads(run("plan", "-m", mech, "-e", eps, "-d", d, "--n", 5000, "--json").stdout)
            probs = dict(part.split(" = ") for part in j["probabilities"].split(", "))
            p_ = fraction(probs["p"])
            q_ = 1 - p_ if mech in ("rr", "sue") else fraction(probs["q"])
            ratio = p_ / q_ if mech == "krr" else (p_ / (1 - p_)) ** (2 if mech == "sue" else 1)
            check(j["realized_epsilon"] >= math.log(ratio) - 1e-9, f"{mech} ε={eps}: realized ε ≥ ln ratio")
            check(j["realized_epsilon"] - math.log(ratio) < 2 ** -28, f"{mech} ε={eps}: realized ε tight")
            check(j["realized_epsilon"] <= float(eps), f"{mech} ε={eps}: realized ε ≤ requested")
            se = math.sqrt(formula(ratio, d) / 5000)
            check(math.isclose(j["frequency_standard_error"], se, rel_tol=1e-6),
                  f"{mech} ε={eps} d={d}: SE {j['frequency_standard_error']} vs formula {se}")
    j = json.loads(run("plan", "-m", "krr", "-e", "1", "-d", 8, "--n", 5000, "--target-se", 0.02, "--json").stdout)
    se_at_answer = json.loads(run("plan", "-m", "krr", "-e", j["epsilon_for_target_se"], "-d", 8, "--n", 5000,
                                  "--json").stdout)["frequency_standard_error"]
    check(se_at_answer <= 0.02, f"the epsilon plan proposes reaches the target: {se_at_answer}")
    lower = json.loads(run("plan", "-m", "krr", "-e", round(j["epsilon_for_target_se"] - 0.01, 6), "-d", 8,
                           "--n", 5000, "--json").stdout)["frequency_standard_error"]
    check(lower > 0.02, f"and 0.01 less does not: {lower}")
    text = run("plan", "-m", "krr", "-e", "0.1", "-d", 8).stdout
    check("rounded down" in text and "0.0999999998" in text, "plan shows how a decimal ε was rounded")

    # inspect, and a damaged record.
    lines = run("inspect", path("oue.tldp"), "--json").stdout.strip().splitlines()
    check(len(lines) == len(values), "inspect prints one line per report")
    first = json.loads(lines[0])
    check(first["mechanism"] == "oue" and isinstance(first["bits_set"], list), "inspect decodes UE bits")
    check(list(first)[:2] == ["record", "mechanism"], "inspect: record number and mechanism first")
    run("simulate", "-m", "krr", "-e", "1", "-d", 8, "-i", path("values.txt"), "-o", path("ids.tldp"), "--seed", 4,
        "--device-ids", "--epoch", 12, "--cohort", 3)
    lines = run("inspect", path("ids.tldp")).stdout.splitlines()
    check(lines[1].startswith(path("ids.tldp") + " #2 mechanism=\"krr\" device_id=1 epoch=12 cohort=3 value="),
          f"inspect text line: {lines[1]}")
    values_seen = [int(l.rsplit("value=", 1)[1]) for l in lines]
    check(all(0 <= v < 8 for v in values_seen) and len(set(values_seen)) == 8, "inspect: k-RR values in range")
    header, records = split_report_file(open(path("krr.tldp"), "rb").read())
    first = bytearray(records[0])
    first[3] ^= 0xFF  # first record, a digest byte
    open(path("damaged.tldp"), "wb").write(report_file(header, [bytes(first)] + records[1:]))
    p = run("inspect", path("damaged.tldp"), expect=3)
    check("rejected" in p.stdout.splitlines()[0], "inspect names a rejected report")
    p = run("aggregate", path("damaged.tldp"), expect=3)
    check("parameter digest mismatch" in p.stderr, "aggregate gives the rejection reason")
    run("aggregate", path("damaged.tldp"), "--allow-rejected")

    # Numeric mechanisms: sd and dlaplace on a numeric column.
    ages = [17 + (i * 37) % 23 + (i % 7) * 5 for i in range(20000)]  # integers of [17, 69]
    with open(path("ages.csv"), "w") as f:
        f.write("id,age\n" + "".join(f"{i},{a}\n" for i, a in enumerate(ages)))
    true_mean = sum(ages) / len(ages)
    for mech, extra in [("sd", ["--levels", 5]), ("sd", []), ("dlaplace", ["--sensitivity", 10])]:
        name = f"{mech}{len(extra)}"
        said = run("simulate", "-m", mech, "-e", "2", "--lo", 10, "--hi", 70, *extra, "-i", path("ages.csv"),
                   "-c", "age", "-o", path(f"{name}.tldp"), "--seed", 11).stderr
        # simulate states the report's local epsilon (between any two values); dlaplace with
        # Δ < W also the epsilon between values Δ apart, labelled as such.
        plan = json.loads(run("plan", "-m", mech, "-e", "2", "--lo", 10, "--hi", 70, *extra, "--json").stdout)
        local = plan.get("local_epsilon", plan["realized_epsilon"])
        check(f"local epsilon {local:.6g}" in said, f"{name}: simulate says the local epsilon: {said}")
        if mech == "dlaplace":
            check("between values at most 10 apart" in said and local > 5 * plan["realized_epsilon"],
                  f"{name}: simulate labels the epsilon per sensitivity: {said}")
        check(open(path(f"{name}.tldp"), "rb").read(8) == b"TLDPREP2", f"{name}: version 2 file header")
        out = json.loads(run("aggregate", path(f"{name}.tldp"), "-f", "json", "--truth", path("ages.csv"),
                             "-c", "age").stdout)
        mean = out["mean"]
        check(out["reports"] == len(ages) and out["lo"] == 10 and out["hi"] == 70, f"{name}: header fields")
        check(abs(mean["estimate"] - true_mean) <= 5 * mean["standard_error"],
              f"{name}: mean {mean['estimate']} vs {true_mean} (SE {mean['standard_error']})")
        check(math.isclose(mean["true_value"], true_mean), f"{name}: true mean")
        check(mean["ci_low"] < mean["estimate"] < mean["ci_high"], f"{name}: CI around the mean")
        levels = 5 if extra == ["--levels", 5] else 2 if mech == "sd" else 61
        check(len(out["items"]) == levels, f"{name}: {len(out['items'])} items")
        check(out["items"][0]["item"] == 10 and out["items"][-1]["item"] == 70, f"{name}: items are values")
        for item in out["items"]:
            check(abs(item["estimate"] - item["true_value"]) <= 5 * item["standard_error"],
                  f"{name} item {item['item']}: {item['estimate']} vs {item['true_value']}")
        csv_rows = list(csv.DictReader(io.StringIO(run("aggregate", path(f"{name}.tldp")).stdout)))
        check([r["kind"] for r in csv_rows] == ["mean"] + ["quantile"] * 4 + ["frequency"] * levels,
              f"{name}: CSV layout")
        check([r["item"] for r in csv_rows[1:5]] == ["0.5", "0.9", "0.95", "0.99"], f"{name}: the default quantiles")
        check(math.isclose(float(csv_rows[0]["estimate"]), mean["estimate"], rel_tol=1e-5), f"{name}: CSV mean")
    # pm and hm: the mean only — a mean row, no items; a chart or a post-processed distribution
    # refused; shards of hm merge exactly.
    for name in ("pm", "hm"):
        run("simulate", "-m", name, "-e", "2", "--lo", 10, "--hi", 70, "-i", path("ages.csv"), "-c", "age",
            "-o", path(f"{name}.tldp"), "--seed", 11)
        out = json.loads(run("aggregate", path(f"{name}.tldp"), "-f", "json", "--truth", path("ages.csv"), "-c", "age").stdout)
        mean = out["mean"]
        check(out["items"] == [] and out["levels"] == 2048 and math.isclose(mean["true_value"], true_mean),
              f"{name}: the mean only: {out}")
        check(abs(mean["estimate"] - true_mean) <= 5 * mean["standard_error"], f"{name}: mean {mean} vs {true_mean}")
        csv_rows = list(csv.DictReader(io.StringIO(run("aggregate", path(f"{name}.tldp")).stdout)))
        check([r["kind"] for r in csv_rows] == ["mean"], f"{name}: CSV layout {csv_rows}")
        for refused in (["--plot", path(f"{name}.svg")], ["--postprocess", "clip"]):
            err = run("aggregate", path(f"{name}.tldp"), *refused, expect=2).stderr
            check("reports give the mean only, no distribution" in err, f"{name} {refused}: {err}")
    check(" cell=" in run("inspect", path("pm.tldp")).stdout.splitlines()[0], "pm: inspect shows the cell")
    shown = run("inspect", path("hm.tldp")).stdout.splitlines()
    check(any(" cell=" in line for line in shown) and any(" level=" in line for line in shown),
          f"hm: inspect shows PM's cells and Duchi's levels: {shown[:4]}")
    run("simulate", "-m", "hm", "-e", "2", "--lo", 10, "--hi", 70, "-i", path("ages.csv"), "-c", "age",
        "-o", path("hm2.tldp"), "--seed", 12)
    run("aggregate", path("hm.tldp"), "--save-state", path("hm.state"))
    check(run("aggregate", path("hm.tldp"), path("hm2.tldp")).stdout ==
          run("aggregate", path("hm2.tldp"), "--merge-state", path("hm.state")).stdout, "hm: merged states")
    # sw: the distribution over its buckets (one per integer of [10, 70]) by EM, or EMS with
    # --em-smoothing (said in the output); the unbiased rows and the mean; a chart; shards merge.
    run("simulate", "-m", "sw", "-e", "2", "--lo", 10, "--hi", 70, "-i", path("ages.csv"), "-c", "age",
        "-o", path("sw.tldp"), "--seed", 11)
    out = json.loads(run("aggregate", path("sw.tldp"), "-f", "json", "-p", "em", "--em-smoothing", "0.25",
                         "--truth", path("ages.csv"), "-c", "age", "--plot", path("sw.svg")).stdout)
    check(out["levels"] == 61 and len(out["items"]) == 61 and out["items"][0]["item"] == 10 and
          out["items"][-1]["item"] == 70, f"sw: one row per bucket: {len(out['items'])}")
    check(out["em_smoothing"] == 0.25 and out["em_converged"] and out["em_iterations"] > 1, f"sw: EMS said: {out}")
    estimate = [i["estimate"] for i in out["items"]]
    truth = [i["true_value"] for i in out["items"]]
    check(abs(sum(estimate) - 1) < 1e-9 and min(estimate) >= 0, "sw: EMS gives a distribution")
    def ks(f):
        return max(abs(sum(f[:k]) - sum(truth[:k])) for k in range(1, 62))
    unbiased = [i["unbiased_estimate"] for i in out["items"]]
    check(ks(estimate) < ks(unbiased), f"sw: EMS's KS {ks(estimate)} against the unbiased rows' {ks(unbiased)}")
    check(abs(out["mean"]["estimate"] - true_mean) <= 5 * out["mean"]["standard_error"], f"sw: mean {out['mean']}")
    check(open(path("sw.svg")).read().startswith("<svg"), "sw: the chart")
    plain = json.loads(run("aggregate", path("sw.tldp"), "-f", "json", "-p", "em").stdout)
    check(plain["em_smoothing"] == 0 and [i["estimate"] for i in plain["items"]] != estimate,
          "sw: plain EM by default")
    for bad, said in ((["--em-smoothing", "0.5"], "--em-smoothing must be in [0, 0.5)"),
                      (["--plot", path("sw.png")], "the chart is SVG; name the file .svg")):
        err = run("aggregate", path("sw.tldp"), *bad, expect=2).stderr
        check(said in err, f"sw {bad}: {err}")
    # --quantiles and --range: parsed before any file is read; for numeric distributions only.
    err = run("aggregate", path("no-such-file.tldp"), "--quantiles", "0.5,1.5", expect=2).stderr
    check("--quantiles 0.5,1.5: each q must be a number in (0, 1)" in err, f"--quantiles checked first: {err}")
    err = run("aggregate", path("sw.tldp"), "--range", "9", expect=2).stderr
    check("give LO:HI with LO ≤ HI" in err, f"--range 9: {err}")
    for f, said in ((path("a.tldp"), "reports categories"), (path("pm.tldp"), "give the mean only")):
        err = run("aggregate", f, "--range", "1:2", expect=2).stderr
        check("--range is for a numeric distribution" in err and said in err, f"--range on {f}: {err}")
    out = json.loads(run("aggregate", path("sw.tldp"), "-f", "json", "--range", "20:40", "--quantiles", "0.25",
                         "--truth", path("ages.csv"), "-c", "age").stdout)
    check([q["q"] for q in out["quantiles"]] == [0.25] and out["range"]["item"] == "20:40" and
          abs(out["range"]["unbiased_estimate"] - out["range"]["true_value"]) <= 5 * out["range"]["standard_error"],
          f"sw: --range and --quantiles: {out['range']}, {out['quantiles']}")
    err = run("aggregate", path("a.tldp"), "-p", "em", "--em-smoothing", "0.25", expect=2).stderr
    check("--em-smoothing is for numeric mechanisms" in err, f"krr --em-smoothing: {err}")
    run("simulate", "-m", "sw", "-e", "2", "--lo", 10, "--hi", 70, "-i", path("ages.csv"), "-c", "age",
        "-o", path("sw2.tldp"), "--seed", 12)
    run("aggregate", path("sw.tldp"), "--save-state", path("sw.state"))
    check(run("aggregate", path("sw.tldp"), path("sw2.tldp"), "-p", "em").stdout ==
          run("aggregate", path("sw2.tldp"), "--merge-state", path("sw.state"), "-p", "em").stdout, "sw: merged states")
    # hh: one row per value of its consistent tree, a range within 5 SE of the truth, quantiles, a
    # chart of the tree's bins; em and a bad --branching refused, saying why; shards merge; inspect
    # shows the level.
    run("simulate", "-m", "hh", "-e", "2", "--lo", 10, "--hi", 70, "--branching", 8, "-i", path("ages.csv"), "-c",
        "age", "-o", path("hh.tldp"), "--seed", 13)
    out = json.loads(run("aggregate", path("hh.tldp"), "-f", "json", "--range", "20:40", "--truth", path("ages.csv"),
                         "-c", "age", "--plot", path("hh.svg")).stdout)
    check(out["branching"] == 8 and len(out["items"]) == 61 and out["items"][0]["item"] == 10 and
          [q["q"] for q in out["quantiles"]] == [0.5, 0.9, 0.95, 0.99], f"hh: rows and quantiles: {out}")
    check(abs(out["range"]["unbiased_estimate"] - out["range"]["true_value"]) <= 5 * out["range"]["standard_error"],
          f"hh: --range {out['range']}")
    check(abs(out["mean"]["estimate"] - true_mean) <= 5 * out["mean"]["standard_error"], f"hh: mean {out['mean']}")
    check(open(path("hh.svg")).read().startswith("<svg"), "hh: the chart")
    for bad, said in ((["-p", "em"], "em is not available (a report is one level"),):
        err = run("aggregate", path("hh.tldp"), *bad, expect=2).stderr
        check(said in err, f"hh {bad}: {err}")
    for bad, said in ((["-m", "hh", "--branching", 3], "branching must be 2, 4, 8 or 16 (got 3)"),
                      (["-m", "sd", "--branching", 4], "branching is a parameter of hh, not sd"),
                      (["-m", "hh", "--levels", 4], "levels is not a parameter of hh")):
        err = run("simulate", *bad, "-e", "1", "--lo", 10, "--hi", 70, "-i", path("ages.csv"), "-c", "age",
                  "-o", path("bad.tldp"), expect=2).stderr
        check(said in err, f"simulate {bad}: {err}")
    check(" level=" in run("inspect", path("hh.tldp")).stdout.splitlines()[0], "hh: inspect shows the level")
    run("simulate", "-m", "hh", "-e", "2", "--lo", 10, "--hi", 70, "--branching", 8, "-i", path("ages.csv"), "-c",
        "age", "-o", path("hh2.tldp"), "--seed", 14)
    run("aggregate", path("hh.tldp"), "--save-state", path("hh.state"))
    check(run("aggregate", path("hh.tldp"), path("hh2.tldp")).stdout ==
          run("aggregate", path("hh2.tldp"), "--merge-state", path("hh.state")).stdout, "hh: merged states")
    # The mean is unbiased from one seed to the next too: pooled over 4 seeds, within 5 SE / 2.
    sd_means = []
    for seed in range(4):
        run("simulate", "-m", "sd", "-e", "1", "--lo", 0, "--hi", 100, "-i", path("ages.csv"), "-c", 1, "-o",
            path(f"sd_seed{seed}.tldp"), "--seed", 100 + seed)
        sd_means.append(json.loads(run("aggregate", path(f"sd_seed{seed}.tldp"), "-f", "json").stdout)["mean"])
    pooled = sum(m["estimate"] for m in sd_means) / 4
    pooled_se = math.sqrt(sum(m["standard_error"] ** 2 for m in sd_means)) / 4
    check(abs(pooled - true_mean) <= 5 * pooled_se, f"sd pooled mean {pooled} vs {true_mean}")
    # Shards of a numeric mechanism merge exactly.
    run("aggregate", path("sd_seed0.tldp"), "--save-state", path("sd0.state"))
    run("aggregate", path("sd_seed1.tldp"), "--save-state", path("sd1.state"))
    check(run("aggregate", path("sd_seed0.tldp"), path("sd_seed1.tldp")).stdout ==
          run("aggregate", "--merge-state", path("sd1.state"), "--merge-state", path("sd0.state")).stdout,
          "sd: merged states give the same estimates")
    check(old_state(open(path("sd0.state"), "rb").read())[:16] == b"TLDPAGG3TLDPREP2",
          "numeric aggregate state holds the version-2 configuration record")
    check("another mechanism" in run("aggregate", path("sd_seed0.tldp"), path("sd2.tldp"), expect=2).stderr,
          "sd files of other levels do not mix")
    # plan: sd with L = 2 is binary RR of a randomly rounded value: worst-case mean SE
    # W/(2(2p − 1)√n) (the middle value, reported 1 with probability 1/2; p + q = 1).
    j = json.loads(run("plan", "-m", "sd", "-e", "1", "--lo", 0, "--hi", 100, "--n", 10000, "--json").stdout)
    probs = dict(part.split(" = ") for part in j["probabilities"].split(", ")[:3])
    p_ = fraction(probs["p"])
    check(math.isclose(j["mean_standard_error"], 100 / (2 * (2 * p_ - 1) * 100), rel_tol=1e-9),
          f"sd plan mean SE {j['mean_standard_error']}")
    check(j["realized_epsilon"] <= 1 and math.isclose(j["realized_epsilon"], math.log(p_ / (1 - p_)), abs_tol=1e-9),
          "sd plan: realized epsilon = ln(p/q)")
    j = json.loads(run("plan", "-m", "sd", "-e", "1", "--lo", 0, "--hi", 100, "--n", 10000, "--target-se", 2,
                       "--json").stdout)
    check(j["n_for_target_se"] == math.ceil(j["mean_standard_error"] ** 2 * 10000 / 4), "sd plan: n for a mean SE")
    j = json.loads(run("plan", "-m", "dlaplace", "-e", "1", "--lo", 0, "--hi", 20, "--sensitivity", 2, "--json").stdout)
    check(j["realized_epsilon"] <= 1 and j["local_epsilon"] > 5, f"dlaplace plan: local epsilon {j['local_epsilon']}")
    j = json.loads(run("plan", "-m", "dlaplace", "-e", "1", "--lo", 0, "--hi", 20, "--json").stdout)
    check(j["local_epsilon"] == j["realized_epsilon"] and j["sensitivity"] == 20, "dlaplace: Δ defaults to W")
    text = run("plan", "-m", "dlaplace", "-e", "1", "--lo", 0, "--hi", 20).stdout
    check("local epsilon" in text and "mean SE" in text, "dlaplace plan text")
    # inspect decodes numeric reports.
    first = json.loads(run("inspect", path("sd2.tldp"), "--json").stdout.splitlines()[0])
    check(first["mechanism"] == "sd" and first["level"] in (0, 1, 2, 3, 4) and first["value"] == 10 + 15 * first["level"],
          f"inspect sd: {first}")
    lines = run("inspect", path("dlaplace2.tldp")).stdout.splitlines()
    seen = [int(l.rsplit("value=", 1)[1]) for l in lines]
    check(len(seen) == len(ages) and all(10 <= v <= 70 for v in seen), "inspect dlaplace: values in range")
    header, records = split_report_file(open(path("dlaplace2.tldp"), "rb").read())
    first = bytearray(records[0])
    first[2] ^= 0x10  # first record, a digest byte
    open(path("damaged_dl.tldp"), "wb").write(report_file(header, [bytes(first)] + records[1:]))
    check("digest mismatch" in run("aggregate", path("damaged_dl.tldp"), expect=3).stderr, "dlaplace: rejected record")
    for args, needle in [
        (("plan", "-m", "sd", "-e", "1"), "sd needs a value range with hi above lo (got [0, 0])"),
        (("plan", "-m", "sd", "-e", "1", "--lo", 5, "--hi", 5), "with hi above lo (got [5, 5])"),
        (("plan", "-m", "sd", "-e", "1", "--lo", 0, "--hi", 9, "-d", 4), "domain is not a parameter of sd"),
        (("plan", "-m", "sd", "-e", "1", "--lo", 0, "--hi", 9, "--levels", 300), "levels must be 2 … 256 (got 300)"),
        (("plan", "-m", "dlaplace", "-e", "1", "--lo", 0, "--hi", 9, "--levels", 3), "levels is not a parameter of dlaplace"),
        (("plan", "-m", "dlaplace", "-e", "1", "--lo", 0, "--hi", 9, "--sensitivity", 10), "sensitivity must be 1 … hi − lo = 9 (got 10)"),
        (("plan", "-m", "dlaplace", "-e", "1", "--lo", 0, "--hi", 5000), "above the collector's limit"),
        (("plan", "-m", "krr", "-e", "1", "-d", 4, "--lo", 0), "--lo is not a parameter of krr (it takes domain)"),
        (("plan", "-m", "krr", "-e", "1", "-d", 4, "--hi", 3), "are for the numeric mechanisms (sd, dlaplace, 1bitmean, dbitflip, pm, hm, sw, hh, haar-hrr), not krr"),
        (("simulate", "-m", "krr", "-e", "1", "-i", path("values.txt"), "-o", path("x.tldp")), "krr needs a domain: the number of categories, at least 2 (got 0)"),
        (("simulate", "-m", "sd", "-e", "1", "--lo", 20, "--hi", 60, "-i", path("ages.csv"), "-c", "age",
          "-o", path("x.tldp")), "outside [20, 60]"),
        (("simulate", "-m", "dlaplace", "-e", "1", "--lo", 0, "--hi", 60, "-i", path("data.csv"), "-c", "colour",
          "-o", path("x.tldp")), "not an integer"),
        (("simulate", "-m", "sd", "-e", "1", "--lo", 0, "--hi", 99, "-i", path("ages.csv"), "-c", "age", "--labels",
          "-o", path("x.tldp")), "--labels is for categorical"),
        (("aggregate", path("sd2.tldp"), "--labels", path("colour.tldp.labels")), "--labels is for categorical"),
    ]:
        p = run(*args, expect=2)
        check(needle in p.stderr, f"{args[0]}: message mentions '{needle}': {p.stderr.strip()}")
    check(open(path("krr.tldp"), "rb").read(8) == b"TLDPREP1", "categorical files keep the version 1 header")

    # Bad input: exit 2 with a message; bad usage: exit 1.
    for args, needle in [
        (("plan", "-m", "nope", "-e", "1"), "unknown mechanism"),
        (("plan", "-m", "oue", "-e", "abc", "-d", 4), "not a decimal"),
        (("plan", "-m", "oue", "-e", "25", "-d", 4), "largest accepted epsilon, 20"),
        (("plan", "-m", "oue", "-e", "0", "-d", 4), "must be positive"),
        (("plan", "-m", "oue", "-e", "1", "-d", 1), "oue needs a domain: the number of categories, at least 2 (got 1)"),
        (("plan", "-m", "rr", "-e", "1", "-d", 8), "rr is binary randomized response: its domain is 2 (values 0 and 1), not 8"),
        (("plan", "-m", "krr", "-e", "1", "-d", 1 << 23), "above the collector's limit"),
        (("simulate", "-m", "krr", "-e", "1", "-d", 4, "-i", path("empty.txt"), "-o", path("x.tldp")), "no values"),
        (("simulate", "-m", "krr", "-e", "1", "-d", 8, "-i", path("data.csv"), "-c", "colour", "-o", path("x.tldp")),
         "use --labels"),
        (("simulate", "-m", "krr", "-e", "1", "-d", 8, "-i", path("data.csv"), "-c", "shade", "-o", path("x.tldp")),
         "no column named"),
        (("simulate", "-m", "krr", "-e", "1", "-d", 4, "-i", path("data.csv"), "-c", "colour", "--labels",
          "-o", path("x.tldp")), "more than 4 distinct labels"),
        (("aggregate", path("empty.tldp")), "no reports"),
        (("aggregate", path("missing.tldp")), "cannot open"),
        (("simulate", "-m", "krr", "-e", "1", "-d", 4, "-i", path("values.txt"), "-o", path("x.tldp")), "outside the domain"),
        (("simulate", "-m", "krr", "-e", "1", "-d", 8, "-i", path("missing.txt"), "-o", path("x.tldp")), "cannot open"),
        (("aggregate", path("values.txt")), "not a tinyldp report file"),
        (("aggregate", path("a.tldp"), path("oue.tldp")), "another mechanism"),
    ]:
        p = run(*args, expect=2)
        check(needle in p.stderr, f"{args[0]}: message mentions '{needle}': {p.stderr.strip()}")
    open(path("truncated.tldp"), "wb").write(open(path("krr.tldp"), "rb").read()[:-3])
    check("truncated" in run("aggregate", path("truncated.tldp"), expect=2).stderr, "truncated file")
    run("simulate", "-m", "oue", expect=1)
    run("plan", "-m", "oue", "-e", "1", "-d", 4, "--n", 0, expect=1)
    run("aggregate", path("a.tldp"), "--postprocess", "smooth", expect=1)
    helptext = run("--help").stdout
    check("Examples:" in helptext, "--help teaches with examples")
    for mech in ["rr", "krr", "sue", "oue", "blh", "olh", "hr", "sd", "dlaplace"]:
        check(mech in helptext.split("Mechanisms:")[1].splitlines()[0], f"--help lists {mech}")
    check("Exit codes:" in helptext, "--help lists the exit codes")

print(f"{1 if failures == 0 else 0} passed, {1 if failures else 0} failed ({failures} failed checks)")
sys.exit(1 if failures else 0)
