# SPDX-License-Identifier: Apache-2.0
"""experiments/compare-peers --longitudinal: tinyldp's memoized protocols beside the Python peers'
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
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import dyadic_values, import_file, mean, mse, plan, variance  # noqa: E402

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


def schedule_matches_pandas(values, rounds):
    """Whether pandas' sample(frac=1, random_state=t), the notebook's call, draws the same
    rounds (first and last); None without pandas."""
    try:
        import pandas
    except ImportError:
        return None
    import numpy as np
    column = pandas.Series(values)
    ours = schedule(values, rounds)
    return all(np.array_equal(column.sample(frac=1, random_state=t).values, ours[t]) for t in {0, rounds - 1})


def schedule(values, rounds):
    """LOLOHA's: round t is the column permuted by RandomState(t) (what pandas'
    sample(frac=1, random_state=t) draws)."""
    import numpy as np
    column = np.asarray(values, dtype=np.int64)
    return np.stack([column[np.random.RandomState(t).permutation(len(column))] for t in range(rounds)])


# ---------------------------------------------------------------------------------------------
# The peers' channels: what their clients sample with, for the attack's thresholds and the
# realized ε₁. Their UE chains and LOLOHA's g are tinyldp's own (the same equations; tinyldp's
# `plan` gives them, exact as the device keeps them); their GRR chains choose the second stage by
# a formula of their own (grr_chain), which tinyldp does not use.

def tinyldp_probabilities(cli, protocol, k, eps_inf, eps_one):
    """tinyldp's chain at (ε∞, ε₁) over k values: plan's probabilities ({'p1': …, 'g': …})."""
    return dyadic_values(plan(cli, protocol, "-e", repr(eps_inf), "--epsilon-one", repr(eps_one),
                              "-d", str(k))["probabilities"])


def ue_chain(cli, protocol, k, eps_inf, eps_one):
    """The UE chain (OUE for l-osue, SUE otherwise, then a symmetric second stage that makes the
    report's ε₁): its memo stage p1, q1 and P(report bit 1 | value bit 1), P(… | value bit 0)."""
    c = tinyldp_probabilities(cli, "l-osue" if protocol == "l-osue" else "l-sue", k, eps_inf, eps_one)
    return c["p1"], c["q1"], c["p1"] * c["p2"] + (1 - c["p1"]) * c["q2"], c["q1"] * c["p2"] + (1 - c["q1"]) * c["q2"]


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


def optimal_g(cli, k, eps_inf, eps_one):
    """LOLOHA's g: the paper's closed form, which tinyldp's loloha.hpp evaluates (in integers)."""
    return int(tinyldp_probabilities(cli, "loloha", k, eps_inf, eps_one)["g"])


def peer_channel(cli, protocol, k, eps_inf, eps_one):
    """(range of a report, realized ε₁, P(support | the value), P(support | another value))."""
    kind = KIND[protocol]
    if kind == "ue":
        _, _, ps, qs = ue_chain(cli, protocol, k, eps_inf, eps_one)
        return k, eps_one, ps, qs
    g = k if kind == "grr" else (optimal_g(cli, k, eps_inf, eps_one) if protocol == "loloha" else 2)
    p1, q1, p2, q2, realized = grr_chain(g, eps_inf, eps_one)
    same = p1 * p2 + (g - 1) * q1 * q2
    if kind == "grr":
        return g, realized, same, q1 * p2 + p1 * q2 + (g - 2) * q1 * q2
    return g, realized, same, 1 / g  # another value collides under a fresh hash seed with 1/g


# ---------------------------------------------------------------------------------------------
# The peers



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


def peer_attack(cli, peer, protocol, k, eps_inf, eps_one, values, boots):
    """A reboot before every report: one call per report. Per device, the per-item majority
    (support rate above the midpoint of the two support probabilities) and the argmax."""
    import numpy as np
    client, _ = peer.functions(protocol, k, eps_inf, eps_one)
    g, _, p_same, p_other = peer_channel(cli, protocol, k, eps_inf, eps_one)
    kind = KIND[protocol]
    seed_peers(3)
    right, named, same, other = 0.0, 0, 0.0, 0.0
    for v in values:
        counts = np.zeros(k)
        for _ in range(boots):
            report = client([v])[0][0] if peer.stateful else client(v)
            counts += support(kind, report, k, g)
        guess = counts / boots > (p_same + p_other) / 2
        truth = np.arange(k) == v
        right += float(np.mean(guess == truth))
        named += int(np.argmax(counts) == v)
        same += counts[v]
        other += counts.sum() - counts[v]
    out = {"per_item_accuracy": right / len(values), "value_named": named / len(values)}
    # The report's ε₁ as measured on these fresh-memo reports (UE: one bit's odds ratio; GRR:
    # P(the value)/P(one other value)), against the formula's.
    rate_same, rate_other = same / (len(values) * boots), other / (len(values) * boots * (k - 1))
    if kind == "ue":
        out["measured_eps_one"] = math.log(rate_same * (1 - rate_other) / (rate_other * (1 - rate_same)))
    elif kind == "grr":
        out["measured_eps_one"] = math.log(rate_same / rate_other)
    return out


# ---------------------------------------------------------------------------------------------
# tinyldp

def tinyldp_knows(cli, protocol):
    """Whether this build's collector has the protocol (the longitudinal-rows may not be in)."""
    args = (["-m", "rappor", "--f", "0.5", "--p", "0.5", "--q", "0.75"] if protocol == "rappor"
            else ["-m", protocol, "-e", "2", "--epsilon-one", "1"])
    return subprocess.run([cli, "plan", *args, "-d", "8"], capture_output=True).returncode == 0




def rappor_parameters(cli, k, eps_inf, eps_one):
    """RAPPOR's f, p, q of tinyldp's own L-SUE chain at (ε∞, ε₁): f = 2·q1, p = q2, q = p2."""
    d = tinyldp_probabilities(cli, "l-sue", k, eps_inf, eps_one)
    return 2 * d["q1"], d["q2"], d["p2"]


def tinyldp_range(cli, protocol, k, eps_inf, eps_one):
    """g of tinyldp's LOLOHA at (ε∞, ε₁), from plan's probabilities (None if not shown)."""
    g = tinyldp_probabilities(cli, protocol, k, eps_inf, eps_one).get("g")
    return int(g) if g is not None else None


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





def equal_mse_test(tiny_runs, peer_mses, peer_stateful):
    """z of the difference of mean MSEs, and the standard error of tinyldp's mean.

    A device that keeps its memo makes the rounds of one fleet share the memo noise of the
    devices whose value recurs: a fleet's rounds are equicorrelated, and their spread
    understates the spread of their mean. tinyldp's K fleets measure both parts: W, the variance
    of a round's MSE within a fleet, and B, the variance of a fleet's mean over its R rounds,
    B = W/R + C (C the shared part). tinyldp's mean: B/K. Under the hypothesis that the peer's
    rounds come from the same distribution, its mean over R' rounds has variance W/R' + C if
    it keeps memos through its rounds (LOLOHA) and (W + C)/R' if every round is independent
    (multi-freq-ldpy) — from tinyldp's precise W and C, not the peer's few rounds."""
    means = [mean(r) for r in tiny_runs]
    rounds = len(tiny_runs[0])
    within = mean([variance(r) for r in tiny_runs])
    between = variance(means)
    shared = max(0.0, between - within / rounds)
    peer = within / len(peer_mses) + shared if peer_stateful else (within + shared) / len(peer_mses)
    return (mean(means) - mean(peer_mses)) / math.sqrt(between / len(means) + peer), math.sqrt(between / len(means))


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
               "rounds": args.rounds, "peer_rounds": args.peer_rounds, "peer_rounds_lh": args.peer_rounds_lh,
               "runs": args.runs, "cells": [],
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
            results.setdefault("pandas_checked", schedule_matches_pandas(values, args.rounds))
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


def theory_raw_mse(truth, n, p_same, p_other):
    """The expected MSE of the unbiased (raw) estimate: a value of frequency f is supported by a
    report with probability σ = p_other + f·(p_same − p_other), so its estimate has variance
    σ(1 − σ)/(n·(p_same − p_other)²); the mean over the k values."""
    d = p_same - p_other
    return mean([(p_other + f * d) * (1 - p_other - f * d) / (n * d * d) for f in truth])


def run_cell(args, peers, column, k, n, sched, truth, path, protocol, eps_inf, eps_one):
    g, realized, p_same, p_other = peer_channel(args.cli, protocol, k, eps_inf, eps_one)
    attack_devices = args.attack_devices if column == args.attack_column else 0
    cell = {"column": column, "k": k, "n": n, "protocol": protocol, "eps_inf": eps_inf, "eps_one": eps_one,
            "peer_eps_one": realized, "peer_g": g if KIND[protocol] == "lh" else None, "peers": {},
            "theory_raw": theory_raw_mse(truth, n, p_same, p_other)}
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
        entry = {"mse": mean(r["mse"]), "mse_rounds": r["mse"], "rounds": rounds, "z": z, "tiny_se": se,
                 "client": r["reports"] / r["client_seconds"], "server": r["reports"] / r["server_seconds"]}
        if peer.stateful:
            entry["budget"] = peer_budget(peer, protocol, k, eps_inf, eps_one, sched, min(args.budget_devices, n))
        else:
            entry["budget"] = args.rounds * realized  # no memo kept: every report a fresh ε₁ sample
        if attack_devices:
            entry["attack"] = peer_attack(args.cli, peer, protocol, k, eps_inf, eps_one,
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
           "budget": t["memos_mean"] * t["epsilon_infinity"], "memos_max": t["memos_max"], "runs": len(runs),
           "mse_rounds": [r["mse_clipped"] for r in runs]}
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


# ---------------------------------------------------------------------------------------------
# The report (docs/peers.md, section "Reports over time")



def fmt(x, digits=3):
    return f"{x:.{digits}g}"


def markdown(results, heading, cli):
    m = results["machine"]
    cells = results["cells"]
    peers = list(dict.fromkeys(name for c in cells for name in c["peers"]))
    lines = [
        heading,
        "",
        f"Produced by `{results['command']}` at commit {m['commit']}, {m['date']}, in one run of "
        f"{results['seconds'] / 60:.0f} minutes on one machine ({m['cpu']}, {m['cores']} cores shared with other "
        f"work: load average {m['load']:.1f} at the start, so every throughput below is a lower bound and varies "
        f"from run to run; Python {m['python']}, {m['versions']}). The peers' trees were kept outside the "
        "repository, imported in place:",
        "",
    ]
    lines += [f"- {p}" for p in results["peer_trees"]] or ["- none given: tinyldp's side alone"]
    columns = list(dict.fromkeys((c["column"], c["k"], c["n"], c["distinct_values"]) for c in cells))
    lines += [
        "",
        "**The schedule** is LOLOHA's Adult experiment (its `Experiments_Adult.ipynb`): the column, its "
        "distinct values numbered in sorted order, reported in "
        f"{results['rounds']} rounds" + (" (weekly for five years)" if results["rounds"] == 260 else "")
        + "; in round t every device holds the value of the row "
        "that numpy's `RandomState(t).permutation` puts at its place (the notebook's "
        "`df[col].sample(frac=1, random_state=t)`, which draws exactly that permutation"
        + {True: ": checked against pandas in this run", False: ": NOT SO in this run's pandas",
           None: ""}[results.get("pandas_checked")] + "). So every round "
        "has the column's exact histogram, and a device's value is a fresh draw from it in every round — it "
        "changes unless it draws the same value again. The notebook uses `hours-per-week` and ε₁ = 0.4 ε∞; here "
        f"both columns of ../shared/data/adult.csv (every row: this extract of Adult has 32 561; the figures "
        f"quoted in issue 15 are for the paper's 45 222 rows and k = 74) and ε₁ = {results['alpha']:g} ε∞, "
        f"ε∞ ∈ {{{', '.join(f'{e:g}' for e in results['epsilons'])}}}:",
        "",
    ]
    for column, k, n, distinct in columns:
        lines.append(f"- `{column}`: k = {k}, n = {n}; a device holds {distinct:.1f} distinct values over the "
                     f"{results['rounds']} rounds on average")
    lines += [
        "",
        "**The sides.** tinyldp: `bench/peer_rounds`, every device with its own memo key, its reports privatized "
        "with the ChaCha20 DRBG into complete wire reports, strict-parsed, counted and estimated per round by the "
        f"collector; {results['runs']} fleets with fresh keys over all {results['rounds']} rounds. "
        "multi-freq-ldpy (`long_freq_est`): one call of its client per report — the client draws the "
        "\"permanent\" round inside the call and keeps nothing, so every report carries a new memo; the first "
        f"{results['peer_rounds']} rounds ({results['peer_rounds_lh']} for LOLOHA, whose aggregator hashes every "
        "value for every report in Python). LOLOHA (`LDP/protocols.py`): one call of its client per device over "
        "the device's sequence of values — the memos live in a dict of that call and LOLOHA's hash seed is drawn "
        "at its start; the same rounds. Both peers' estimators clip negative frequencies and renormalize, so "
        "tinyldp's MSE is of its `clip` post-processing; the MSE of a round is the mean over the k values of the "
        "squared error against that round's true frequencies, averaged over the rounds.",
        "",
        "**The peers' ε₁.** For a chain of two k-ary randomized responses (L-GRR; LOLOHA over g hashed values) the "
        "peers choose the second stage so that (p1·p2 + q1·q2)/(q1·p2 + p1·q2) = e^ε₁ — the ratio of a chain over "
        "two values. Over k > 2 values a report's true ratio is (p1·p2 + (k−1)·q1·q2)/(q1·p2 + p1·q2 + "
        "(k−2)·q1·q2), smaller: the peers' L-GRR and LOLOHA (g > 2) deliver less than the ε₁ asked (more privacy, "
        "more error); their UE chains and BiLOLOHA are exact. tinyldp is configured at the peers' *realized* ε₁, "
        "so both sides run the same channel; the next column is tinyldp at the ε₁ asked.",
        "",
        "| column | k | ε∞ | ε₁ asked | L-GRR: peers' realized ε₁ | LOLOHA: peers' g | LOLOHA: peers' realized ε₁ |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for column, k, n, _ in columns:
        for e in results["epsilons"]:
            one = results["alpha"] * e
            g = optimal_g(cli, k, e, one)
            lines.append(f"| {column} | {k} | {e:g} | {one:g} | {grr_chain(k, e, one)[4]:.4g} | {g} | "
                         f"{grr_chain(g, e, one)[4]:.4g} |")
    lines += [
        "",
        "### Error",
        "",
        "**The test.** A device that keeps its memo makes the rounds of one fleet share the memo noise of every "
        "device whose value recurs, so a fleet's rounds are equicorrelated and their spread understates the "
        f"spread of their mean. tinyldp's {results['runs']} fleets measure both parts: W, the variance of one "
        "round's MSE within a fleet, and B, the variance of a fleet's mean over its R rounds (B = W/R + C, C the "
        "shared part). tinyldp's mean has variance B/K over K fleets. If the peer's rounds have the same "
        "distribution (the hypothesis tested), its mean over its R' rounds has variance W/R' + C for LOLOHA "
        "(memos kept through the call) and (W + C)/R' for multi-freq-ldpy (every round independent), from "
        "tinyldp's W and C — not from the peer's own few rounds. z = (difference of the mean MSEs) / √(sum of the "
        "two variances): |z| ≤ 3 is \"equal within chance\" (B has K − 1 = "
        f"{results['runs'] - 1} degrees of freedom: |z| a little above 3 is not yet a difference; rerun with "
        "more `--runs`). The first columns check tinyldp alone: its raw (unbiased) MSE "
        "beside the expected one, Σ σ(1 − σ)/(n·(p − q)²)/k over the true frequencies with the peers' channel "
        "(σ = q + f·(p − q); p, q the probabilities that a report supports the value and another value).",
        "",
    ]
    header = "| column | protocol | ε∞ | ε₁ run | tinyldp raw MSE | theory | tinyldp MSE (± SE) |"
    rule = "| --- | --- | --- | --- | --- | --- | --- |"
    for p in peers:
        header += f" {p} MSE | z |"
        rule += " --- | --- |"
    header += " tinyldp at the ε₁ asked |"
    rule += " --- |"
    lines += [header, rule]
    for c in cells:
        t = c["tiny"]
        se = next((e["tiny_se"] for e in c["peers"].values()), None)
        theory = fmt(c["theory_raw"]) if "theory_raw" in c else "—"
        row = (f"| {c['column']} | {c['protocol']} | {c['eps_inf']:g} | {t['eps_one']:.4g} | {fmt(t['mse_raw'])} | "
               f"{theory} | {fmt(t['mse'])}"
               + (f" (± {fmt(se, 2)})" if se is not None else "") + " |")
        for p in peers:
            e = c["peers"].get(p)
            row += f" {fmt(e['mse'])} | {e['z']:+.2f} |" if e else " — | — |"
        row += f" {fmt(c['tiny_requested']['mse'])} (ε₁ {c['tiny_requested']['eps_one']:.4g}) |" \
            if "tiny_requested" in c else " same |"
        lines.append(row)
    lines += [
        "",
        "tinyldp's `rappor` is configured with RAPPOR's f, p, q of its own L-SUE chain at (ε∞, ε₁) (f = 2·q1, "
        "p = q2, q = p2): the same channel through the two-stage code's other entry; the peers' L-SUE "
        "(multi-freq-ldpy) and `RAPPOR` (LOLOHA) are that chain too.",
        "",
        "### Privacy budget over the rounds",
        "",
        f"The ε a device has spent after {results['rounds']} rounds, mean over the devices: tinyldp, its distinct "
        "memoized values (LOLOHA: hashed values) × ε∞, counted by `bench/peer_rounds` from the memos the devices "
        f"drew; LOLOHA, its clients' own count of memos × ε∞ over the first devices (its `final_budget`); "
        "multi-freq-ldpy keeps no memo, so every report is a fresh ε₁-LDP sample and the rounds compose: "
        f"{results['rounds']}·ε₁ (realized).",
        "",
        "| column | protocol | ε∞ | tinyldp (largest) |" + "".join(f" {p} |" for p in peers),
        "| --- | --- | --- | --- |" + " --- |" * len(peers),
    ]
    for c in cells:
        t = c["tiny"]
        lines.append(f"| {c['column']} | {c['protocol']} | {c['eps_inf']:g} | {t['budget']:.1f} "
                     f"({t['memos_max'] * t['eps_inf']:.0f}) |"
                     + "".join(f" {c['peers'][p]['budget']:.1f} |" if p in c["peers"] else " — |" for p in peers))
    attacked = [c for c in cells if "attack_kept" in c["tiny"]]
    if attacked:
        lines += [
            "",
            "### A reboot between reports",
            "",
            f"The averaging attack (tests/privacy/test_memo_attack.cpp, here on the real data): "
            f"{results['attack_devices']} devices of the `{attacked[0]['column']}` column each report their round-0 "
            f"value {results['attack_boots']} times, rebooting before every report. tinyldp: at every boot the memo "
            "key is loaded from emulated flash and the DRBG is seeded afresh; \"erased\" formats the flash at every "
            "boot (a device that keeps no state: the check that the attack can succeed). A peer: every report is a "
            "new call of its client, which is what a restarted process does — multi-freq-ldpy draws the memo in "
            "every call, LOLOHA's clients start a new dict of memos and a new hash seed. The attacker counts, per "
            "value, the reports that support it (UE: the bit; GRR: the value; LOLOHA: the hash of the value under "
            "the report's seed), guesses \"this is the value\" where that rate is above the midpoint of the two "
            "support probabilities (per UE bit: the majority vote), and names the most supported value. Per-item "
            "accuracy of the guess / share of devices whose value is named; for the peers' UE chains and L-GRR, "
            "in parentheses, the ε₁ of one report measured on these same reports (UE: a bit's odds ratio; L-GRR: "
            "P(report the value) / P(report one other value)) — the check of the realized ε₁ above:",
            "",
            "| protocol | ε∞ | tinyldp, key kept | memo's own accuracy (UE) | tinyldp, flash erased |"
            + "".join(f" {p} |" for p in peers),
            "| --- | --- | --- | --- | --- |" + " --- |" * len(peers),
        ]
        for c in attacked:
            t = c["tiny"]
            bound = "—"
            if KIND[c["protocol"]] == "ue":
                p1, q1, _, _ = ue_chain(cli, c["protocol"], c["k"], c["eps_inf"], c["eps_one"])
                bound = f"{(p1 + (c['k'] - 1) * (1 - q1)) / c['k']:.3f}"

            def pair(a):
                measured = f" (ε₁ {a['measured_eps_one']:.3g})" if "measured_eps_one" in a else ""
                return f"{a['per_item_accuracy']:.3f} / {a['value_named']:.2f}{measured}"
            lines.append(f"| {c['protocol']} | {c['eps_inf']:g} | {pair(t['attack_kept'])} | {bound} | "
                         f"{pair(t['attack_erased'])} |"
                         + "".join(f" {pair(c['peers'][p]['attack'])} |" if p in c["peers"] else " — |"
                                   for p in peers))
        lines += [
            "",
            "With its key kept, a tinyldp device gives away at most its memo, whatever the number of reboots: the "
            "per-item accuracy stays at the memo's own (the UE column: (p1 + (k − 1)(1 − q1))/k, a bit of the memo "
            "equals the value's encoding) and the value is named only as often as the memo points at it. Without "
            "kept state — the peers, and tinyldp with its flash erased — the reports average to the value itself, "
            "unless one report carries almost nothing: at the peers' realized ε₁ of L-GRR (0.05 and 0.2 at ε∞ = 1 "
            "and 2 on this domain) a thousand reports do not average the noise away, for any side.",
        ]
    lines += [
        "",
        "### Throughput",
        "",
        "Reports per second over the rounds measured (tinyldp: the fastest of its fleets; client = privatize "
        "into a complete wire report with the ChaCha20 DRBG, server = strict parse, count, estimate per round; a "
        "peer: its client calls, then its aggregator per round). The ratio is tinyldp's over the peer's.",
        "",
        "| column | protocol | ε∞ | tinyldp client |" + "".join(f" {p} client | × |" for p in peers)
        + " tinyldp server |" + "".join(f" {p} server | × |" for p in peers),
        "| --- | --- | --- | --- |" + " --- | --- |" * len(peers) + " --- |" + " --- | --- |" * len(peers),
    ]
    for c in cells:
        t = c["tiny"]
        row = f"| {c['column']} | {c['protocol']} | {c['eps_inf']:g} | {t['client']:,.0f} |"
        for p in peers:
            e = c["peers"].get(p)
            row += f" {e['client']:,.0f} | ×{t['client'] / e['client']:,.0f} |" if e else " — | — |"
        row += f" {t['server']:,.0f} |"
        for p in peers:
            e = c["peers"].get(p)
            row += f" {e['server']:,.0f} | ×{t['server'] / e['server']:,.0f} |" if e else " — | — |"
        lines.append(row)
    missing = results.get("missing") or []
    lines += [
        "",
        "Not compared: " + (f"{', '.join(missing)} (this build's collector does not have them yet; the script "
                            "includes every protocol `tinyldp plan -m NAME` accepts); " if missing else "")
        + "`1bitmean`, whose estimand is a mean — the peers' dBitFlipPM estimates a histogram over buckets.",
        "",
    ]
    return lines
