# SPDX-License-Identifier: Apache-2.0
"""The `tinyldp` command with the memoized mechanisms: plan's ε₁, ε∞ and budget over rounds;
simulate of a fleet over rounds (epoch = round, truth per round, a fleet key that keeps the
devices' memos across runs); aggregate --epoch, unbiased per round within 5 SE; wrap of a raw
capture of serial frames back into the same reports; and the refusals with their reasons."""
import csv
import io
import json
import os
import random
import struct
import tempfile
import zlib
from cli_harness import check, finish, run

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
p = run("plan", "-m", "rappor", "--f", "0.5", "--p", "0.5", "--q", "0.75", "-d", 8, "--json")
check(abs(json.loads(p.stdout)["epsilon_infinity"] - 2 * 1.0986122886681098) < 1e-6,
      "rappor f = 1/2: epsilon infinity = 2 ln 3")
p = run("plan", "-m", "rappor", "--f", "0.5", "--p", "0.8", "--q", "0.75", "-d", 8, expect=2)
check("p must be below q" in p.stderr, f"rappor p >= q refused: {p.stderr.strip()}")

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
        check(abs(item["unbiased_frequency"] - f_true) <= 5 * item["standard_error"],
              f"round {r} item {item['item']}: {item['unbiased_frequency']} vs {f_true} (SE {item['standard_error']})")

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
header_size = 160  # TLDPREP4
check(data[:8] == b"TLDPREP4", "memoized report files have the version 4 header")
reports, at = [], header_size
while at < len(data):
    (n,) = struct.unpack_from("<H", data, at)
    reports.append(data[at + 2:at + 2 + n])
    at += 2 + n
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
expected = data[:header_size] + b"".join(struct.pack("<H", len(r)) + r for i, r in enumerate(reports[:500]) if i != 7)
check(wrapped == expected, "wrap writes exactly the good frames' reports, in order, under the same header")
p = run("wrap", path("uart.bin"), "-m", "oue", "-e", "1", "-d", "12", "-o", path("x.tldp"), expect=2)
check("no report of oue" in p.stderr and "refused 499" in p.stderr, f"frames of another mechanism: {p.stderr.strip()}")
finish()
