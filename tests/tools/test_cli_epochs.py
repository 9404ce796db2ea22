# SPDX-License-Identifier: Apache-2.0
"""`tinyldp aggregate` never pools what is not independent and never counts a thing twice.

- Memoized reports of several epochs are a time series by default (one row per epoch and item in
  CSV and JSON; --truth-rounds gives each epoch's truth), or pooled with --pool-epochs and a
  standard error that accounts for the memos a device's reports share. The 95 % intervals of both
  modes cover the truth 93–97 % of the time over 200 simulated fleets; the same check on the
  pooled estimate with the standard error that treats the epochs as independent (what aggregate
  printed before) covers far less, so the check can fail.
- `inspect --summary` lists the epochs a file holds; states of different epochs merge into the
  time series, never into one count; a mechanism without a covariance model refuses to pool.
- A report file given twice (or a copy, or through a saved state) is refused; a file cut short at
  a record boundary, with a changed record or with bytes after its trailer is refused; a file
  written before trailers is read with a warning."""
import csv
import io
import json
import math
import os
import random
import shutil
import sys
import tempfile
from cli_harness import check, finish, run

work = tempfile.mkdtemp(prefix="tinyldp-epochs-")


def path(name):
    return os.path.join(work, name)


D = 8
MECH = ["-m", "l-osue", "-e", "2", "--epsilon-one", "1", "-d", str(D)]
DEVICES = 2000
ROUNDS = 3
rng = random.Random(5)
values = [min(D - 1, int(rng.expovariate(0.45))) for _ in range(DEVICES)]
with open(path("values.txt"), "w") as f:
    f.write("\n".join(map(str, values)) + "\n")


def rounds_truth(rounds_csv):
    truth = {}
    with open(rounds_csv) as f:
        for row in csv.DictReader(f):
            truth.setdefault(int(row["round"]), [0.0] * D)[int(row["value"])] += int(row["true_count"])
    return {r: [c / sum(t) for c in t] for r, t in truth.items()}


# --- the time series and its formats --------------------------------------------------------
run("simulate", *MECH, "-i", path("values.txt"), "-o", path("r.tldp"), "--rounds", ROUNDS, "--change-prob", 0.2,
    "--seed", 1)
p = run("inspect", path("r.tldp"), "--summary", "--json")
summary = json.loads(p.stdout)
check([e["epoch"] for e in summary["epochs"]] == [0, 1, 2] and all(e["reports"] == DEVICES for e in summary["epochs"]),
      f"inspect --summary lists the epochs and their reports: {summary}")
check(summary["trailer"] == "verified" and summary["records"] == ROUNDS * DEVICES, f"the trailer vouches: {summary}")
check("epochs: 0 (2000) 1 (2000) 2 (2000)" in run("inspect", path("r.tldp"), "--summary").stdout,
      "inspect --summary as text")

p = run("aggregate", path("r.tldp"), "--truth-rounds", path("r.tldp.rounds.csv"))
rows = list(csv.DictReader(io.StringIO(p.stdout)))
check(p.stdout.startswith("epoch,kind,item,estimate,"), f"CSV time series: epoch first ({p.stdout[:60]!r})")
check(len(rows) == ROUNDS * D and sorted({r["epoch"] for r in rows}) == ["0", "1", "2"],
      f"one row per epoch and item: {len(rows)} rows")
check("one row per epoch and item" in p.stderr and "--pool-epochs" in p.stderr, f"it says why: {p.stderr.strip()}")
truth = rounds_truth(path("r.tldp.rounds.csv"))
check(all(abs(float(r["true_value"]) - truth[int(r["epoch"])][int(r["item"])]) < 1e-6 for r in rows),
      "each epoch's truth from --truth-rounds")
j = json.loads(run("aggregate", path("r.tldp"), "-f", "json").stdout)
check(len(j["epochs"]) == ROUNDS and j["reports"] == ROUNDS * DEVICES and "items" not in j,
      "JSON: the series' about, no pooled items")
check([e["epoch"] for e in j["epochs"]] == [0, 1, 2] and all(len(e["items"]) == D and e["reports"] == DEVICES
                                                             for e in j["epochs"]), "JSON: one entry per epoch")
budget = [e["budget"] for e in j["epochs"]]
check([b["memos_at_most"] for b in budget] == [1, 2, 3] and
      all(abs(b["lifetime_epsilon_at_most"] - b["memos_at_most"] * b["epsilon_infinity"]) < 1e-9 and
          abs(b["epsilon_infinity"] - 2) < 1e-6 and abs(b["epsilon_per_report"] - 1) < 1e-3 for b in budget),
      f"each epoch's budget: at most one new memo per epoch, ε∞ each: {budget}")
p = run("aggregate", path("r.tldp"), "--truth", path("values.txt"), expect=2)
check("--truth-rounds" in p.stderr, f"one truth for a time series is refused: {p.stderr.strip()}")
p = run("aggregate", path("r.tldp"), "--plot", path("chart.svg"))
check(all(os.path.exists(path(f"chart-epoch{r}.svg")) for r in range(ROUNDS)), "a chart per epoch")

# --- pooled ---------------------------------------------------------------------------------
p = run("aggregate", path("r.tldp"), "--pool-epochs", "-f", "json")
pooled = json.loads(p.stdout)
check(pooled["epochs_pooled"] == ROUNDS and pooled["reports"] == ROUNDS * DEVICES and len(pooled["items"]) == D,
      "--pool-epochs: one estimate over every epoch")
check("share its memo" in p.stderr, f"pooling says what its SE accounts for: {p.stderr.strip()}")
series = {e["epoch"]: e for e in j["epochs"]}
for i, item in enumerate(pooled["items"]):
    naive = math.sqrt(sum(series[r]["items"][i]["standard_error"] ** 2 for r in range(ROUNDS))) / ROUNDS
    check(item["standard_error"] > 1.1 * naive,
          f"item {i}: the pooled SE ({item['standard_error']:.5f}) exceeds independent epochs' ({naive:.5f})")
p = run("aggregate", path("r.tldp"), "--pool-epochs", "--by-epoch", expect=2)
check("opposite" in p.stderr, "--pool-epochs with --by-epoch refused")

# A mechanism without a covariance model (1BitMean) refuses to pool, and aggregates per epoch.
with open(path("counters.txt"), "w") as f:
    f.write("\n".join(str(rng.randint(0, 100)) for _ in range(500)) + "\n")
run("simulate", "-m", "1bitmean", "-e", "2", "--epsilon-one", "1", "--lo", 0, "--hi", 100, "-i", path("counters.txt"),
    "-o", path("mean.tldp"), "--rounds", 2, "--seed", 2)
p = run("aggregate", path("mean.tldp"), "--pool-epochs", expect=2)
check("cannot be pooled" in p.stderr, f"1bitmean refuses to pool: {p.stderr.strip()}")
check(run("aggregate", path("mean.tldp")).stdout.startswith("epoch,"), "1bitmean: a time series by default")

# A one-shot mechanism's epochs are independent: pooled as before, with a note.
run("simulate", "-m", "oue", "-e", "1", "-d", D, "-i", path("values.txt"), "-o", path("oue.tldp"), "--rounds", 2,
    "--seed", 3)
p = run("aggregate", path("oue.tldp"))
check(p.stdout.startswith("kind,") and "--by-epoch" in p.stderr, f"oue over epochs: pooled, noted: {p.stderr.strip()}")
check(run("aggregate", path("oue.tldp"), "--by-epoch").stdout.startswith("epoch,"), "oue --by-epoch")

# --- states: per epoch, merged into the series ------------------------------------------------
for r in range(ROUNDS):
    run("aggregate", path("r.tldp"), "--epoch", r, "--save-state", path(f"s{r}.agg"))
p = run("aggregate", "--merge-state", path("s0.agg"), "--merge-state", path("s1.agg"), "--merge-state",
        path("s2.agg"), "--truth-rounds", path("r.tldp.rounds.csv"))
whole = run("aggregate", path("r.tldp"), "--truth-rounds", path("r.tldp.rounds.csv")).stdout
check(p.stdout == whole, "states of three epochs merge into the same time series as the file")
run("aggregate", path("r.tldp"), "--save-state", path("series.agg"))
p = run("aggregate", "--merge-state", path("series.agg"), "--merge-state", path("s1.agg"), expect=2)
check("same reports" in p.stderr, f"a state of a file already counted by another state is refused: {p.stderr.strip()}")
p = run("aggregate", path("r.tldp"), "--merge-state", path("s2.agg"), expect=2)
check("same reports" in p.stderr, f"a file and a state of one of its epochs: {p.stderr.strip()}")
p = run("aggregate", "--merge-state", path("s1.agg"), "--merge-state", path("s1.agg"), expect=2)
check("same reports" in p.stderr, f"one epoch's state twice: {p.stderr.strip()}")

# --- the same file twice, a copy, a cut, a changed record, an old file ------------------------
p = run("aggregate", path("r.tldp"), path("r.tldp"), expect=2)
check("counts the same reports as" in p.stderr and "twice" in p.stderr, f"the same file twice: {p.stderr.strip()}")
shutil.copy(path("r.tldp"), path("copy.tldp"))
p = run("aggregate", path("r.tldp"), path("copy.tldp"), expect=2)
check("counts the same reports as" in p.stderr, f"a copy of it: {p.stderr.strip()}")
p = run("aggregate", path("copy.tldp"), "--merge-state", path("series.agg"), expect=2)
check("counts the same reports as" in p.stderr, f"a file a state counted: {p.stderr.strip()}")

data = open(path("r.tldp"), "rb").read()
# Cut at record boundaries: walk the records to find them.
header = {b"TLDPREP4": 160}[data[:8]]
offsets, at = [], header + 10
while True:
    length = data[at] | data[at + 1] << 8
    if length == 0:
        break
    offsets.append(at)
    at += 2 + length
check(data[at + 2:at + 10] == b"TLDPEND1" and at + 26 == len(data), "the trailer ends the file")
for name, content in [("cut.tldp", data[:offsets[-1]]),  # the last record and the trailer gone
                      ("cut-mid.tldp", data[:offsets[len(offsets) // 2]])]:
    with open(path(name), "wb") as f:
        f.write(content)
    p = run("aggregate", path(name), expect=2)
    check("cut short" in p.stderr and "trailer" in p.stderr, f"{name}: a cut at a record boundary: {p.stderr.strip()}")
changed = bytearray(data)
changed[offsets[5] + 20] ^= 0x01  # a payload bit of record 5: still a valid report
with open(path("changed.tldp"), "wb") as f:
    f.write(changed)
p = run("aggregate", path("changed.tldp"), expect=2)
check("records lost, added or changed" in p.stderr, f"a changed record: {p.stderr.strip()}")
with open(path("extra.tldp"), "wb") as f:
    f.write(data + b"\x00")
p = run("aggregate", path("extra.tldp"), expect=2)
check("after the trailer" in p.stderr, f"bytes after the trailer: {p.stderr.strip()}")
with open(path("dropped.tldp"), "wb") as f:  # one record removed, the trailer kept
    f.write(data[:offsets[3]] + data[offsets[4]:])
p = run("aggregate", path("dropped.tldp"), expect=2)
check("records lost" in p.stderr, f"a record removed: {p.stderr.strip()}")
with open(path("old.tldp"), "wb") as f:  # as written before trailers: no promise, no trailer
    f.write(data[:header] + data[header + 10:at])
p = run("aggregate", path("old.tldp"))
check("has no trailer" in p.stderr and p.stdout == run("aggregate", path("r.tldp")).stdout,
      f"an old file is read, with a warning: {p.stderr.strip()}")
check("absent" in run("inspect", path("old.tldp"), "--summary").stdout, "inspect says the trailer is absent")


# --- coverage over 200 fleets ----------------------------------------------------------------
# Each fleet: DEVICES devices of one fixed population, three rounds, values unchanged (where the
# pooled SE is exact) and, for the time series, changing with probability 0.2. Every item of
# every epoch (or the pooled estimate) gives one 95 % interval.
FLEETS = int(sys.argv[2]) if len(sys.argv) > 2 else 200  # 0 (sanitizer builds): no coverage run
covered = {"by epoch": [0, 0], "pooled": [0, 0], "pooled, epochs as independent": [0, 0],
           "pooled, values changing": [0, 0]}


def tally(mode, f, low, high):
    covered[mode][0] += low <= f <= high
    covered[mode][1] += 1


for fleet in range(FLEETS):
    for change in (0.0, 0.2):
        out = path(f"fleet-{change}.tldp")
        run("simulate", *MECH, "-i", path("values.txt"), "-o", out, "--rounds", ROUNDS, "--change-prob", change,
            "--seed", 100 + fleet)
        truth = rounds_truth(out + ".rounds.csv")
        pooled_truth = [sum(truth[r][i] for r in range(ROUNDS)) / ROUNDS for i in range(D)]
        if change == 0.0:
            j = json.loads(run("aggregate", out, "--pool-epochs", "-f", "json").stdout)
            s = json.loads(run("aggregate", out, "-f", "json").stdout)
            for i, item in enumerate(j["items"]):
                tally("pooled", pooled_truth[i], item["ci_low"], item["ci_high"])
                naive = math.sqrt(sum(e["items"][i]["standard_error"] ** 2 for e in s["epochs"])) / ROUNDS
                u = item["unbiased_estimate"]
                tally("pooled, epochs as independent", pooled_truth[i], u - 1.959964 * naive, u + 1.959964 * naive)
        else:
            s = json.loads(run("aggregate", out, "-f", "json").stdout)
            for e in s["epochs"]:
                for i, item in enumerate(e["items"]):
                    tally("by epoch", truth[e["epoch"]][i], item["ci_low"], item["ci_high"])
            j = json.loads(run("aggregate", out, "--pool-epochs", "-f", "json").stdout)
            for i, item in enumerate(j["items"]):
                tally("pooled, values changing", pooled_truth[i], item["ci_low"], item["ci_high"])

if FLEETS == 0:
    print("coverage not measured here (sanitizer build): the plain host build's test_cli_epochs measures it")
else:
    check(FLEETS >= 200, f"coverage is measured over at least 200 fleets (given {FLEETS})")
    for mode, (hit, total) in covered.items():
        print(f"coverage {mode}: {hit}/{total} = {hit / total:.4f}")
    for mode in ("by epoch", "pooled"):
        hit, total = covered[mode]
        check(0.93 <= hit / total <= 0.97, f"{mode}: coverage {hit / total:.4f} within 0.93–0.97")
    hit, total = covered["pooled, epochs as independent"]
    check(hit / total < 0.93, f"the check fails on the independent-epochs SE: {hit / total:.4f}")
    hit, total = covered["pooled, values changing"]
    check(hit / total >= 0.93, f"pooled with changing values: an upper bound, coverage {hit / total:.4f} ≥ 0.93")

finish()
