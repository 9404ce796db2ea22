# SPDX-License-Identifier: Apache-2.0
"""scripts/compare-peers --longitudinal: tinyldp's memoized protocols beside the Python peers'
longitudinal ones (issue 15, item 5), on the same value schedule.

The schedule is LOLOHA's Adult experiment: the column, label-encoded (its distinct values in
sorted order are 0 … k − 1), reported in R rounds (260: weekly for five years); in round t the
devices hold the column permuted by numpy's RandomState(t).permutation. Every round has the
column's exact histogram, and a device's value in each round is a fresh draw from it.

Sides, each over every device of the column:
- tinyldp: bench/peer_rounds (build/host), K fleets (--runs, fresh memo keys each) over all R
  rounds; ChaCha20 DRBG; MSE of the clip-renormalized estimate per round.
- multi-freq-ldpy (src/multi_freq_ldpy/long_freq_est): one call per report, the permanent round
  drawn again in every call; the first R' rounds (--peer-rounds).
- LOLOHA (LDP/protocols.py): one call per device over its value sequence, memos in a dict that
  lives for that call; the first R' rounds.
Both peers' estimators clip negatives and renormalize, hence tinyldp's `clip`.
"""
import importlib
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings

# The memoized protocols, in report order; the peers' function names per protocol.
PROTOCOLS = ["l-osue", "l-sue", "rappor", "l-grr", "loloha", "biloloha"]
KIND = {"l-osue": "ue", "l-sue": "ue", "rappor": "ue", "l-grr": "grr", "loloha": "lh", "biloloha": "lh"}
COLUMNS = {"age": "age", "hours": "hours-per-week"}


# ---------------------------------------------------------------------------------------------
# The schedule

def encoded_column(rows, name):
    raw = [int(r[name]) for r in rows]
    labels = sorted(set(raw))
    index = {v: i for i, v in enumerate(labels)}
    return len(labels), [index[v] for v in raw]


def schedule(values, rounds):
    """LOLOHA's: round t is the column permuted by RandomState(t) (what pandas'
    sample(frac=1, random_state=t) draws)."""
    import numpy as np
    column = np.asarray(values, dtype=np.int64)
    return np.stack([column[np.random.RandomState(t).permutation(len(column))] for t in range(rounds)])


# ---------------------------------------------------------------------------------------------
# The peers' channels, from the papers' formulas (written here from the math): what their
# clients sample with, for the attack's thresholds and the realized ε₁.

def ue_first_stage(protocol, eps_inf):
    if protocol == "l-osue":  # OUE
        return 0.5, 1 / (math.exp(eps_inf) + 1)
    p1 = math.exp(eps_inf / 2) / (math.exp(eps_inf / 2) + 1)  # SUE
    return p1, 1 - p1


def ue_composed(p1, q1, p2):
    """P(report bit 1 | value bit 1), P(report bit 1 | value bit 0) of a UE chain whose second
    stage is symmetric (keeps a bit with p2)."""
    return p1 * p2 + (1 - p1) * (1 - p2), q1 * p2 + (1 - q1) * (1 - p2)


def ue_second_stage(p1, q1, eps_one):
    """The symmetric second stage that makes the chain's report ε₁ (bisection; the peers'
    closed forms solve the same equation: a UE bit is a binary channel, so it is exact)."""
    lo, hi = 0.5, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        ps, qs = ue_composed(p1, q1, mid)
        if math.log(ps * (1 - qs) / (qs * (1 - ps))) < eps_one:
            lo = mid
        else:
            hi = mid
    return lo


def grr_chain(g, eps_inf, eps_one):
    """The peers' GRR chain over g values: the memo keeps the value with p1; the second stage
    p2 is chosen so that (p1·p2 + q1·q2)/(q1·p2 + p1·q2) = e^ε₁ — the ratio of a chain over two
    values. Over g > 2 values the report's true ratio has (g − 1)q1q2 and (g − 2)q1q2 more, so
    the realized ε₁ is lower than asked. Returns p1, q1, p2, q2 and the realized ε₁."""
    a, b = math.exp(eps_inf), math.exp(eps_one)
    p1 = a / (a + g - 1)
    q1 = (1 - p1) / (g - 1)
    p2 = (q1 - b * p1) / (b * q1 * (g - 1) - b * p1 - p1 * (g - 1) + q1)
    q2 = (1 - p2) / (g - 1)
    same = p1 * p2 + (g - 1) * q1 * q2
    other = q1 * p2 + p1 * q2 + (g - 2) * q1 * q2
    return p1, q1, p2, q2, math.log(same / other)


def optimal_g(eps_inf, eps_one):
    """LOLOHA's closed-form g (the paper's; tinyldp's loloha.hpp evaluates it in integers)."""
    a, b = math.exp(eps_inf), math.exp(eps_one)
    root = math.sqrt(a ** 4 - 14 * a ** 2 - 12 * a ** 2 * b ** 2 + 12 * a * b + 12 * a ** 3 * b + 1)
    return int(max(round((root - a ** 2 + 6 * a - 6 * b + 1) / (6 * (a - b))), 2))


def peer_channel(protocol, k, eps_inf, eps_one):
    """(range of a report, realized ε₁, P(support | the value), P(support | another value))."""
    kind = KIND[protocol]
    if kind == "ue":
        p1, q1 = ue_first_stage("l-osue" if protocol == "l-osue" else "l-sue", eps_inf)
        ps, qs = ue_composed(p1, q1, ue_second_stage(p1, q1, eps_one))
        return k, eps_one, ps, qs
    g = k if kind == "grr" else (optimal_g(eps_inf, eps_one) if protocol == "loloha" else 2)
    p1, q1, p2, q2, realized = grr_chain(g, eps_inf, eps_one)
    same = p1 * p2 + (g - 1) * q1 * q2
    if kind == "grr":
        return g, realized, same, q1 * p2 + p1 * q2 + (g - 2) * q1 * q2
    return g, realized, same, 1 / g  # another value collides under a fresh hash seed with 1/g


# ---------------------------------------------------------------------------------------------
# The peers

def import_file(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class MultiFreqLdpy:
    """One call per report; the permanent round is drawn again in every call."""
    name = "multi-freq-ldpy"
    stateful = False

    def __init__(self, path):
        src = os.path.join(path, "src")
        base = os.path.join(src, "multi_freq_ldpy", "long_freq_est")
        if not os.path.isdir(base):
            sys.exit(f"compare-peers: {path} does not hold src/multi_freq_ldpy/long_freq_est")
        if src not in sys.path:
            sys.path.insert(0, src)
        self.m = {n: importlib.import_module(f"multi_freq_ldpy.long_freq_est.{n}")
                  for n in ["L_OSUE", "L_SUE", "L_GRR", "L_LH"]}
        self.files = [os.path.join(base, f"{n}.py") for n in self.m] + [
            os.path.join(src, "multi_freq_ldpy", "pure_frequency_oracles", "GRR.py"),
            os.path.join(src, "multi_freq_ldpy", "estimators", "Histogram_estimator.py")]
        self.path = path

    def functions(self, protocol, k, eps_inf, eps_one):
        m = self.m
        if protocol == "l-osue":
            return (lambda v: m["L_OSUE"].L_OSUE_Client(v, k, eps_inf, eps_one),
                    lambda r: m["L_OSUE"].L_OSUE_Aggregator_MI(r, eps_inf, eps_one))
        if protocol in ("l-sue", "rappor"):
            return (lambda v: m["L_SUE"].L_SUE_Client(v, k, eps_inf, eps_one),
                    lambda r: m["L_SUE"].L_SUE_Aggregator_MI(r, eps_inf, eps_one))
        if protocol == "l-grr":
            return (lambda v: m["L_GRR"].L_GRR_Client(v, k, eps_inf, eps_one),
                    lambda r: m["L_GRR"].L_GRR_Aggregator_MI(r, k, eps_inf, eps_one))
        optimal = protocol == "loloha"
        return (lambda v: m["L_LH"].L_LH_Client(v, k, eps_inf, eps_one, optimal),
                lambda r: m["L_LH"].L_LH_Aggregator_MI(r, k, eps_inf, eps_one, optimal))


class Loloha:
    """One call per device over its sequence of values; the memos live in that call."""
    name = "LOLOHA"
    stateful = True

    def __init__(self, path):
        file = os.path.join(path, "LDP", "protocols.py")
        if not os.path.isfile(file):
            sys.exit(f"compare-peers: {path} does not hold LDP/protocols.py")
        self.p = import_file("loloha_protocols", file)
        self.files = [file]
        self.path = path

    def functions(self, protocol, k, eps_inf, eps_one):
        p = self.p
        alpha = eps_one / eps_inf
        if protocol == "l-osue":
            return (lambda s: p.L_OSUE_Client(s, k, eps_inf, eps_one),
                    lambda r: p.L_OSUE_Aggregator(r, eps_inf, eps_one))
        if protocol in ("l-sue", "rappor"):
            return (lambda s: p.RAPPOR_Client(s, k, eps_inf, eps_one),
                    lambda r: p.RAPPOR_Aggregator(r, eps_inf, eps_one))
        if protocol == "l-grr":
            return (lambda s: p.L_GRR_Client(s, k, eps_inf, eps_one),
                    lambda r: p.L_GRR_Aggregator(r, k, eps_inf, eps_one))
        optimal = protocol == "loloha"
        return (lambda s: p.LOLOHA_Client(s, k, eps_inf, eps_one, alpha, optimal),
                lambda r: p.LOLOHA_Aggregator(r, k, eps_inf, eps_one, alpha, optimal))


def seed_peers(seed):
    """numpy's generator and numba's (the peers' jitted clients draw from numba's own)."""
    import numba
    import numpy as np

    @numba.njit
    def seed_numba(s):
        np.random.seed(s)

    np.random.seed(seed)
    seed_numba(seed)


def as_report_array(reports, kind):
    """A round's reports as the peers' aggregators take them (UE: rows of bits, counted as ints)."""
    import numpy as np
    if kind == "ue":
        return np.asarray(reports, dtype=np.int64)
    if kind == "grr":
        return np.asarray(reports, dtype=np.int64)
    return reports


def mse(estimate, truth):
    return sum((float(e) - t) ** 2 for e, t in zip(estimate, truth)) / len(truth)


def run_peer(peer, protocol, k, eps_inf, eps_one, sched, truth, rounds):
    """The peer's MSE in each of the first `rounds` rounds, its client and server seconds."""
    import numpy as np
    client, aggregate = peer.functions(protocol, k, eps_inf, eps_one)
    kind = KIND[protocol]
    n = sched.shape[1]
    with warnings.catch_warnings():  # numba's notes on the peers' code
        warnings.simplefilter("ignore")
        client([0] if peer.stateful else 0)  # numba compiles on the first call; not timed
    seed_peers(1)
    per_round = [[None] * n for _ in range(rounds)]
    t0 = time.perf_counter()
    if peer.stateful:
        for i in range(n):
            reports, _ = client(sched[:rounds, i].tolist())
            for t in range(rounds):
                per_round[t][i] = reports[t]
    else:
        for t in range(rounds):
            row, out = sched[t].tolist(), per_round[t]
            for i in range(n):
                out[i] = client(row[i])
    client_s = time.perf_counter() - t0
    server_s, mses = 0.0, []
    for t in range(rounds):
        reports = as_report_array(per_round[t], kind)
        t1 = time.perf_counter()
        estimate = aggregate(reports)
        server_s += time.perf_counter() - t1
        mses.append(mse(estimate, truth))
        per_round[t] = None
    return {"mse": mses, "client_seconds": client_s, "server_seconds": server_s, "reports": rounds * n}


def peer_budget(peer, protocol, k, eps_inf, eps_one, sched, devices):
    """The LOLOHA clients' own count of memos per device over every round, times ε∞ (mean)."""
    client, _ = peer.functions(protocol, k, eps_inf, eps_one)
    seed_peers(2)
    counts = [client(sched[:, i].tolist())[1] for i in range(devices)]
    return eps_inf * sum(counts) / len(counts)


def support(kind, report, k, g):
    """Which values one peer report supports (the attacker's count)."""
    import numpy as np
    if kind == "ue":
        return np.asarray(report) > 0.5
    out = np.zeros(k, dtype=bool)
    if kind == "grr":
        out[int(report)] = True
        return out
    import xxhash
    value, seed = report[0], report[1]
    for v in range(k):  # the peers hash str(v) with xxh32 under the report's seed, modulo g
        out[v] = xxhash.xxh32(str(v), seed=int(seed)).intdigest() % g == value
    return out


def peer_attack(peer, protocol, k, eps_inf, eps_one, values, boots):
    """A reboot before every report: one call per report. Per device, the per-item majority
    (support rate above the midpoint of the two support probabilities) and the argmax."""
    import numpy as np
    client, _ = peer.functions(protocol, k, eps_inf, eps_one)
    g, _, p_same, p_other = peer_channel(protocol, k, eps_inf, eps_one)
    kind = KIND[protocol]
    seed_peers(3)
    right, named = 0.0, 0
    for v in values:
        counts = np.zeros(k)
        for _ in range(boots):
            report = client([v])[0][0] if peer.stateful else client(v)
            counts += support(kind, report, k, g)
        guess = counts / boots > (p_same + p_other) / 2
        truth = np.arange(k) == v
        right += float(np.mean(guess == truth))
        named += int(np.argmax(counts) == v)
    return {"per_item_accuracy": right / len(values), "value_named": named / len(values)}


# ---------------------------------------------------------------------------------------------
# tinyldp

def tinyldp_knows(cli, protocol):
    """Whether this build's collector has the protocol (the longitudinal-rows may not be in)."""
    args = (["-m", "rappor", "--f", "0.5", "--p", "0.5", "--q", "0.75"] if protocol == "rappor"
            else ["-m", protocol, "-e", "2", "--epsilon-one", "1"])
    return subprocess.run([cli, "plan", *args, "-d", "8"], capture_output=True).returncode == 0


def dyadic_values(probabilities):
    """{'p1': float, …} from plan's "memo: p1 = a/2^b, q1 = …; report: p2 = …" (exact)."""
    return {name: int(num) / 2 ** int(bits) if bits else float(num)
            for name, num, bits in re.findall(r"(\w+) = (\d+)(?:/2\^(\d+))?", probabilities)}


def rappor_parameters(cli, k, eps_inf, eps_one):
    """RAPPOR's f, p, q of tinyldp's own L-SUE chain at (ε∞, ε₁): f = 2·q1, p = q2, q = p2."""
    out = subprocess.run([cli, "plan", "-m", "l-sue", "-e", repr(eps_inf), "--epsilon-one", repr(eps_one),
                          "-d", str(k), "--json"], check=True, capture_output=True, text=True).stdout
    d = dyadic_values(json.loads(out)["probabilities"])
    return 2 * d["q1"], d["q2"], d["p2"]


def tinyldp_range(cli, protocol, k, eps_inf, eps_one):
    """g of tinyldp's LOLOHA at (ε∞, ε₁), from plan's probabilities (None if not shown)."""
    out = subprocess.run([cli, "plan", "-m", protocol, "-e", repr(eps_inf), "--epsilon-one", repr(eps_one),
                          "-d", str(k), "--json"], capture_output=True, text=True).stdout
    m = re.search(r"\bg = (\d+)", out)
    return int(m.group(1)) if m else None


def run_tinyldp(args, protocol, k, eps_inf, eps_one, schedule_path, n, runs, attack_devices):
    command = [args.rounds_driver, "--mechanism", protocol, "--domain", str(k), "--schedule", schedule_path,
               "--devices", str(n), "--rounds", str(args.rounds), "--runs", str(runs)]
    if protocol == "rappor":
        f, p, q = rappor_parameters(args.cli, k, eps_inf, eps_one)
        command += ["--f", repr(f), "--p", repr(p), "--q", repr(q)]
    else:
        command += ["--epsilon", repr(eps_inf), "--epsilon-one", repr(eps_one)]
    if attack_devices:
        command += ["--attack-devices", str(attack_devices), "--attack-boots", str(args.attack_boots)]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)


# ---------------------------------------------------------------------------------------------
# The test of equal MSE

def mean(xs):
    return sum(xs) / len(xs)


def variance(xs):
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def equal_mse_test(tiny_runs, peer_mses, peer_stateful):
    """z of the difference of mean MSEs. A device that keeps its memo makes every round share
    the memo noise of the devices whose value recurs: rounds are equicorrelated within a fleet,
    so the round-to-round spread understates the spread of a mean. tinyldp's K fleets give
    both: W, the mean within-fleet variance of a round's MSE, and B, the variance of a fleet's
    mean over R rounds, B = W/R + C with C the shared part. tinyldp's mean: B/K. A peer's mean
    over R' rounds: W'/R' + C for LOLOHA (memos kept through its call), W'/R' for
    multi-freq-ldpy (independent rounds)."""
    means = [mean(r) for r in tiny_runs]
    rounds = len(tiny_runs[0])
    within = mean([variance(r) for r in tiny_runs])
    between = variance(means)
    shared = max(0.0, between - within / rounds)
    se2 = between / len(means) + variance(peer_mses) / len(peer_mses) + (shared if peer_stateful else 0.0)
    return (mean(means) - mean(peer_mses)) / math.sqrt(se2), math.sqrt(between / len(means))


# ---------------------------------------------------------------------------------------------

def run(args, rows_of_adult, peers):
    import numpy as np
    cli = args.cli
    protocols = [p for p in args.protocols.split(",")]
    for p in protocols:
        if p not in PROTOCOLS:
            sys.exit(f"compare-peers: protocol {p}: one of {', '.join(PROTOCOLS)}")
    known = [p for p in protocols if tinyldp_knows(cli, p)]
    missing = [p for p in protocols if p not in known]
    if missing:
        print(f"compare-peers: this tinyldp has no {', '.join(missing)} (tinyldp plan -m … fails): left out",
              file=sys.stderr)
    epsilons = [float(e) for e in args.epsilons.split(",")]
    results = {"protocols": known, "missing": missing, "epsilons": epsilons, "alpha": args.alpha,
               "rounds": args.rounds, "peer_rounds": args.peer_rounds, "runs": args.runs, "cells": [],
               "attack_boots": args.attack_boots, "attack_devices": args.attack_devices}
    started = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        for column in args.long_columns.split(","):
            if column not in COLUMNS:
                sys.exit(f"compare-peers: column {column}: one of {', '.join(COLUMNS)}")
            k, values = encoded_column(rows_of_adult, COLUMNS[column])
            if args.n:
                values = values[:args.n]
            n = len(values)
            sched = schedule(values, args.rounds)
            truth = list(np.bincount(sched[0], minlength=k) / n)  # the same in every round
            path = os.path.join(tmp, f"{column}.txt")
            with open(path, "w") as f:
                for row in sched:
                    f.write(" ".join(map(str, row.tolist())) + "\n")
            memos_distinct = float(np.mean([len(np.unique(sched[:, i])) for i in range(n)]))
            for eps_inf in epsilons:
                eps_one = args.alpha * eps_inf
                for protocol in known:
                    cell = run_cell(args, peers, column, k, n, sched, truth, path, protocol, eps_inf, eps_one)
                    cell["distinct_values"] = memos_distinct
                    results["cells"].append(cell)
                    print_cell(cell)
    results["seconds"] = time.time() - started
    return results


def run_cell(args, peers, column, k, n, sched, truth, path, protocol, eps_inf, eps_one):
    g, realized, p_same, p_other = peer_channel(protocol, k, eps_inf, eps_one)
    attack_devices = args.attack_devices if column == args.attack_column else 0
    cell = {"column": column, "k": k, "n": n, "protocol": protocol, "eps_inf": eps_inf, "eps_one": eps_one,
            "peer_eps_one": realized, "peer_g": g if KIND[protocol] == "lh" else None, "peers": {}}
    # tinyldp at the peers' realized ε₁ (the same channel), and at the requested one if it differs.
    t = run_tinyldp(args, protocol, k, eps_inf, realized, path, n, args.runs, attack_devices)
    cell["tiny"] = summarize_tiny(t)
    if KIND[protocol] == "lh":
        cell["tiny_g"] = tinyldp_range(args.cli, protocol, k, eps_inf, realized)
    if abs(realized - eps_one) > 1e-6:
        asked = run_tinyldp(args, protocol, k, eps_inf, eps_one, path, n, 1, 0)
        cell["tiny_requested"] = summarize_tiny(asked)
    for peer in peers:
        rounds = args.peer_rounds_lh if KIND[protocol] == "lh" else args.peer_rounds
        r = run_peer(peer, protocol, k, eps_inf, eps_one, sched, truth, rounds)
        z, se = equal_mse_test([run["mse_clipped"] for run in t["runs"]], r["mse"], peer.stateful)
        entry = {"mse": mean(r["mse"]), "rounds": rounds, "z": z, "tiny_se": se,
                 "client": r["reports"] / r["client_seconds"], "server": r["reports"] / r["server_seconds"]}
        if peer.stateful:
            entry["budget"] = peer_budget(peer, protocol, k, eps_inf, eps_one, sched, min(args.budget_devices, n))
        else:
            entry["budget"] = args.rounds * realized  # no memo kept: every report a fresh ε₁ sample
        if attack_devices:
            entry["attack"] = peer_attack(peer, protocol, k, eps_inf, eps_one,
                                          sched[0][:attack_devices].tolist(), args.attack_boots)
        cell["peers"][peer.name] = entry
    return cell


def summarize_tiny(t):
    runs = t["runs"]
    reports = t["devices"] * t["rounds"]
    out = {"mse": mean([mean(r["mse_clipped"]) for r in runs]), "mse_raw": mean([mean(r["mse_raw"]) for r in runs]),
           "client": max(reports / r["client_seconds"] for r in runs),
           "server": max(reports / r["server_seconds"] for r in runs),
           "eps_one": t["epsilon_one"], "eps_inf": t["epsilon_infinity"],
           "budget": t["memos_mean"] * t["epsilon_infinity"], "memos_max": t["memos_max"], "runs": len(runs)}
    if "attack_kept" in t:
        out["attack_kept"], out["attack_erased"] = t["attack_kept"], t["attack_erased"]
    return out


def print_cell(c):
    t = c["tiny"]
    print(f"{c['column']} {c['protocol']} ε∞={c['eps_inf']:g} ε₁={c['eps_one']:g} (peers realize "
          f"{c['peer_eps_one']:.4g}): tinyldp MSE {t['mse']:.3g} (raw {t['mse_raw']:.3g}), budget {t['budget']:.1f}, "
          f"client {t['client']:,.0f}/s, server {t['server']:,.0f}/s")
    if "tiny_requested" in c:
        print(f"  tinyldp at the requested ε₁: MSE {c['tiny_requested']['mse']:.3g}")
    for name, p in c["peers"].items():
        print(f"  {name:16} MSE {p['mse']:.3g} over {p['rounds']} rounds, z = {p['z']:+.2f}; budget {p['budget']:.1f}; "
              f"client ×{t['client'] / p['client']:,.0f}, server ×{t['server'] / p['server']:,.0f}")
        if "attack" in p:
            print(f"    attack: peer per-item {p['attack']['per_item_accuracy']:.3f}, named "
                  f"{p['attack']['value_named']:.2f}; tinyldp kept {t['attack_kept']['per_item_accuracy']:.3f}/"
                  f"{t['attack_kept']['value_named']:.2f}, erased {t['attack_erased']['per_item_accuracy']:.3f}/"
                  f"{t['attack_erased']['value_named']:.2f}")
    sys.stdout.flush()
