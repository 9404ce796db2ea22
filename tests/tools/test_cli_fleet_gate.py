#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The demo's path on the host (scripts/demo runs it on an emulated Cortex-M0): the fleet's
device firmware (examples/fleet_device) provisioned with keys from `tinyldp keys`, its UART
captures wrapped and admitted by `tinyldp gate` — every report once; copies of the captured
traffic replayed, reports sealed with another secret forged, a device provisioned with another
device's key forged, and a device's reports after its flash was reset to a blank one (its counter
starting over) replayed —, and the released batches estimate what the devices reported.
usage: test_cli_fleet_gate.py <path to tinyldp> <path to fleet_device>"""
import glob
import json
import os
import subprocess
import sys
import tempfile

from cli_harness import check, finish, run

FLEET_DEVICE = os.path.abspath(sys.argv[2])
MECHANISM = ["-m", "l-osue", "-e", "2", "--epsilon-one", "1", "-d", "256"]
DEVICES = 400
tmp = tempfile.mkdtemp(prefix="tinyldp-fleet-gate-")


def path(name):
    return os.path.join(tmp, name)


def device_round(flash, values, r, keys, capture, devices=DEVICES):
    p = subprocess.run([FLEET_DEVICE, path(flash), path(values), str(r), str(devices), path(keys), path(capture)],
                       capture_output=True, text=True)
    check(p.returncode == 0 and f"round {r}: {devices} reports sealed and sent" in p.stdout,
          f"fleet_device round {r}: {p.stdout}{p.stderr}")


def wrap(capture, out):
    run("wrap", path(capture), *MECHANISM, "-o", path(out))
    return path(out)


def gate(*files):
    p = run("gate", "--db", path("gate.db"), "--fleet-secret", path("fleet.key"), "--out-dir", path("batches"),
            "--attribute", "age", *MECHANISM, "--register", f"0-{DEVICES - 1}", "--threshold", DEVICES, "--json",
            *files)
    return json.loads(p.stdout)


with open(path("fleet.key"), "wb") as f:
    f.write(os.urandom(32))
run("keys", "--fleet-secret", path("fleet.key"), "--devices", f"0-{DEVICES - 1}", "-o", path("keys.bin"))
values = [(20 + 7 * i) % 90 for i in range(DEVICES)]
with open(path("values.bin"), "wb") as f:
    f.write(bytes(values))

# Two rounds (two boots): every report admitted once, one batch per epoch.
for r in range(2):
    device_round("flash.bin", "values.bin", r, "keys.bin", f"uart_{r}.bin")
    g = gate(wrap(f"uart_{r}.bin", f"round_{r}.tldp"))
    check(g["this_run"].get("admitted") == DEVICES and sum(g["this_run"].values()) == DEVICES,
          f"round {r}: every device's report admitted, nothing refused: {g['this_run']}")
    check(len(g["released"]) == 1 and g["released"][0]["shuffled_batch"]["n"] == DEVICES,
          f"round {r}: one batch of the fleet: {g['released']}")

# The captured traffic again (both rounds, in one file): every report replayed, nothing admitted.
with open(path("replay.bin"), "wb") as f:
    f.write(open(path("uart_1.bin"), "rb").read() + open(path("uart_0.bin"), "rb").read())
g = gate(wrap("replay.bin", "replay.tldp"))
check(g["this_run"].get("replayed") == 2 * DEVICES and g["this_run"].get("admitted", 0) == 0,
      f"the captures replayed: {g['this_run']}")

# Devices provisioned with keys the fleet secret did not give (another secret's; device 1's key
# in device 0): forged.
with open(path("other.key"), "wb") as f:
    f.write(os.urandom(32))
run("keys", "--fleet-secret", path("other.key"), "--devices", "0-9", "-o", path("other_keys.bin"))
device_round("other_flash.bin", "values.bin", 2, "other_keys.bin", "other_uart.bin", devices=10)
keys = open(path("keys.bin"), "rb").read()
with open(path("swapped_keys.bin"), "wb") as f:
    f.write(keys[32:64])
device_round("swapped_flash.bin", "values.bin", 2, "swapped_keys.bin", "swapped_uart.bin", devices=1)
g = gate(wrap("other_uart.bin", "other.tldp"), wrap("swapped_uart.bin", "swapped.tldp"))
check(g["this_run"].get("forged") == 11 and g["this_run"].get("admitted", 0) == 0,
      f"reports under keys not derived for their ids: forged: {g['this_run']}")

# A device whose flash was reset to blank and provisioned again with its genuine key: its counter
# starts over, so its reports of a new epoch reuse counters the gate has seen: replayed.
device_round("reset_flash.bin", "values.bin", 3, "keys.bin", "reset_uart.bin", devices=5)
g = gate(wrap("reset_uart.bin", "reset.tldp"))
check(g["this_run"].get("replayed") == 5 and g["this_run"].get("admitted", 0) == 0,
      f"a reset device's reused counters: replayed: {g['this_run']}")

# The analyst's side: the batches, without device ids, estimate the values the devices sent.
for r in range(2):
    batches = glob.glob(path(f"batches/age-epoch{r}-batch*.reports"))
    check(len(batches) == 1, f"epoch {r}: one batch file: {batches}")
    batch = batches[0]
    with open(path("truth.txt"), "w") as f:
        f.write("".join(f"{v}\n" for v in values))
    out = json.loads(run("aggregate", batch, "--epoch", r, "--truth", path("truth.txt"), "-f", "json").stdout)
    check(out["reports"] == DEVICES, f"epoch {r}'s batch: {out['reports']} reports")
    inside = sum(abs(it["unbiased_estimate"] - it["true_value"]) <= 6 * it["standard_error"] for it in out["items"])
    check(inside == len(out["items"]), f"epoch {r}: every item within 6 sigma of the truth ({inside} of {len(out['items'])})")
    lines = [json.loads(line) for line in run("inspect", batch, "--json").stdout.splitlines()]
    check(len(lines) == DEVICES and all("device_id" not in x and "memo_generation" not in x and x["epoch"] == r
                                        for x in lines), f"epoch {r}'s batch: no device ids or memo generations")

finish()
