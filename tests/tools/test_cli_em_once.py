#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`tinyldp aggregate` runs EM (collector/bayesian_update.hpp) at most once per aggregate: the
table, the JSON's em_iterations/em_converged and the chart share one run. argv[1] is
tinyldp_em_count, the command with tests/tools/em_run_count.cpp linked in, which prints
"em runs: N" on stderr at exit."""
import os
import random
import re
import tempfile

from cli_harness import check, finish, run


def em_runs(*args):
    p = run(*args)
    found = re.findall(r"^em runs: (\d+)$", p.stderr, re.M)
    check(len(found) == 1, f"{' '.join(map(str, args))}: no 'em runs' line in\n{p.stderr}")
    return int(found[-1]) if found else -1


with tempfile.TemporaryDirectory() as tmp:
    rng = random.Random(7)
    data = os.path.join(tmp, "values.csv")
    with open(data, "w") as f:
        f.write("age,colour\n")
        for _ in range(3000):
            f.write(f"{min(30, int(rng.expovariate(0.15)))},{rng.choice('abcdeffgggh')}\n")
    simulations = {
        "dlaplace": ["-m", "dlaplace", "-e", "2", "--lo", "0", "--hi", "30", "-c", "age"],
        "sd": ["-m", "sd", "-e", "1", "--lo", "0", "--hi", "30", "--levels", "6", "-c", "age"],
        "krr": ["-m", "krr", "-e", "1", "-d", "8", "-c", "colour", "--labels"],
        "oue": ["-m", "oue", "-e", "1", "-d", "8", "-c", "colour", "--labels"],
    }
    numeric = {"dlaplace", "sd"}
    for name, options in simulations.items():
        reports = os.path.join(tmp, name + ".tldp")
        run("simulate", *options, "-i", data, "-o", reports, "--seed", 1)
        labels = [] if name in numeric else ["--labels", reports + ".labels"]
        for post in ["em", "none", "norm-sub"]:
            for extra in [[], ["--format", "json"], ["--plot", os.path.join(tmp, "chart.svg")],
                          ["--format", "json", "--plot", os.path.join(tmp, "chart.svg"), "--truth", data, "-c",
                           "age" if name in numeric else "colour"]]:
                # EM when the table asks for it, or for a numeric chart (which always draws a
                # non-negative estimate: EM's when the table is unbiased); once either way.
                plot = "--plot" in extra
                expected = 1 if post == "em" or (post == "none" and plot and name in numeric) else 0
                got = em_runs("aggregate", reports, "--postprocess", post, *labels, *extra)
                check(got == expected, f"{name} --postprocess {post} {' '.join(extra)}: EM ran {got} times, "
                      f"expected {expected}")
finish()
