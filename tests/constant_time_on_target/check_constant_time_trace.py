#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Constant time in the code a target runs: the executed-instruction sequence of every report
path must be the same for every private value.

Runs constant_time_guest under QEMU once per value set (runs 0-3), one instruction per
translation block with the exec log (-singlestep -d exec,nochain): the log names the program
counter of every executed instruction. The instructions between each tinyldp_ct_begin and the
next tinyldp_ct_end form one case's window; every case's windows must be equal PC by PC across
the runs. QEMU 7.2's exec log gives program counters only, not data addresses, so memory access
patterns are not compared here (the host's valgrind test covers them for the host build).

usage: check_constant_time_trace.py --emulator <qemu-run>,<qemu>,<machine> --elf GUEST
       [--planted-leak]   (then a difference is expected: exit 0 only if one is found)
"""
import argparse
import os
from array import array
import re
import subprocess
import sys
import tempfile

LINE = re.compile(r"^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/[0-9a-f]+/[0-9a-f]+\] (\S*)")


def windows(log_path, symbols):
    """The PC sequences between the begin and end markers, in order (arrays of PCs: a run
    executes some 10^5 instructions inside the windows); `symbols` gains each PC's function."""
    out, current = [], None
    with open(log_path) as log:
        for line in log:
            m = LINE.match(line)
            if not m:
                continue
            pc, symbol = int(m.group(1), 16), m.group(2)
            if symbol == "tinyldp_ct_begin":
                if current is None:
                    current = array("I")
                continue
            if symbol == "tinyldp_ct_end":
                if current is not None:
                    out.append(current)
                    current = None
                continue
            if current is not None:
                current.append(pc)
                if pc not in symbols:
                    symbols[pc] = symbol
    return out


def trace(emulator, elf, run, planted, directory, symbols):
    log = os.path.join(directory, f"run{run}.log")
    env = dict(os.environ)
    env["TINYLDP_QEMU_ARGS"] = f"-singlestep -d exec,nochain -D {log}"
    args = [*emulator, elf, str(run)] + (["--planted-leak"] if planted else [])
    result = subprocess.run(args, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"guest run {run} failed ({result.returncode}): {result.stdout}{result.stderr}")
    # Semihosting output arrives on QEMU's stderr.
    names = [line[5:] for line in (result.stdout + result.stderr).splitlines() if line.startswith("case ")]
    runs = windows(log, symbols)
    os.remove(log)  # tens of MB a run (a line per instruction): one on disk at a time
    return names, runs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--emulator", required=True,
                        help="CMAKE_CROSSCOMPILING_EMULATOR, its items joined by commas")
    parser.add_argument("--elf", required=True)
    parser.add_argument("--planted-leak", action="store_true")
    a = parser.parse_args()
    emulator = a.emulator.split(",")
    with tempfile.TemporaryDirectory() as directory:
        symbols = {}
        traced = [trace(emulator, a.elf, run, a.planted_leak, directory, symbols) for run in range(4)]
    names, runs = traced[0][0], [t[1] for t in traced]
    counts = {len(r) for r in runs}
    if len(counts) != 1 or 0 in counts or len(names) != len(runs[0]):
        sys.exit(f"FAIL: the runs have different numbers of windows: {[len(r) for r in runs]}")
    differing = 0
    for case, reference in enumerate(runs[0]):
        for run in range(1, 4):
            other = runs[run][case]
            if other == reference:
                continue
            differing += 1
            first = next((i for i, (x, y) in enumerate(zip(reference, other)) if x != y),
                         min(len(reference), len(other)))
            where = reference[first] if first < len(reference) else other[first]
            print(f"{names[case]}: run 0 executes {len(reference)} instructions, run {run} "
                  f"{len(other)}; first difference at instruction {first} "
                  f"(pc {where:#x} in {symbols[where]})")
            break
        else:
            print(f"{names[case]}: {len(reference)} instructions, the same in all four runs")
    if a.planted_leak:
        if differing == 0:
            sys.exit("FAIL: the planted value-dependent case executed the same instructions")
        print("the planted leak was caught")
        return
    if differing:
        sys.exit(f"FAIL: {differing} report path(s) execute value-dependent instructions")
    print(f"all {len(runs[0])} report paths execute the same instructions for every value")


if __name__ == "__main__":
    main()
