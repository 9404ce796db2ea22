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


def finish():
    """Prints the verdict (the harness's last-line format) and exits with it."""
    if checks == 0:
        fail("the test ran no checks")
    print(f"{1 if failures == 0 else 0} passed, {1 if failures else 0} failed "
          f"({failures} failed of {checks} checks)")
    sys.exit(1 if failures else 0)
