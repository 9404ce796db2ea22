#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of `tinyldp gate` (docs/gate.md): a fleet's authenticated reports admitted
once each and released as a shuffled anonymous batch whose counts are the fleet's; the audit's
attack (3 000 copies of one device's report, 3 000 forged ones) refused and counted; unknown,
revoked and duplicate devices, unauthenticated reports, another fleet's secret, a zero secret;
serial captures through `wrap`; an MQTT broker (mosquitto, started here on localhost); and
SIGKILL at every crash point of a scripted run, after which a rerun releases every admitted
report exactly once.
usage: test_cli_gate.py <path to tinyldp>"""
import json
import os
import shutil
import signal
import socket
import sqlite3
import struct
import subprocess
import tempfile
import time
import zlib
from collections import Counter

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from cli_harness import TINYLDP, check, finish, run, split_report_file, report_file

OUE = ["-m", "oue", "-e", "1", "-d", "20"]
tmp = tempfile.mkdtemp(prefix="tinyldp-gate-")
secret = os.path.join(tmp, "fleet.key")
with open(secret, "wb") as f:
    f.write(os.urandom(32))


def path(name):
    return os.path.join(tmp, name)


def values(name, n, start=0):
    with open(path(name), "w") as f:
        f.write("".join(f"{(i * 7) % 20}\n" for i in range(start, start + n)))
    return path(name)


def simulate(name, n, epoch, *extra):
    run("simulate", "-i", values(name + ".txt", n), *OUE, "--device-ids", "--epoch", epoch, "--seed", 5,
        "-o", path(name), *extra)
    return path(name)


def gate(db, *args, expect=0, out="out"):
    p = run("gate", "--db", path(db), "--fleet-secret", secret, "--out-dir", path(out), "--attribute", "app", *OUE,
            "--json", *args, expect=expect)
    return json.loads(p.stdout) if expect == 0 else p


def counts(file):
    """The support counts `aggregate` reads from a report file."""
    out = run("aggregate", file, "-f", "json").stdout
    return [round(row["unbiased_estimate"], 9) for row in json.loads(out)["items"]]


# A fleet of 3 000 devices, one epoch: every report admitted, one batch of all of them, whose
# estimates are those of the same reports without the tag (the seed fixes the noise).
fleet = simulate("fleet.tldp", 3000, 3, "--fleet-secret", secret)
plain = simulate("plain.tldp", 3000, 3)
g = gate("g.db", "--register", "0-2999", "--threshold", "1000", fleet)
check(g["this_run"]["admitted"] == 3000, f"admitted {g['this_run']}")
check(len(g["released"]) == 1 and g["released"][0]["reports"] == 3000, f"released {g['released']}")
batch = g["released"][0]["path"]
central = g["released"][0]["shuffled_batch"]
check(central["n"] == 3000 and central["numerical_upper"] < 1, f"the batch's central epsilon: {central}")
header, reports = split_report_file(open(batch, "rb").read())
check(all(r[0] == 1 and r[6] & 1 == 0 for r in reports), "released reports are version 1 without device ids")
_, sealed = split_report_file(open(fleet, "rb").read())
check([len(r) for r in sealed] == [len(r) + 4 + 20 for r in reports], "sealed = anonymous + device id + trailer")
check(counts(batch) == counts(plain), "the batch's estimates are the fleet's")
_, plain_reports = split_report_file(open(plain, "rb").read())
stripped = [r[:6] + bytes([r[6] & ~1]) + r[11:] for r in plain_reports]
check(sorted(reports) == sorted(stripped), "the batch holds exactly the fleet's reports, stripped")
check(reports != stripped, "the batch is shuffled")

# The same file again: taken in full already. aggregate refuses the authenticated file itself.
g = gate("g.db", fleet)
check(g["this_run"]["admitted"] == 0 and g["released"] == [], "the same file twice admits nothing")
p = run("aggregate", fleet, expect=2)
check("tinyldp gate" in p.stderr, f"aggregate of authenticated reports: {p.stderr}")

# The audit's attack: 3 000 copies of device 0's report and 3 000 forgeries (a payload bit
# flipped, the tag kept; another device id) — all refused, the next batch's estimate unmoved.
copies = [sealed[0]] * 3000
forged = []
for i, r in enumerate(sealed):
    r = bytearray(r)
    if i % 2:
        r[15] ^= 1  # payload
    else:
        r[7] ^= 0x40  # device id (registered or not: the key differs)
    forged.append(bytes(r))
open(path("attack.tldp"), "wb").write(report_file(open(fleet, "rb").read()[:40], copies + forged))
g = gate("g.db", path("attack.tldp"))
t = g["this_run"]
check(t["replayed"] == 3000, f"copies: {t}")
check(t["forged"] + t["unknown_device"] == 3000 and t["forged"] >= 1500, f"forgeries: {t}")
check(t["admitted"] == 0 and g["released"] == [], f"attack admitted: {t}")

# Duplicates (a second report of the epoch, a new counter), unknown and revoked devices,
# unauthenticated reports (refused; admitted and counted apart when allowed).
second = simulate("second.tldp", 3000, 3, "--fleet-secret", secret, "--counter-slot", "1")
g = gate("g.db", second)
check(g["this_run"]["duplicate"] == 3000, f"duplicates: {g['this_run']}")
later = simulate("later.tldp", 3100, 4, "--fleet-secret", secret)
g = gate("g.db", "--revoke", "7", later)
t = g["this_run"]
check(t["admitted"] == 2999 and t["revoked_device"] == 1 and t["unknown_device"] == 100, f"epoch 4: {t}")
check(len(g["released"]) == 1 and g["released"][0]["reports"] == 2999, f"epoch 4 batch: {g['released']}")
unauth = simulate("unauth.tldp", 500, 5)
g = gate("g.db", unauth)
check(g["this_run"]["unauthenticated"] == 500, f"unauthenticated: {g['this_run']}")
g = gate("u.db", "--register", "0-499", "--allow-unauthenticated", "--threshold", "400", unauth)
check(g["this_run"]["admitted"] == 500 and g["total"]["admitted_unauthenticated"] == 500, f"allowed: {g}")
# Below the threshold nothing is released (999 devices, 7 revoked).
few = simulate("few.tldp", 999, 6, "--fleet-secret", secret)
g = gate("g.db", few)
check(g["released"] == [] and g["pending"] == 998, f"below the threshold: {g['released']}, pending {g['pending']}")

# Refusals: another fleet's secret on this database, an all-zero or short secret, a file of
# another configuration.
other = path("other.key")
open(other, "wb").write(os.urandom(32))
p = run("gate", "--db", path("g.db"), "--fleet-secret", other, "--out-dir", path("out"), "--attribute", "app", *OUE,
        fleet, expect=2)
check("another fleet" in p.stderr, f"other secret: {p.stderr}")
for content, why in [(bytes(32), "all-zero"), (b"short", "32 bytes")]:
    open(other, "wb").write(content)
    p = run("gate", "--db", path("z.db"), "--fleet-secret", other, "--out-dir", path("out"), "--attribute", "app", *OUE,
            expect=2)
    check(why in p.stderr, f"secret {content[:4]}: {p.stderr}")
p = run("gate", "--db", path("g.db"), "--fleet-secret", secret, "--out-dir", path("out"), "--attribute", "app",
        "-m", "oue", "-e", "2", "-d", "20", fleet, expect=2)
check("configured otherwise" in p.stderr, f"another configuration: {p.stderr}")
# The threshold is a floor the database keeps; an attribute's name cannot leave --out-dir; a
# broker address must be HOST:PORT.
p = gate("g.db", "--threshold", "10", fleet, expect=2)
check("at least 1000" in p.stderr and not os.path.exists(path("out/app-epoch3-batch99.reports")),
      f"a lower threshold: {p.stderr}")
for name in ["../escape", ".hidden", "a/b", ""]:
    p = run("gate", "--db", path("g.db"), "--fleet-secret", secret, "--out-dir", path("out"), "--attribute", name,
            *OUE, fleet, expect=2)
    check("attribute" in p.stderr and not os.path.exists(path("escape-epoch3-batch1.reports")),
          f"attribute name {name!r}: {p.stderr}")
for broker in ["localhost:abc", "localhost:0", ":1883", "localhost:99999"]:
    p = gate("g.db", "--mqtt", broker, "--topic", "t", expect=2)
    check("not HOST or HOST:PORT" in p.stderr, f"--mqtt {broker}: {p.stderr}")
    p = run("publish", fleet, "--mqtt", broker, "--topic", "t", expect=2)
    check("not HOST or HOST:PORT" in p.stderr, f"publish --mqtt {broker}: {p.stderr}")
p = run("simulate", "-i", path("few.tldp.txt"), *OUE, "--fleet-secret", secret, "-o", path("x.tldp"), expect=2)
check("--device-ids" in p.stderr, f"simulate without identity: {p.stderr}")

# Memo generations, re-keys and the order of the verdicts, on reports sealed here (Python's
# cryptography, a third implementation of the sealing: checked against simulate's first).
fleet_bytes = open(secret, "rb").read()


def device_key(device):
    nonce = bytes(4) + b"TLDK" + struct.pack("<I", device) + bytes(4)  # block counter 0, nonce
    return Cipher(algorithms.ChaCha20(fleet_bytes, nonce), mode=None).encryptor().update(bytes(32))


def seal(v1, counter):
    signed = bytes([2]) + v1[1:] + struct.pack("<I", counter)
    device = struct.unpack("<I", v1[7:11])[0]
    return signed + ChaCha20Poly1305(device_key(device)).encrypt(b"TLDP" + struct.pack("<Q", counter), b"", signed)


def sealed_report(device, epoch, generation, counter):
    """plain's first report as device's, in epoch, with a memo generation field unless None."""
    r = bytearray(plain_reports[0])
    r[7:15] = struct.pack("<II", device, epoch)
    if generation is not None:
        r[6] |= 8  # the memo generation follows device id and epoch
        r[15:15] = struct.pack("<I", generation)
    return seal(bytes(r), counter)


check(all(seal(plain_reports[i], 3 * 16) == sealed[i] for i in range(50)), "Python seals as simulate does")
header40 = open(fleet, "rb").read()[:40]
generations = [sealed_report(0, 20, 5, 1),   # admitted
               sealed_report(0, 21, 6, 2),   # admitted, a re-key
               sealed_report(0, 22, 4, 3),   # generation_rollback
               sealed_report(0, 22, 6, 4),   # admitted (the rolled-back report left no trace)
               sealed_report(0, 21, 6, 5),   # duplicate
               sealed_report(0, 21, 5, 6),   # generation_rollback before duplicate
               sealed_report(0, 21, 6, 2),   # replayed (a copy), before duplicate
               sealed_report(1, 20, 0, 1),   # admitted: counters are per device
               sealed_report(1, 21, 0, 1),   # replayed: a used counter in another epoch
               sealed_report(2, 20, None, 9)]  # admitted without a generation field
open(path("gen1.tldp"), "wb").write(report_file(header40, generations))
g = gate("gen.db", "--register", "0-9", "--commit-every", "3", path("gen1.tldp"), out="gen-out")
t = g["this_run"]
check((t["admitted"], t["generation_rollback"], t["duplicate"], t["replayed"]) == (5, 2, 1, 2)
      and g["total"]["rekeys"] == 1 and g["pending"] == 5, f"generations: {t}, {g['total']}, pending {g['pending']}")
# A later run: the counters and generations committed by the first refuse and count alike.
open(path("gen2.tldp"), "wb").write(report_file(header40, [
    sealed_report(0, 23, 6, 2),   # replayed across runs
    sealed_report(0, 23, 5, 7),   # generation_rollback: generation 6 was committed
    sealed_report(0, 23, 7, 8),   # admitted, a re-key
    sealed_report(1, 20, 0, 3)]))  # duplicate of the first run's
g = gate("gen.db", path("gen2.tldp"), out="gen-out")
t = g["this_run"]
check((t["admitted"], t["generation_rollback"], t["duplicate"], t["replayed"]) == (1, 1, 1, 1)
      and g["total"]["rekeys"] == 2 and g["pending"] == 6, f"generations, second run: {t}, {g['total']}")

# A database of an older schema is refused as it is, with its version named.
for version, why in [(1, "schema version 1"), (99, "unknown schema version 99")]:
    shutil.copy(path("gen.db"), path("old.db"))
    with sqlite3.connect(path("old.db")) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (version,))
    db.close()
    p = run("gate", "--db", path("old.db"), "--fleet-secret", secret, "--out-dir", path("gen-out"), "--attribute",
            "app", *OUE, path("gen1.tldp"), expect=2)
    with sqlite3.connect(path("old.db")) as db:
        kept = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
        tallies = db.execute("SELECT SUM(count) FROM tallies WHERE tally < 100").fetchone()[0]  # the verdicts
    db.close()
    check(why in p.stderr and kept == version and tallies == 14, f"schema {version}: {p.stderr}, kept {kept}, {tallies}")

# Serial captures: framed authenticated reports, noise between them, one frame broken; wrap
# keeps the reports with their tags, and the gate admits them.
def frame(report):
    body = struct.pack("<H", len(report)) + report
    return b"\xa5\x5a" + body + struct.pack("<I", zlib.crc32(body))


cap_fleet = simulate("cap.tldp", 1200, 7, "--fleet-secret", secret)
_, cap_reports = split_report_file(open(cap_fleet, "rb").read())
capture = b"".join(b"\x00\x13" + frame(r) for r in cap_reports)
broken = bytearray(frame(cap_reports[0]))
broken[-1] ^= 1
open(path("uart.bin"), "wb").write(bytes(broken) + capture)
run("wrap", path("uart.bin"), *OUE, "-o", path("wrapped.tldp"), "--allow-rejected")
g = gate("g.db", "--threshold", "1000", path("wrapped.tldp"))
t = g["this_run"]
check(t["admitted"] == 1199 and t["revoked_device"] == 1 and len(g["released"]) == 1, f"from a capture: {t}")

# MQTT: a broker on a free localhost port; the fleet publishes its reports, the gate takes
# them from the topic.
if shutil.which("mosquitto") or os.path.exists("/usr/sbin/mosquitto"):
    broker = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    conf = path("mosquitto.conf")
    # A broker drops QoS-1 messages beyond 1 000 queued for a slower subscriber unless told not to
    # (docs/gate.md): max_queued_messages 0.
    open(conf, "w").write(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
                          "max_queued_messages 0\nmax_inflight_messages 1000\n")
    mq = subprocess.Popen([broker, "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        mq_fleet = simulate("mq.tldp", 2000, 8, "--fleet-secret", secret)  # device 7 is revoked
        gate_run = subprocess.Popen([TINYLDP, "gate", "--db", path("g.db"), "--fleet-secret", secret, "--out-dir",
                                     path("out"), "--attribute", "app", *OUE, "--json", "--threshold", "1999",
                                     "--mqtt", f"127.0.0.1:{port}", "--topic", "fleet/+/app", "--max-messages", "2000"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # Published only once the gate's subscription stands (then its persistent session keeps
        # whatever comes while it is busy).
        line = gate_run.stderr.readline()
        check("subscribed" in line, f"gate over MQTT: {line}")
        run("publish", mq_fleet, "--mqtt", f"127.0.0.1:{port}", "--topic", "fleet/d/app")
        out, err = gate_run.communicate(timeout=60)
        check(gate_run.returncode == 0, f"gate over MQTT: exit {gate_run.returncode} {err}")
        g = json.loads(out)
        check(g["mqtt_messages"] == 2000 and g["this_run"]["admitted"] == 1999, f"over MQTT: {g['this_run']}")
        check(len(g["released"]) == 1 and g["released"][0]["reports"] == 1999, f"MQTT batch: {g['released']}")
        # A device revoked by another process while a gate runs is refused from the gate's next
        # transaction on (the registry it caches is read again).
        before_epoch = simulate("rv1.tldp", 10, 9, "--fleet-secret", secret)
        after_epoch = simulate("rv2.tldp", 10, 12, "--fleet-secret", secret)
        gate_run = subprocess.Popen([TINYLDP, "gate", "--db", path("g.db"), "--fleet-secret", secret, "--out-dir",
                                     path("out"), "--attribute", "app", *OUE, "--json", "--mqtt", f"127.0.0.1:{port}",
                                     "--topic", "fleet/+/app", "--idle-exit", "5"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        check("subscribed" in gate_run.stderr.readline(), "gate over MQTT, revocation")
        run("publish", before_epoch, "--mqtt", f"127.0.0.1:{port}", "--topic", "fleet/d/app")
        for _ in range(200):  # until the running gate committed them
            with sqlite3.connect(path("g.db")) as db:
                committed = db.execute("SELECT COUNT(*) FROM admitted WHERE epoch = 9").fetchone()[0]
            db.close()
            if committed == 9:
                break
            time.sleep(0.02)
        check(committed == 9, f"epoch 9 over MQTT: {committed} committed")
        gate("g.db", "--revoke", "3")
        run("publish", after_epoch, "--mqtt", f"127.0.0.1:{port}", "--topic", "fleet/d/app")
        out, err = gate_run.communicate(timeout=60)
        t = json.loads(out)["this_run"]
        check(t["admitted"] == 17 and t["revoked_device"] == 3, f"revoked while running: {t} {err}")
    finally:
        mq.terminate()
        mq.wait(timeout=10)
else:
    check(False, "mosquitto is not installed (scripts/setup installs it)")

# SIGKILL at every crash point of a scripted run (two epochs, commits every 250 reports, a
# threshold of 1000): after each kill a clean rerun finishes; then the batches hold every
# admitted report exactly once, and they are the clean run's.
e1 = simulate("k1.tldp", 2500, 10, "--fleet-secret", secret)
e2 = simulate("k2.tldp", 1500, 11, "--fleet-secret", secret)


def scripted(db, out, crash_at=None):
    env = dict(os.environ)
    if crash_at is not None:
        env["TINYLDP_GATE_CRASH_AT"] = str(crash_at)
    return subprocess.run([TINYLDP, "gate", "--db", path(db), "--fleet-secret", secret, "--out-dir", path(out),
                           "--attribute", "app", *OUE, "--register", "0-2499", "--threshold", "1000",
                           "--commit-every", "250", e1, e2], env=env, capture_output=True, text=True)


def released(out):
    got = []
    for name in sorted(os.listdir(path(out))):
        if name.endswith(".reports"):
            got += split_report_file(open(os.path.join(path(out), name), "rb").read())[1]
    return sorted(got)


clean = scripted("clean.db", "clean")
check(clean.returncode == 0, f"clean scripted run: {clean.stderr}")
expected = released("clean")
check(len(expected) == 4000, f"clean run released {len(expected)}")
kills = 0
for crash_at in range(1, 200):
    for f in ["k.db", "k.db-wal", "k.db-shm"]:
        if os.path.exists(path(f)):
            os.remove(path(f))
    shutil.rmtree(path("k"), ignore_errors=True)
    first = scripted("k.db", "k", crash_at)
    if first.returncode == 0:
        break  # past the last crash point
    kills += 1
    check(first.returncode == -signal.SIGKILL, f"crash point {crash_at}: exit {first.returncode} {first.stderr}")
    again = scripted("k.db", "k")
    check(again.returncode == 0, f"rerun after crash point {crash_at}: {again.stderr}")
    got = released("k")
    # A rerun may cut batches elsewhere (what was pending reaches the threshold sooner), so the
    # released reports are the clean run's without repeats, and with the pending ones all of them.
    pending = json.loads(subprocess.run([TINYLDP, "gate", "--db", path("k.db"), "--fleet-secret", secret, "--out-dir",
                                         path("k"), "--attribute", "app", *OUE, "--json"],
                                        capture_output=True, text=True).stdout)["pending"]
    # (Anonymous reports of one epoch may be equal bytes: compared as multisets.)
    extra = Counter(got) - Counter(expected)
    check(not extra and len(got) + pending == len(expected),
          f"crash point {crash_at}: released {len(got)} ({sum(extra.values())} beyond the clean run's), "
          f"{pending} pending, expected {len(expected)} once each")
    leftovers = [n for n in os.listdir(path("k")) if n.endswith(".partial") and
                 os.path.exists(os.path.join(path("k"), n[:-len('.partial')]))]
    check(leftovers == [], f"crash point {crash_at}: a partial file beside its released batch")
check(kills >= 20, f"only {kills} crash points were reached")
print(f"SIGKILL at {kills} crash points: every admitted report released once")

shutil.rmtree(tmp)
finish()
