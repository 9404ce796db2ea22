# SPDX-License-Identifier: Apache-2.0
"""The CLI and Python configure through one collector function (configure.hpp): one grid of
configurations — every mechanism, every parameter given and not given, valid and invalid — goes
through both `tinyldp plan … --json` and `tinyldp.Mechanism(...)`, and they must accept and refuse
the same ones and agree on the realized ε of those they accept."""
import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

import tinyldp

# Python keyword → the CLI's option (collector/parameters.hpp's table).
OPTIONS = {"epsilon": "--epsilon", "domain": "--domain", "lo": "--lo", "hi": "--hi", "levels": "--levels",
           "sensitivity": "--sensitivity", "grid_step": "--grid-step", "sampled_buckets": "--sampled-buckets",
           "branching": "--branching",
           "epsilon_one": "--epsilon-one", "f": "--f", "p": "--p", "q": "--q", "attribute_sizes": "--domains",
           "bloom_bits": "--bloom-bits", "hashes": "--hashes", "cohorts": "--cohorts"}

# Per kind of mechanism, a valid base; each case below adds, removes or spoils one parameter.
BASES = {
    "categorical": {"epsilon": "1", "domain": 8},
    "chain": {"epsilon": "2", "epsilon_one": "1", "domain": 8},
    "by_f_p_q": {"f": "0.5", "p": "0.5", "q": "0.75", "domain": 8},
    "numeric": {"epsilon": "1", "lo": 0, "hi": 100},
    "numeric_chain": {"epsilon": "2", "epsilon_one": "1", "lo": 0, "hi": 100, "grid_step": 25},
    "record": {"epsilon": "1", "attribute_sizes": [3, 4, 2]},
    "record_by_f_p_q": {"f": "0.5", "p": "0.5", "q": "0.75", "attribute_sizes": [3, 4, 2]},
}

# Values for each parameter: a valid-looking one and one out of range (for some mechanisms).
VALUES = {"domain": [2, 16, 1], "lo": [-5], "hi": [50, -10], "levels": [4, 1], "sensitivity": [3, 0],
          "grid_step": [25, 7], "sampled_buckets": [2, 20], "branching": [8, 3], "epsilon_one": ["1", "3"], "f": ["0.25", "1.5"],
          "p": ["0.25"], "q": ["0.9"], "attribute_sizes": [[2, 2], [1]], "bloom_bits": [64, 0],
          "hashes": [3, 0], "cohorts": [8]}


def base_of(row):
    name, kind = row
    if kind == "record":
        return BASES["record_by_f_p_q" if name == "record" else "record"]
    if kind == "numeric":
        return BASES["numeric_chain" if name in ("1bitmean", "dbitflip") else "numeric"]
    if name == "rappor":
        return BASES["by_f_p_q"]
    return BASES["chain" if name.startswith("l-") or name in ("loloha", "biloloha") else "categorical"]


def grid():
    rows = [(name, kind) for kind in ("categorical", "numeric", "record")
            for name in tinyldp.mechanism_names(kind).split(", ")]
    cases = []
    for row in rows:
        base = base_of(row)
        cases.append((row[0], dict(base)))
        for key in base:  # each parameter of the base not given
            cases.append((row[0], {k: v for k, v in base.items() if k != key}))
        for key, values in VALUES.items():  # each parameter given, with each value
            for value in values:
                cases.append((row[0], {**base, key: value}))
        # the Bloom filter with its hashes and cohorts in place of the domain
        bloom = {k: v for k, v in base.items() if k != "domain"}
        cases.append((row[0], {**bloom, "bloom_bits": 64, "hashes": 2, "cohorts": 4}))
    cases.append(("no-such-mechanism", {"epsilon": "1", "domain": 4}))
    return cases


def cli_args(name, params):
    args = ["plan", "-m", name, "--json"]
    for key, value in params.items():
        if key == "attribute_sizes":
            value = ",".join(map(str, value))
        args += [OPTIONS[key], str(value)]
    return args


def through_cli(name, params):
    path = os.environ.get("TINYLDP_CLI")
    if not path:
        pytest.fail("TINYLDP_CLI is not set (ctest sets it to the built tinyldp)")
    p = subprocess.run([path, *cli_args(name, params)], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    out = json.loads(p.stdout)
    return out["realized_epsilon"] if "realized_epsilon" in out else out["epsilon_one"]


def through_python(name, params):
    try:
        m = tinyldp.Mechanism(name, **params)
    except ValueError:
        return None
    return m.realized_epsilon if not m.record else m.local_epsilon


def test_the_grid_covers_every_mechanism_and_parameter():
    names = {name for name, _ in grid()}
    for kind in ("categorical", "numeric", "record"):
        assert set(tinyldp.mechanism_names(kind).split(", ")) <= names
    given = {key for _, params in grid() for key in params}
    assert given == set(OPTIONS)


def test_cli_and_python_accept_and_refuse_the_same_configurations():
    # The CLI's `plan` gives a categorical mechanism 2 categories when --domain is missing;
    # Python has no default. Compare only what both read the same way.
    cases = [(name, params) for name, params in grid()
             if {"domain", "bloom_bits", "lo", "attribute_sizes"} & set(params)]
    with ThreadPoolExecutor(max_workers=4) as pool:  # the CLI runs are the cost
        cli = list(pool.map(lambda case: through_cli(*case), cases))
    disagreements = []
    for (name, params), by_cli in zip(cases, cli):
        by_python = through_python(name, params)
        if (by_cli is None) != (by_python is None) or (by_cli is not None and by_cli != by_python):
            disagreements.append((name, params, by_cli, by_python))
    assert not disagreements, disagreements[:10]
    accepted = sum(e is not None for e in cli)
    assert accepted > 50 and len(cli) - accepted > 50  # the grid exercises both sides
