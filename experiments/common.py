# SPDX-License-Identifier: Apache-2.0
"""What the experiments share, defined once: where the repository, its build and the data are,
running the `tinyldp` command (built with the host preset when missing), the mean squared error,
the line that says which commit and machine measured a page, and rewriting one part of a
Markdown page. The mechanisms' own figures (channels, ε, variances) are not here: an experiment
asks the CLI (`tinyldp plan --json`) or the Python bindings (build/host/python) for them.

An experiment imports it from its own folder:

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from common import CLI, run  # what it uses
"""
import importlib
import importlib.machinery
import importlib.util
import json
import os
import platform
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build", "host")
DATA = os.path.join(os.path.dirname(ROOT), "shared", "data")
CLI = os.path.join(BUILD, "tools", "tinyldp", "tinyldp")


def built(target, path):
    """`path`, built first (host preset, `target`) when it is missing."""
    if not os.path.exists(path):
        subprocess.run(["cmake", "--preset", "host"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", "build/host", "--target", target], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
    return path


def cli_path(given=None):
    """The tinyldp command: `given`, else $TINYLDP_CLI, else this tree's build (built if missing)."""
    return given or os.environ.get("TINYLDP_CLI") or built("tinyldp_cli", CLI)


def run(cli, *args):
    """`cli args…`'s standard output; CalledProcessError when it fails."""
    return subprocess.run([cli, *map(str, args)], capture_output=True, text=True, check=True).stdout


def run_json(cli, *args):
    return json.loads(run(cli, *args))


def plan(cli, mechanism, *args):
    """`tinyldp plan -m MECHANISM ARGS --json`: the configured mechanism's figures as the collector
    computes them (ε realized, the probabilities exactly as the device keeps them, …)."""
    return run_json(cli, "plan", "-m", mechanism, *args, "--json")


def dyadic_values(probabilities):
    """{'p1': float, 'g': 3, …} from plan's "memo: p1 = a/2^b, q1 = …; report: p2 = …" (exact)."""
    return {name: int(num) / 2 ** int(bits) if bits else float(num)
            for name, num, bits in re.findall(r"\b(\w+) = (\d+)(?:/2\^(\d+))?", probabilities)}


def bindings():
    """The tinyldp Python module of this tree's build (build/host/python)."""
    path = os.path.join(BUILD, "python")
    if path not in sys.path:
        sys.path.insert(0, path)
    return importlib.import_module("tinyldp")


def import_file(name, path):
    """A Python file (with or without .py) as a module named `name`."""
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def mean(xs):
    return sum(xs) / len(xs)


def variance(xs):
    """The sample variance (n − 1)."""
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def mse(estimate, truth):
    """Mean squared error over the items."""
    return sum((float(e) - t) ** 2 for e, t in zip(estimate, truth)) / len(truth)


def clip_normalize(freq):
    """Negatives clipped to 0, then scaled to sum 1 (uniform when nothing is left)."""
    c = [max(0.0, x) for x in freq]
    s = sum(c)
    return [x / s for x in c] if s > 0 else [1.0 / len(c)] * len(c)


def number_list(cast, kind=""):
    """An argparse type: a comma-separated list of `cast` values."""
    def parse(text):
        try:
            return [cast(x) for x in text.split(",") if x.strip()]
        except ValueError:
            import argparse
            raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list" + (f" of {kind}" if kind else ""))
    return parse


def pyplot():
    """matplotlib.pyplot drawing to files (the Agg backend: no display)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def commit():
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()


def cpu():
    """The processor's model name (/proc/cpuinfo), else what platform knows."""
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or platform.machine()


def versions(modules):
    """"numpy 1.24.2, …" for those of `modules` that import."""
    out = []
    for module in modules:
        try:
            out.append(f"{module} {importlib.import_module(module).__version__}")
        except (ImportError, AttributeError):
            pass
    return ", ".join(out)


def machine(modules=()):
    """What a page says about where it was measured: commit, date, CPU, cores, load, Python."""
    return {"commit": commit(), "date": time.strftime("%Y-%m-%d", time.gmtime()), "cpu": cpu(),
            "python": platform.python_version(), "versions": versions(modules), "cores": os.cpu_count(),
            "load": os.getloadavg()[0]}


def replace_block(path, name, lines):
    """Replaces the block between <!-- NAME --> and <!-- /NAME --> in `path` (appends it if absent)."""
    text = open(path).read() if os.path.exists(path) else ""
    begin, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    block = begin + "\n" + "\n".join(lines).rstrip("\n") + "\n" + end
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    text = pattern.sub(lambda _: block, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + block + "\n"
    with open(path, "w") as f:
        f.write(text)


def replace_section(path, heading, lines):
    """Replaces the section that starts at `heading` (up to the next '## ' heading) or appends it."""
    old = open(path).read() if os.path.exists(path) else ""
    text = "\n".join(lines) + "\n"
    at = old.find(heading)
    if at < 0:
        new = old.rstrip("\n") + "\n\n" + text
    else:
        nxt = old.find("\n## ", at + len(heading))
        new = old[:at] + text + ("\n" + old[nxt + 1:] if nxt >= 0 else "")
    with open(path, "w") as f:
        f.write(new)
