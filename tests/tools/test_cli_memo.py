# SPDX-License-Identifier: Apache-2.0
"""The `tinyldp` command with the memoized mechanisms: plan's ε₁, ε∞ and budget over rounds
(LOLOHA's capped at g memos); simulate of a fleet over rounds (epoch = round, truth per round, a
fleet key that keeps the devices' memos across runs); aggregate --epoch, unbiased per round within
5 SE (frequencies for l-osue, l-grr, loloha; the mean for 1bitmean); inspect's fields; wrap of a
raw capture of serial frames back into the same reports; and the refusals with their reasons."""
import csv
import io
import json
import os
import random
import struct
import tempfile
import zlib
from cli_harness import check, finish, run, report_file, split_report_file

work = tempfile.mkdtemp(prefix="tinyldp-memo-")


def path(name):
    return os.path.join(work, name)


MECH = ["-m", "l-osue", "-e", "2", "--epsilon-one", "1", "-d", "12"]
rng = random.Random(3)
values = [min(11, int(rng.expovariate(0.35))) for _ in range(6000)]
with open(path("values.txt"), "w") as f:
    f.write("\n".join(map(str, values)) + "\n")

# plan: ε₁ is the realized epsilon, ε∞ the memo's, and the budget over rounds.
p = run("plan", *MECH, "--rounds", 10, "--change-prob", 0.5, "--json")
j = json.loads(p.stdout)
check(abs(j["epsilon_one"] - 1) < 1e-5 and abs(j["epsilon_infinity"] - 2) < 1e-5, f"plan's epsilons: {j}")
check(abs(j["expected_memos"] - 5.5) < 1e-12 and abs(j["budget_memoized"] - 5.5 * j["epsilon_infinity"]) < 1e-9,
      "plan's budget: epsilon infinity x expected distinct values")
p = run("plan", "-m", "oue", "-e", "1", "-d", 8, "--rounds", 3, expect=2)
check("for the memoized mechanisms" in p.stderr, f"--rounds refused for one-shot mechanisms: {p.stderr.strip()}")
p = run("plan", "-m", "l-osue", "-e", "1", "--epsilon-one", "2", "-d", 8, expect=2)
check("must be below epsilon" in p.stderr, f"epsilon-one above epsilon refused: {p.stderr.strip()}")
# A Bloom chain meets ε∞ and ε₁ as asked (each of the h bits at ε/h), not h times them (ε∞ was 8).
p = run("plan", "-m", "l-osue", "-e", "2", "--epsilon-one", "1", "--bloom-bits", 64, "--hashes", 4, "--json")
j = json.loads(p.stdout)
check(2 - 1e-5 < j["epsilon_infinity"] <= 2 and 1 - 1e-5 < j["epsilon_one"] <= 1, f"bloom chain's epsilons: {j}")
# ε below 2^-16 is refused with its own reason.
p = run("plan", "-m", "oue", "-e", "0.00001", "-d", 8, expect=2)
check("epsilon below the smallest supported" in p.stderr, f"tiny epsilon refused: {p.stderr.strip()}")
p = run("plan", "-m", "rappor", "--f", "0.5", "--p", "0.5", "--q", "0.75", "-d", 8, "--json")
check(abs(json.loads(p.stdout)["epsilon_infinity"] - 2 * 1.0986122886681098) < 1e-6,
      "rappor f = 1/2: epsilon infinity = 2 ln 3")
p = run("plan", "-m", "rappor", "--f", "0.5", "--p", "0.8", "--q", "0.75", "-d", 8, expect=2)
check("p must be below q" in p.stderr, f"rappor p >= q refused: {p.stderr.strip()}")

# LOLOHA's budget is at most g·ε∞ however many values change (ε∞ = 5, ε₁ = 2: g = 8, the
# paper's ≈ 39 over 260 rounds); L-GRR's grows with the distinct values.
p = run("plan", "-m", "loloha", "-e", 5, "--epsilon-one", 2, "-d", 74, "--rounds", 260, "--change-prob", 0.5, "--json")
j = json.loads(p.stdout)
check(j["most_memos"] == 8 and j["memos_of"] == "hashed value", f"loloha: g = 8 memos at most: {j}")
check(abs(j["budget_memoized"] - 8 * j["epsilon_infinity"]) < 1e-9 and j["expected_memos"] == 130.5,
      "loloha's budget: epsilon infinity x min(g, expected distinct values)")
text = run("plan", "-m", "loloha", "-e", 5, "--epsilon-one", 2, "-d", 74, "--rounds", 260, "--change-prob", 0.5).stdout
check("a device holds at most 8 memos, one per hashed value" in text, f"plan says why loloha's budget stops: {text}")
j = json.loads(run("plan", "-m", "biloloha", "-e", 5, "--epsilon-one", 2, "-d", 74, "--rounds", 260,
                   "--change-prob", 0.5, "--json").stdout)
check(j["most_memos"] == 2 and abs(j["budget_memoized"] - 2 * j["epsilon_infinity"]) < 1e-9, "biloloha: 2 epsilon infinity")
j = json.loads(run("plan", "-m", "l-grr", "-e", 5, "--epsilon-one", 2, "-d", 74, "--rounds", 260,
                   "--change-prob", 0.5, "--json").stdout)
check(abs(j["budget_memoized"] - 74 * j["epsilon_infinity"]) < 1e-9, "l-grr: min(k, 130.5) = 74 memos")
j = json.loads(run("plan", "-m", "1bitmean", "-e", 2, "--epsilon-one", 1, "--lo", 0, "--hi", 100, "--grid-step", 25,
                   "--rounds", 10, "--change-prob", 0.2, "--json").stdout)
check(j["grid_step"] == 25 and j["most_memos"] == 5 and abs(j["budget_memoized"] - 2.8 * j["epsilon_infinity"]) < 1e-9,
      f"1bitmean: grid points 0, 25, …, 100 and its budget: {j}")
for args, needle in [
    (("-m", "1bitmean", "-e", 2, "--epsilon-one", 1, "--lo", 0, "--hi", 100, "--grid-step", 7), "grid-step must divide hi − lo = 100 (got 7)"),
    (("-m", "krr", "-e", 1, "-d", 4, "--grid-step", 2), "grid-step is a parameter of 1bitmean and dbitflip, not krr"),
    (("-m", "l-grr", "-e", 2, "-d", 4), "l-grr needs epsilon-one"),
    (("-m", "1bitmean", "-e", 2, "--epsilon-one", 1, "--lo", 0, "--hi", 100, "-d", 3), "domain is not a parameter of 1bitmean"),
]:
    p = run("plan", *args, expect=2)
    check(needle in p.stderr, f"plan {args}: {p.stderr.strip()}")

# plan --compare: every memoized protocol by ε∞ and ε₁, side by side.
p = run("plan", "-m", "l-osue", "-e", 5, "--epsilon-one", 2.5, "-d", 74, "--n", 45222, "--rounds", 260,
        "--change-prob", 0.1, "--compare", "--json")
rows = {r["mechanism"]: r for r in json.loads(p.stdout)}
check({"l-sue", "l-osue", "l-oue", "l-soue", "l-grr", "loloha", "biloloha"} <= set(rows), f"compare's rows: {sorted(rows)}")
check(all(abs(r["epsilon_one"] - 2.5) < 1e-5 and abs(r["epsilon_infinity"] - 5) < 1e-5 for r in rows.values()),
      "every protocol at the same ε₁ and ε∞")
check(rows["l-osue"]["frequency_standard_error"] < rows["l-sue"]["frequency_standard_error"],
      "L-OSUE beats L-SUE per round (Arcolezi et al.)")
check(rows["loloha"]["budget_memoized"] <= rows["loloha"]["most_memos"] * 5 + 1e-6
      and rows["biloloha"]["budget_memoized"] <= 2 * 5 + 1e-6 < rows["l-osue"]["budget_memoized"],
      "LOLOHA's budget is capped at g ε∞")

# simulate over rounds with a fleet key; aggregate each round.
p = run("simulate", *MECH, "-i", path("values.txt"), "-o", path("r.tldp"), "--rounds", 3, "--change-prob", 0.3,
        "--fleet-key", path("fleet.key"), "--seed", 11)
check("3 rounds of 6000 devices" in p.stderr and "at most" in p.stderr, f"simulate's summary: {p.stderr.strip()}")
check(os.path.getsize(path("fleet.key")) == 32, "the fleet key file is created (32 bytes)")
truth = {}
with open(path("r.tldp.rounds.csv")) as f:
    for row in csv.DictReader(f):
        truth.setdefault(int(row["round"]), {})[int(row["value"])] = int(row["true_count"])
check(sorted(truth) == [0, 1, 2] and all(sum(t.values()) == 6000 for t in truth.values()),
      "the truth of every round is written")
for r in range(3):
    p = run("aggregate", path("r.tldp"), "--epoch", r, "-f", "json")
    j = json.loads(p.stdout)
    check(j["reports"] == 6000 and "12000 of other epochs" in p.stderr, f"round {r}: only its reports ({p.stderr.strip()})")
    for item in j["items"]:
        f_true = truth[r].get(int(item["item"]), 0) / 6000
        check(abs(item["unbiased_estimate"] - f_true) <= 5 * item["standard_error"],
              f"round {r} item {item['item']}: {item['unbiased_estimate']} vs {f_true} (SE {item['standard_error']})")

# The GRR chains over rounds: each round's frequencies within 5 SE of its truth.
for mech in ("l-grr", "loloha", "biloloha"):
    args = ["-m", mech, "-e", "2", "--epsilon-one", "1", "-d", "12"]
    run("simulate", *args, "-i", path("values.txt"), "-o", path(f"{mech}.tldp"), "--rounds", 2, "--change-prob", 0.3,
        "--seed", 5)
    truth = {}
    with open(path(f"{mech}.tldp.rounds.csv")) as f:
        for row in csv.DictReader(f):
            truth.setdefault(int(row["round"]), {})[int(row["value"])] = int(row["true_count"])
    for r in range(2):
        j = json.loads(run("aggregate", path(f"{mech}.tldp"), "--epoch", r, "-f", "json").stdout)
        for item in j["items"]:
            f_true = truth[r].get(int(item["item"]), 0) / 6000
            check(abs(item["unbiased_estimate"] - f_true) <= 5 * item["standard_error"],
                  f"{mech} round {r} item {item['item']}: {item['unbiased_estimate']} vs {f_true}")
first = json.loads(run("inspect", path("loloha.tldp"), "--json").stdout.splitlines()[0])
check(first["mechanism"] == "loloha" and 0 <= first["value"] < 8 and "seed" in first, f"inspect loloha: {first}")

# 1bitmean over rounds: each round's mean within 5 SE of its true mean; inspect shows the bit
# and the report's own unbiased estimate.
with open(path("counters.txt"), "w") as f:
    f.write("\n".join(str(10 + (i * i) % 81) for i in range(6000)) + "\n")
MEAN = ["-m", "1bitmean", "-e", "2", "--epsilon-one", "1", "--lo", "10", "--hi", "90", "--grid-step", "20"]
p = run("simulate", *MEAN, "-i", path("counters.txt"), "-o", path("mean.tldp"), "--rounds", 3, "--change-prob", 0.3,
        "--seed", 6)
check("a memo per grid point, at most 5" in p.stderr, f"1bitmean's memos: {p.stderr.strip()}")
sums = {}
with open(path("mean.tldp.rounds.csv")) as f:
    for row in csv.DictReader(f):
        sums[int(row["round"])] = sums.get(int(row["round"]), 0) + int(row["value"]) * int(row["true_count"])
for r in range(3):
    j = json.loads(run("aggregate", path("mean.tldp"), "--epoch", r, "-f", "json").stdout)
    m = j["mean"]
    check(abs(m["estimate"] - sums[r] / 6000) <= 5 * m["standard_error"],
          f"1bitmean round {r}: mean {m['estimate']} vs {sums[r] / 6000} (SE {m['standard_error']})")
lines = run("inspect", path("mean.tldp"), "--json").stdout.splitlines()
seen = {json.loads(l)["bit"]: json.loads(l)["estimate"] for l in lines[:200]}
check(sorted(seen) == [0, 1] and seen[0] < 10 and seen[1] > 90,
      f"inspect 1bitmean: the bit and its estimate beyond the range ends: {seen}")

# The same fleet key: a device's memo is the same in another run (a repeated value re-uses it).
MEMO_ONLY = ["-m", "rappor", "--f", "0.5", "--p", "0", "--q", "1", "-d", "12"]  # the report is the memo
run("simulate", *MEMO_ONLY, "-i", path("values.txt"), "-o", path("m1.tldp"), "--fleet-key", path("fleet.key"), "--seed", 1)
run("simulate", *MEMO_ONLY, "-i", path("values.txt"), "-o", path("m2.tldp"), "--fleet-key", path("fleet.key"), "--seed", 2)
run("simulate", *MEMO_ONLY, "-i", path("values.txt"), "-o", path("m3.tldp"), "--fleet-key", path("other.key"), "--seed", 1)
m1, m2, m3 = (open(path(n), "rb").read() for n in ("m1.tldp", "m2.tldp", "m3.tldp"))
check(m1 == m2, "with one fleet key, two runs give every device the same memo (whatever the noise seed)")
check(m1 != m3, "another fleet key: other memos")

# wrap: the reports of r.tldp as serial frames in a noisy capture, back into a report file.
data = open(path("r.tldp"), "rb").read()
check(data[:8] == b"TLDPREP4", "memoized report files have the version 4 header")
header, reports = split_report_file(data)
check(report_file(header, reports) == data, "the file is its header, the promise, the records and their trailer")
capture = bytearray(b"\x00\xa5boot\n")
for i, r in enumerate(reports[:500]):
    frame = b"\xa5\x5a" + struct.pack("<H", len(r)) + r
    frame += struct.pack("<I", zlib.crc32(frame[2:]))
    if i == 7:
        frame = frame[:-1] + bytes([frame[-1] ^ 1])  # one frame broken on the line
    capture += frame + (b"\r\n" if i % 50 == 0 else b"")
open(path("uart.bin"), "wb").write(bytes(capture))
p = run("wrap", path("uart.bin"), *MECH, "-o", path("w.tldp"), expect=3)
check("499 frame(s) found" in p.stderr and "1 broken frame" in p.stderr, f"wrap's counts: {p.stderr.strip()}")
wrapped = open(path("w.tldp"), "rb").read()
expected = report_file(header, [r for i, r in enumerate(reports[:500]) if i != 7])
check(wrapped == expected, "wrap writes exactly the good frames' reports, in order, under the same header")
p = run("wrap", path("uart.bin"), "-m", "oue", "-e", "1", "-d", "12", "-o", path("x.tldp"), expect=2)
check("no report of oue" in p.stderr and "refused 499" in p.stderr, f"frames of another mechanism: {p.stderr.strip()}")

# Bloom filters: strings in, rows named by --candidates; --labels refused with what to use
# instead; --postprocess norm-sub caps the candidates' sum at 1, the fit's values beside it.
heavy = {"alpha": 0.5, "beta": 0.3, "gamma": 0.2}  # every string a candidate: Σ truth = 1
strings = rng.choices(list(heavy), weights=list(heavy.values()), k=6000)
with open(path("strings.txt"), "w") as f:
    f.write("\n".join(strings) + "\n")
with open(path("candidates.txt"), "w") as f:
    f.write("\n".join(list(heavy) + [f"absent-{i}" for i in range(30)]) + "\n")
BLOOM = ["-m", "rappor", "--f", "0.5", "--p", "0.5", "--q", "0.75", "--bloom-bits", "32", "--hashes", "2",
         "--cohorts", "8"]
run("simulate", *BLOOM, "-i", path("strings.txt"), "-o", path("bloom.tldp"), "--seed", 1)
p = run("simulate", *BLOOM, "-i", path("strings.txt"), "-o", path("x.tldp"), "--labels", "--seed", 1, expect=2)
check("--candidates" in p.stderr and "Bloom filter" in p.stderr, f"simulate --labels of a Bloom filter: {p.stderr.strip()}")
fit = json.loads(run("aggregate", path("bloom.tldp"), "--candidates", path("candidates.txt"), "-f", "json").stdout)
check([i["item"] for i in fit["items"]][:3] == list(heavy), "rows are named by the candidates, in order")
check(fit["postprocess"] == "nnls", f"postprocess {fit['postprocess']}")
fit_sum = sum(i["estimate"] for i in fit["items"])
check(abs(fit["unexplained_mass"] - (1 - fit_sum)) < 1e-9, "unexplained mass is 1 − Σ of the fit")
check(fit_sum > 1, f"this case's 30 absent candidates soak up noise: the fit sums to {fit_sum} (more than 1)")
p = run("aggregate", path("bloom.tldp"), "--candidates", path("candidates.txt"), "-f", "json", "-p", "norm-sub")
capped = json.loads(p.stdout)
capped_sum = sum(i["estimate"] for i in capped["items"])
check(capped["postprocess"] == "norm-sub" and abs(capped_sum - 1) < 1e-9, f"norm-sub sums to {capped_sum}")
check(abs(capped["unexplained_mass_postprocessed"] - (1 - capped_sum)) < 1e-9 and "after norm-sub" in p.stderr,
      f"the unexplained mass after norm-sub: {p.stderr.strip()}")
for a, b in zip(fit["items"], capped["items"]):
    check(b["unbiased_estimate"] == a["estimate"] and b["standard_error"] == a["standard_error"],
          f"{a['item']}: the fit's estimate and SE stay beside norm-sub's")
    check(0 <= b["estimate"] <= a["estimate"] and b["ci_low"] <= b["estimate"] <= b["ci_high"],
          f"{a['item']}: norm-sub only lowers the fit, inside its interval: {b}")
for post, says in [("em", "least-squares"), ("clip", "sum to 1"), ("simplex", "sum to 1")]:
    p = run("aggregate", path("bloom.tldp"), "--candidates", path("candidates.txt"), "-p", post, expect=2)
    check(says in p.stderr and "norm-sub" in p.stderr, f"--postprocess {post} refused with its reason: {p.stderr.strip()}")
with open(path("bloom.labels"), "w") as f:
    f.write("alpha\nbeta\n")
p = run("aggregate", path("bloom.tldp"), "--labels", path("bloom.labels"), expect=2)
check("--candidates" in p.stderr, f"aggregate --labels of Bloom reports says what to use: {p.stderr.strip()}")
# Without candidates: the reports are described by what configures them (f, p, q give rappor's
# epsilons), not by an epsilon field it does not use.
p = run("aggregate", path("bloom.tldp"), expect=2)
check("rappor, epsilon-one 1.07" in p.stderr and "epsilon-infinity 4.39" in p.stderr and "epsilon 0" not in p.stderr,
      f"Bloom reports described by their epsilons: {p.stderr.strip()}")
finish()
