# SPDX-License-Identifier: Apache-2.0
"""What the end-to-end tests of the `tinyldp` command share: running it (the path is argv[1]),
checks that count failures, and the verdict line and exit code."""
import os
import subprocess
import sys

TINYLDP = os.path.abspath(sys.argv[1])
failures = 0
checks = 0


def fail(message):
    global failures
    failures += 1
    print("FAIL", message)


def check(condition, message):
    global checks
    checks += 1
    if not condition:
        fail(message)


def run(*args, expect=0, stdin=None):
    """Runs tinyldp with args; a different exit code than `expect` is a failure."""
    p = subprocess.run([TINYLDP, *map(str, args)], capture_output=True, text=True, input=stdin)
    if p.returncode != expect:
        fail(f"{' '.join(map(str, args))}: exit {p.returncode}, expected {expect}\n{p.stderr}")
    return p


# Report files (docs/wire-format.md): the header, a promise, records (u16 length, report) and a
# trailer — written here independently of the C++ writer, so a test can build a file with a
# changed record and a trailer that vouches for it (or none, as files before trailers were).
RECORDS_AT = {b"TLDPREP1": 40, b"TLDPREP2": 64, b"TLDPREP3": 96, b"TLDPREP4": 160, b"TLDPREP5": 416}
PROMISE = b"\x00\x00TLDPTRL1"
_M = (1 << 64) - 1


def _mix(x):
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & _M
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & _M
    return x ^ (x >> 31)


def record_digest(report):
    h = _mix(0x9E3779B97F4A7C15 ^ len(report))
    whole = len(report) // 8 * 8
    for i in range(0, whole, 8):
        h = _mix(h ^ int.from_bytes(report[i:i + 8], "little"))
    return _mix(h ^ int.from_bytes(report[whole:], "little") ^ 0xD6E8FEB86659FD93)


def split_report_file(data):
    """(header, [reports]) of a report file, with or without the promise and trailer."""
    at = RECORDS_AT[bytes(data[:8])]
    header, reports = bytes(data[:at]), []
    if data[at:at + 10] == PROMISE:
        at += 10
    while at < len(data):
        n = int.from_bytes(data[at:at + 2], "little")
        if n == 0:  # the trailer
            break
        reports.append(bytes(data[at + 2:at + 2 + n]))
        at += 2 + n
    return header, reports


def report_file(header, reports, trailer=True):
    """A report file of these reports: as tinyldp writes it, or (trailer=False) as written before trailers."""
    body = b"".join(len(r).to_bytes(2, "little") + r for r in reports)
    if not trailer:
        return header + body
    digest = sum(record_digest(r) for r in reports) & _M
    return (header + PROMISE + body + b"\x00\x00TLDPEND1" + len(reports).to_bytes(8, "little") +
            digest.to_bytes(8, "little"))


def old_state(state):
    """The one epoch's aggregate inside a saved time series (TLDPSER1), as a TLDPAGG3 state (what
    tinyldp saved before states recorded epochs and sources): the fixed layout older tests craft."""
    state = bytes(state)
    assert state[:8] == b"TLDPSER1"
    at = 8
    sources = int.from_bytes(state[at:at + 4], "little")
    at += 4 + 13 * sources
    assert int.from_bytes(state[at:at + 4], "little") == 1, "one epoch"
    at += 4
    size = int.from_bytes(state[at:at + 8], "little")
    inner = state[at + 8:at + 8 + size]
    header = RECORDS_AT[inner[8:16]]
    items = int.from_bytes(inner[8 + 17:8 + 21], "little")  # the header's domain
    return b"TLDPAGG3" + inner[8:8 + header + 8 + 8 * items]


def finish():
    """Prints the verdict (the harness's last-line format) and exits with it."""
    if checks == 0:
        fail("the test ran no checks")
    print(f"{1 if failures == 0 else 0} passed, {1 if failures else 0} failed "
          f"({failures} failed of {checks} checks)")
    sys.exit(1 if failures else 0)
