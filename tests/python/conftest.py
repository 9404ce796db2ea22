# SPDX-License-Identifier: Apache-2.0
"""What the Python bindings' tests share: the `tinyldp` command to compare with (TINYLDP_CLI, set
by ctest), a runner for it, and small synthetic columns written as CSV."""
import json
import os
import subprocess

import numpy as np
import pytest

# An education-like column: 16 labels with unequal shares (one with a comma, which CSV quotes).
LABELS = ["Bachelors", "HS-grad", "11th", "Masters", "9th", "Some-college", "Assoc-acdm", "Assoc-voc",
          "7th-8th", "Doctorate", "Prof-school", "5th-6th", "10th", "1st-4th", "green, light", "12th"]
WEIGHTS = np.array([16, 32, 4, 5, 2, 22, 3, 4, 2, 1, 2, 1, 3, 1, 1, 1], dtype=float)


@pytest.fixture(scope="session")
def cli():
    """Runs `tinyldp ARGS…`; a non-zero exit is a failure with its stderr."""
    path = os.environ.get("TINYLDP_CLI")
    if not path:
        pytest.fail("TINYLDP_CLI is not set (ctest sets it to the built tinyldp)")

    def run(*args, expect=0):
        p = subprocess.run([path, *map(str, args)], capture_output=True, text=True)
        assert p.returncode == expect, f"tinyldp {' '.join(map(str, args))}: exit {p.returncode}\n{p.stderr}"
        return p

    run.json = lambda *args: json.loads(run(*args, "--format", "json").stdout)
    return run


@pytest.fixture(scope="session")
def columns():
    """Two columns of 20 000 rows: `education` (labels) and `age` (integers 17 … 90)."""
    rng = np.random.default_rng(18)
    education = rng.choice(np.array(LABELS, dtype=object), size=20000, p=WEIGHTS / WEIGHTS.sum())
    age = np.clip(np.round(rng.normal(38, 13, size=20000)), 17, 90).astype(np.int64)
    category = rng.integers(0, 8, size=20000)
    return {"education": education, "age": age, "category": category}


def write_csv(path, **cols):
    """A CSV with a header, fields quoted where RFC 4180 wants it."""
    import csv

    names = list(cols)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(names)
        w.writerows(zip(*(cols[n] for n in names)))
    return path


@pytest.fixture(scope="session")
def csv_file(tmp_path_factory, columns):
    return write_csv(tmp_path_factory.mktemp("data") / "people.csv", **columns)
