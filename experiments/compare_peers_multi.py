# SPDX-License-Identifier: Apache-2.0
"""compare-peers --multi-attribute: tinyldp's SPL, SMP and RS+FD (tinyldp multi simulate) beside
multi-freq-ldpy's (mdim_freq_est), on the same Adult and NLTCS attributes, the same n, at each ε.

One-way marginal MSE: every attribute's estimate clipped at 0 and renormalized (multi-freq-ldpy's
"MI" post-processing, applied to tinyldp's unbiased estimates too), squared error averaged over
all values of all attributes. Each side runs R times (tinyldp: --seed 1 … R, the deterministic
test source; the peer: numpy seeded 1 … R); the table gives the mean and the standard deviation
over the runs, and the ratio of the means with its chance range (± 2 standard errors of the
ratio). Throughput: tinyldp's client and server seconds as `multi simulate --format json` times
them inside the process (privatize every row; count every report and estimate every marginal);
the peer's: its Client over every row, then its Aggregator_MI, each timed once per run after one
warm-up call (numba's compilation not counted). Nothing of the peer enters this repository."""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import clip_normalize, mse  # noqa: E402

HEADING = "## Many attributes"
ADULT_COLUMNS = ["workclass", "education", "marital-status", "occupation", "relationship", "race", "sex"]
PROTOCOLS = {  # tinyldp name: (peer module, client, aggregator, UE variant)
    "spl-grr": ("SPL_solution", "SPL_GRR_Client", "SPL_GRR_Aggregator_MI"),
    "spl-oue": ("SPL_solution", "SPL_UE_Client", "SPL_UE_Aggregator_MI"),
    "smp-grr": ("SMP_solution", "SMP_GRR_Client", "SMP_GRR_Aggregator_MI"),
    "smp-oue": ("SMP_solution", "SMP_UE_Client", "SMP_UE_Aggregator_MI"),
    "rsfd-grr": ("RSpFD_solution", "RSpFD_GRR_Client", "RSpFD_GRR_Aggregator_MI"),
    "rsfd-oue-z": ("RSpFD_solution", "RSpFD_UE_zero_Client", "RSpFD_UE_zero_Aggregator_MI"),
    "rsfd-oue-r": ("RSpFD_solution", "RSpFD_UE_rnd_Client", "RSpFD_UE_rnd_Aggregator_MI"),
}


def datasets(data_dir, n=0):
    """name → (column names, rows of category indices, domain sizes), labels sorted as tinyldp sorts them."""
    out = {}
    with open(os.path.join(data_dir, "adult.csv")) as f:
        reader = csv.reader(f, skipinitialspace=True)
        header = [h.strip() for h in next(reader)]
        cols = [header.index(c) for c in ADULT_COLUMNS]
        raw = [[r[c].strip() for c in cols] for r in reader if len(r) == len(header)]
    out["adult"] = (ADULT_COLUMNS, raw)
    with open(os.path.join(data_dir, "nltcs.csv")) as f:
        raw = [r for r in csv.reader(f) if r]
    out["nltcs"] = ([str(i) for i in range(len(raw[0]))], raw)
    encoded = {}
    for name, (names, raw) in out.items():
        raw = raw[:n] if n else raw
        labels = [sorted({r[j] for r in raw}) for j in range(len(names))]
        index = [{l: i for i, l in enumerate(ls)} for ls in labels]
        rows = [[index[j][r[j]] for j in range(len(names))] for r in raw]
        encoded[name] = (names, raw, rows, [len(ls) for ls in labels])
    return encoded


def truth_of(rows, ks):
    n = len(rows)
    t = [[0.0] * k for k in ks]
    for r in rows:
        for j, v in enumerate(r):
            t[j][v] += 1.0 / n
    return t




def mse_of_marginals(estimates, truth):
    """The MSE over every value of every attribute, each estimate clipped and renormalized."""
    return mse([e for est in estimates for e in clip_normalize(est)], [t for tru in truth for t in tru])


def run_tinyldp(cli, csv_path, protocol, eps, seed, ks, truth, no_header):
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [cli, "multi", "simulate", "-i", csv_path, "-p", protocol, "-e", str(eps), "--seed", str(seed),
               "-o", os.path.join(tmp, "c.tldpm"), "--format", "json"] + (["--no-header"] if no_header else [])
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    j = json.loads(out)
    est = [[i["estimate"] for i in a["items"]] for a in j["attributes"]]
    assert [len(e) for e in est] == ks, "tinyldp's labels differ from the script's"
    return {"mse": mse_of_marginals(est, truth), "client": j["seconds"]["client"], "server": j["seconds"]["server"],
            "epsilon_per_report": j["epsilon_per_report"], "epsilon_one_attribute": j.get("epsilon_one_attribute")}


def run_peer(mods, protocol, eps, seed, rows, ks, truth):
    import numpy as np
    module, client_name, aggregator_name = PROTOCOLS[protocol]
    client, aggregator = getattr(mods[module], client_name), getattr(mods[module], aggregator_name)
    d = len(ks)
    ue = "UE" in client_name
    kw = {"optimal": True} if ue else {}
    client(rows[0], ks, d, eps, **kw)  # numba's compilation, not timed
    np.random.seed(seed)
    t0 = time.perf_counter()
    reports = [client(r, ks, d, eps, **kw) for r in rows]
    t1 = time.perf_counter()
    if aggregator_name in ("SPL_UE_Aggregator_MI", "SMP_UE_Aggregator_MI"):
        est = aggregator(reports, d, eps, optimal=True)
    elif ue:
        est = aggregator(reports, ks, d, eps, optimal=True)
    else:
        est = aggregator(reports, ks, d, eps)
    t2 = time.perf_counter()
    est = [list(map(float, e)) for e in est]
    # Their estimates are already clipped and renormalized: clip_normalize leaves them as they are.
    return {"mse": mse_of_marginals(est, truth), "client": t1 - t0, "server": t2 - t1}


def peer_files(path):
    base = os.path.join(path, "src", "multi_freq_ldpy")
    return [os.path.join(base, "mdim_freq_est", f) for f in ("SPL_solution.py", "SMP_solution.py", "RSpFD_solution.py")] + \
        [os.path.join(base, "pure_frequency_oracles", f) for f in ("GRR.py", "UE.py")]


def load_peer(path):
    sys.path.insert(0, os.path.join(path, "src"))
    import importlib
    return {m: importlib.import_module(f"multi_freq_ldpy.mdim_freq_est.{m}")
            for m in ("SPL_solution", "SMP_solution", "RSpFD_solution")}


def run(args, data_dir, cli):
    data = datasets(data_dir, args.n)
    protocols = args.multi_protocols.split(",")
    epsilons = [float(e) for e in args.epsilons.split(",")]
    mods = load_peer(args.multi_freq_ldpy) if args.multi_freq_ldpy else None
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (names, raw, rows, ks) in data.items():
            csv_path = os.path.join(tmp, name + ".csv")
            with open(csv_path, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(names)
                w.writerows(raw)
            truth = truth_of(rows, ks)
            for eps in epsilons:
                for p in protocols:
                    mine = [run_tinyldp(cli, csv_path, p, eps, s, ks, truth, False) for s in range(1, args.runs + 1)]
                    peer = [run_peer(mods, p, eps, s, rows, ks, truth) for s in range(1, args.runs + 1)] if mods else []
                    results.append({"data": name, "d": len(ks), "n": len(rows), "epsilon": eps, "protocol": p,
                                    "tinyldp": mine, "peer": peer})
                    print(f"{name} eps={eps} {p}: tinyldp MSE {statistics.mean(r['mse'] for r in mine):.3g}"
                          + (f", peer {statistics.mean(r['mse'] for r in peer):.3g}" if peer else ""), file=sys.stderr)
    return results


def summary(xs):
    m = statistics.mean(xs)
    return m, (statistics.stdev(xs) if len(xs) > 1 else 0.0)


def markdown(results, command, machine_line):
    lines = [HEADING, "",
             f"Produced by `{command}` ({machine_line}). Every attribute's estimate is clipped at 0 and",
             "renormalized (the peer's \"MI\" estimators do this; tinyldp's unbiased estimates get the same",
             "treatment here), then the squared error is averaged over all values of all attributes. Each",
             "cell: mean ± standard deviation over the runs; *ratio*: tinyldp's mean over the peer's, with",
             "± 2 standard errors of that ratio from the runs (a ratio whose range holds 1 is equal within",
             "chance). Throughput: client = privatize every row, server = count every report and estimate",
             "every marginal; tinyldp with the deterministic test source inside one process, the peer's",
             "numba-compiled Python clients one call per row. ε is the paper's: for RS+FD the loss of one",
             "report between two records is ε' = ln(d(e^ε − 1) + 1) (tinyldp multi plan; docs/multi-attribute.md).",
             "",
             "| data (d, n) | ε | protocol | tinyldp MSE | multi-freq-ldpy MSE | ratio | ε per report (records) | client × | server × |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        tm, ts = summary([x["mse"] for x in r["tinyldp"]])
        row = f"| {r['data']} ({r['d']}, {r['n']}) | {r['epsilon']:g} | {r['protocol']} | {tm:.3g} ± {ts:.2g} |"
        if r["peer"]:
            pm, ps = summary([x["mse"] for x in r["peer"]])
            k = len(r["peer"])
            rel = ((ts / tm) ** 2 / k + (ps / pm) ** 2 / k) ** 0.5 if tm > 0 and pm > 0 else 0
            ratio = tm / pm
            client = statistics.mean(x["client"] for x in r["peer"]) / statistics.mean(x["client"] for x in r["tinyldp"])
            server = statistics.mean(x["server"] for x in r["peer"]) / statistics.mean(x["server"] for x in r["tinyldp"])
            row += (f" {pm:.3g} ± {ps:.2g} | {ratio:.2f} ± {2 * rel * ratio:.2f} |"
                    f" {r['tinyldp'][0]['epsilon_per_report']:.3f} | {client:.0f} | {server:.0f} |")
        else:
            row += f" - | - | {r['tinyldp'][0]['epsilon_per_report']:.3f} | - | - |"
        lines.append(row)
    return lines
