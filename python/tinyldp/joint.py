# SPDX-License-Identifier: Apache-2.0
"""The joint distribution of chosen attributes of multi-attribute record reports, as `tinyldp joint
REPORTS --attributes a,b,c` computes it: the collector's estimators (EM on whole reports, `map`
— EM for the posterior mode under a prior centred on the marginals' product —, the seed paper's
LASSO, LREMH, the identifiable co-occurrence estimator `pairs`) and the baselines
(`uniform`, `marginals`), from a record-counts file (`tinyldp joint simulate` / `merge`) or state.

    result = tinyldp.estimate_joint("n.tldpj", [0, 1, 2])           # every estimator, as the CLI
    result["estimators"]["em"]["estimate"]                           # numpy array over the cells
    tinyldp.joint_dataframe(result)                                  # cells × estimators
"""
import os

import numpy as np

from . import _native

ESTIMATORS = ("em", "map", "lasso", "lremh", "pairs")
BASELINES = ("uniform", "marginals")


def _counts(source):
    if isinstance(source, _native.RecordCounts):
        return source
    if isinstance(source, (bytes, bytearray)):
        return _native.RecordCounts.deserialize(bytes(source))
    return _native.RecordCounts.load(os.fspath(source))


def cell_labels(counts, attributes):
    """Each cell's label: the chosen attributes' labels joined by "|", the last attribute fastest
    (the order of the estimates' cells)."""
    attrs = counts.attributes
    chosen = []
    for a in attributes:
        if isinstance(a, str):
            names = [x["name"] for x in attrs]
            index = names.index(a) if a in names else int(a)
        else:
            index = int(a)
        chosen.append(attrs[index])
    labels = [""]
    for attr in chosen:
        values = attr["labels"] or [str(v) for v in range(attr["size"])]
        labels = [f"{prefix}|{v}" if prefix else v for prefix in labels for v in values]
    return labels, [a["name"] for a in chosen]


def estimate_joint(source, attributes, estimator="all", truth=None, stop="max-change", delta=None,
                   max_iterations=10000, lambda_=1e-3, threads=2, prior_strength=None):
    """The joint of `attributes` (names or indices) from a record-counts file, state bytes or
    RecordCounts, by `estimator` (em, map, lasso, lremh, pairs, or "all": those five) and the two
    baselines, with the CLI's options (`prior_strength`: map's prior in reports, default the
    number of cells, as --prior-strength) and its JSON's fields: reports, patterns, attributes,
    epsilon_one, epsilon_infinity, cells (labels) and estimators[name] = {estimate, seconds, iterations,
    converged, alive, memory_bytes[, avd]}. `truth`: the true joint over the cells (AVD added; returned as true_value)."""
    counts = _counts(source)
    attributes = list(attributes)
    names = list(ESTIMATORS) if estimator == "all" else [estimator]
    for name in names:
        if name not in ESTIMATORS:
            raise ValueError(f"unknown joint estimator {name!r} ({', '.join(ESTIMATORS)} or all)")
    options = dict(stop=stop, delta=delta, max_iterations=max_iterations, lambda_=lambda_, threads=threads)
    runs = {name: _native.estimate_joint(counts, attributes, name, **options,
                                         **({"prior_strength": prior_strength} if name == "map" else {}))
            for name in [*names, *BASELINES]}
    cells, chosen = cell_labels(counts, attributes)
    if truth is not None:
        truth = np.asarray(truth, dtype=float)
        if truth.shape != (len(cells),):
            raise ValueError(f"truth has {truth.shape} entries; the joint has {len(cells)} cells")
        for run in runs.values():
            run["avd"] = _native.average_variation_distance(list(run["estimate"]), list(truth))
    first = next(iter(runs.values()))
    return {"reports": counts.reports, "patterns": first.pop("patterns"), "attributes": chosen,
            "epsilon_one": counts.epsilon_one, "epsilon_infinity": counts.epsilon_infinity,
            "estimators": {name: {k: v for k, v in run.items() if k not in ("patterns", "cells")}
                           for name, run in runs.items()},
            "cells": cells, **({"true_value": truth} if truth is not None else {})}


def joint_dataframe(result):
    """A DataFrame of estimate_joint's result: one row per cell, one column per estimator (and
    `true_value` when the truth was given)."""
    import pandas as pd

    columns = {name: run["estimate"] for name, run in result["estimators"].items()}
    if "true_value" in result:
        columns["true_value"] = result["true_value"]
    return pd.DataFrame(columns, index=pd.Index(result["cells"], name="cell"))
