# SPDX-License-Identifier: Apache-2.0
"""From report files to one pandas DataFrame, as `tinyldp aggregate` makes its tidy CSV.

`aggregate(paths)` reads report files (and saved states) and merges them exactly; a report the
collector rejects raises RejectedReport (`tinyldp aggregate` exits 3), unless
`rejected="collect"` keeps the reasons and estimates from the rest. The labels file next to the
first report file (`FILE.labels`, as
`simulate --labels` writes it) names the items when its digest is the one the reports record.
`Aggregate.to_dataframe()` is the CLI's table: kind, item, estimate, count, ci_low, ci_high,
unbiased_estimate, standard_error (and true_value with `truth=`), the numbers the CLI computes,
unrounded. `simulate` privatizes an array of values (labels too) for notebooks.

Missing values (None, NaN, pandas' NA and NaT) are refused with the index of the first, unless
`missing="drop"` (dropped, with a warning that counts them — the CLI's `--missing skip`) or
`missing="as-label"` (one label "", the CLI's `--missing category`): never the label "nan".
"""
import math
import os
import warnings

import numpy as np

from . import _native
from .labels import LabelMapping, as_mapping, describe

MISSING = ("refuse", "drop", "as-label")
REJECTED = ("raise", "collect")
RejectedReport = _native.RejectedReport


def missing_mask(values):
    """Which values are missing: None, a floating NaN, pandas' NA or NaT (a bool array)."""
    values = np.asarray(values)
    if values.dtype.kind in "fc":
        return np.isnan(values)
    if values.dtype.kind in "mM":
        return np.isnat(values)
    if values.dtype.kind != "O":
        return np.zeros(values.shape, dtype=bool)
    return np.fromiter((v is None or (isinstance(v, (float, np.floating)) and math.isnan(v))
                        or type(v).__name__ in ("NAType", "NaTType") for v in values.ravel()),
                       dtype=bool, count=values.size).reshape(values.shape)


def handle_missing(values, missing, what="values"):
    """The values with their missing ones treated as `missing` says (MISSING): refused (ValueError
    naming the first one's index and the choices), dropped (a warning counts them), or all made
    the label "" (as `--missing category`)."""
    if missing not in MISSING:
        raise ValueError(f"missing must be one of {', '.join(MISSING)}, not {missing!r}")
    # A list is looked at as it is: numpy would turn ["a", nan] into the strings "a", "nan".
    raw = values if hasattr(values, "dtype") else np.asarray(values, dtype=object)
    raw = np.asarray(raw)
    mask = missing_mask(raw)
    if not mask.any():
        return np.asarray(values)
    values = raw
    count = int(mask.sum())
    if missing == "refuse":
        i = int(np.argmax(mask))
        raise ValueError(f"{what}: {count} missing value(s), the first {values[i]!r} at index {i}: "
                         f"missing=\"drop\" drops them, missing=\"as-label\" makes them the label \"\"")
    if missing == "drop":
        warnings.warn(f"{what}: dropped {count} missing value(s) of {values.size} (missing=\"drop\")", stacklevel=3)
        kept = values[~mask]
        return np.asarray(kept.tolist()) if kept.dtype.kind == "O" and kept.size else kept
    out = values.astype(object)
    out[mask] = ""
    return out


def _refuse_rejected(rejected, where):
    """RejectedReport for reports a file or state held that the collector rejected."""
    if not rejected:
        return
    total = sum(rejected.values())
    reasons = ", ".join(f"{reason}: {count}" for reason, count in sorted(rejected.items()))
    error = RejectedReport(f"{where}: {total} report(s) rejected ({reasons}), as tinyldp aggregate exits 3; "
                           f"rejected=\"collect\" keeps their count in Aggregate.rejected and estimates from the rest")
    error.reason = max(rejected, key=rejected.get)
    error.index = None
    error.rejected = dict(rejected)
    raise error


COLUMNS = ["kind", "item", "estimate", "count", "ci_low", "ci_high", "unbiased_estimate", "standard_error"]


class _Counted:
    """What Aggregate and TimeSeries share: the label mapping (when known), the rejected reports
    by reason, and the mechanism and report count of the state they were counted into (each
    subclass's `_state`: its aggregator or its series, read when asked, never a second copy)."""

    def __init__(self, labels, rejected):
        self.labels = labels
        self.rejected = dict(rejected or {})

    def serialize(self):
        """The state `tinyldp aggregate --save-state` writes for the same inputs."""
        return self._state.serialize()

    @property
    def mechanism(self):
        return self._state.mechanism

    @property
    def reports(self):
        return self._state.reports


class Aggregate(_Counted):
    """An aggregator with its label mapping (when known) and the rejected reports by reason;
    `series`, when it came from report files or states, is the EpochSeries it was made of (the
    files it counted, per epoch), whose bytes serialize() gives, as `--save-state` writes them."""

    def __init__(self, aggregator, labels=None, rejected=None, series=None):
        super().__init__(labels, rejected)
        self.aggregator = aggregator
        self.series = series

    @property
    def _state(self):
        return self.aggregator

    def serialize(self):
        """The state `tinyldp aggregate --save-state` writes for the same inputs: the series
        (the files it counted, per epoch) when there is one, else the aggregator's."""
        return (self.series or self.aggregator).serialize()

    def estimate(self, postprocess="none", confidence=0.95, **em):
        """The items' estimates: a dict of numpy arrays (estimate, count, ci_low, ci_high,
        unbiased_estimate, standard_error), one entry per item. postprocess "em": the
        non-negative maximum-likelihood estimate (em_tolerance=, em_max_iterations=, em_smoothing=:
        EMS's weight, sw's 0.25 by default)."""
        return self.aggregator.estimate(postprocess, confidence, **em)

    def mean(self, confidence=0.95):
        """sd / dlaplace: the mean with its standard error and interval (a dict)."""
        return self.aggregator.mean(confidence)

    def items(self):
        """What each item is: its label, its index (categorical, no labels) or its value (numeric)."""
        m = self.mechanism
        if m.numeric:  # the rows: what values round to (sw: its buckets)
            values = m.atom_values
            return [int(v) for v in values] if m.integer_items else list(values)
        if self.labels is not None:
            return [self.labels[i] if i < len(self.labels) else str(i) for i in range(m.domain)]
        return list(range(m.domain))

    def to_dataframe(self, postprocess="none", confidence=0.95, truth=None, missing="refuse",
                     quantiles=(0.5, 0.9, 0.95, 0.99)):
        """One tidy table with the CLI's columns: a `mean` row first for the numeric mechanisms,
        `quantile` rows (item q; sd, dlaplace, sw: `quantiles`, () for none) as `aggregate
        --quantiles` prints them, then a `frequency` row per item. `truth`: the raw values (labels or category indices;
        numbers for sd/dlaplace) to add `true_value`, as `aggregate --truth` does; its missing
        values as `missing` says (refuse, drop, as-label)."""
        import pandas as pd

        m = self.mechanism
        if m.mean_only:  # pm: the mean row alone, as `aggregate` prints it
            if postprocess != "none":
                self.estimate(postprocess, confidence)  # raises ValueError, saying why
            mu = self.mean(confidence)
            frame = pd.DataFrame({
                "kind": ["mean"], "item": [math.nan], "estimate": [mu["estimate"]], "count": [math.nan],
                "ci_low": [mu["ci_low"]], "ci_high": [mu["ci_high"]], "unbiased_estimate": [mu["estimate"]],
                "standard_error": [mu["standard_error"]],
            })
            if truth is not None:
                frame["true_value"] = [float(np.mean(self.encode(truth, missing)))]
            return frame
        e = self.estimate(postprocess, confidence)
        items = self.items()
        frame = pd.DataFrame({
            "kind": "frequency",
            "item": items,
            "estimate": e["estimate"],
            "count": e["count"],
            "ci_low": e["ci_low"],
            "ci_high": e["ci_high"],
            "unbiased_estimate": e["unbiased_estimate"],
            "standard_error": e["standard_error"],
        })
        true_values = None
        if truth is not None:
            indices = self.encode(truth, missing)
            true_values = list(m.true_frequencies(indices))
        if m.numeric:
            mu = self.mean(confidence)
            mean_row = pd.DataFrame({
                "kind": ["mean"], "item": [math.nan], "estimate": [mu["estimate"]], "count": [math.nan],
                "ci_low": [mu["ci_low"]], "ci_high": [mu["ci_high"]], "unbiased_estimate": [mu["estimate"]],
                "standard_error": [mu["standard_error"]],
            })
            rows = [mean_row]
            true_quantiles = []
            if quantiles and not m.memoized:
                qe = self.aggregator.quantiles(list(quantiles), postprocess, confidence)
                rows.append(pd.DataFrame({
                    "kind": "quantile", "item": list(qe["q"]), "estimate": qe["estimate"], "count": math.nan,
                    "ci_low": qe["ci_low"], "ci_high": qe["ci_high"], "unbiased_estimate": math.nan,
                    "standard_error": math.nan,
                }))
                if true_values is not None:
                    cumulative = np.cumsum(true_values)
                    values = m.atom_values
                    for q in quantiles:
                        x = int(np.searchsorted(cumulative, q - 1e-12))
                        true_quantiles.append(float(values[min(x, len(values) - 1)]))
            frame = pd.concat(rows + [frame], ignore_index=True)
            if true_values is not None:
                true_values = [float(np.mean(indices))] + true_quantiles + true_values
        if true_values is not None:
            frame["true_value"] = true_values
        return frame

    def encode(self, values, missing="refuse"):
        """Raw values as the mechanism takes them: labels through the mapping, numbers as int64;
        missing values refused (or dropped, or the label "": `missing`)."""
        m = self.mechanism
        values = handle_missing(values, missing, "truth")
        if not m.numeric and values.dtype.kind in "OUS":
            if self.labels is None:
                raise ValueError("the values are labels but the aggregate has no label mapping")
            return self.labels.encode(values)
        return as_integers(values)


def as_integers(values):
    """An int64 array of values that are whole numbers; missing or fractional ones are errors."""
    values = np.asarray(values)
    if values.dtype.kind in "iub":
        return values.astype(np.int64)
    if values.dtype.kind == "f":
        bad = ~np.isfinite(values) | (values != np.round(values))
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"value {values[i]!r} at index {i} is not an integer (drop or fill missing values first)")
        return values.astype(np.int64)
    raise ValueError(f"values of dtype {values.dtype} are neither integers nor labels")


def _labels_next_to(path):
    candidate = f"{path}.labels"
    return candidate if os.path.exists(candidate) else None


def resolve_labels(aggregator, labels, first_path=None):
    """The mapping that names the items: `labels` (a mapping, a labels file or a list), else the
    labels file next to the first report file. As the CLI: a mapping other than the recorded one
    is refused; an aggregate that records none takes the given one, with a warning."""
    if aggregator.mechanism.numeric:
        if labels is not None:
            raise ValueError(f"labels are for categorical mechanisms; {aggregator.mechanism.name} reports numbers")
        return None
    source = labels if isinstance(labels, (str, os.PathLike)) else "the labels given"
    if labels is None and first_path is not None:
        labels = source = _labels_next_to(first_path)
    mapping = as_mapping(labels)
    recorded = aggregator.labels_digest
    if mapping is None:
        if recorded is not None:
            warnings.warn(f"the items have labels ({describe(recorded)}); pass labels=FILE to name them", stacklevel=3)
        return None
    if recorded is None:
        warnings.warn(f"the reports record no label mapping (written without labels, or before tinyldp "
                      f"recorded them): taking {source} as their mapping, unchecked", stacklevel=3)
        aggregator.assume_labels(mapping.digest)
    elif recorded != mapping.digest:
        raise ValueError(f"{source} is not the label mapping of these reports ({describe(mapping.digest)}; "
                         f"the reports record {describe(recorded)})")
    return mapping


def _state_bytes(state):
    if isinstance(state, (bytes, bytearray)):
        return bytes(state)
    with open(state, "rb") as f:
        return f.read()


class TimeSeries(_Counted):
    """Estimates per epoch, as `tinyldp aggregate` prints memoized reports of several epochs: a
    device's reports of several epochs share its memo, so each epoch is estimated on its own.
    `epochs` maps each epoch (None: reports without the field) to its Aggregate."""

    def __init__(self, series, labels=None, rejected=None):
        super().__init__(labels, rejected)
        self.series = series
        self.epochs = {e: Aggregate(a, labels, {}) for e, a in series.epochs().items()}

    @property
    def _state(self):
        return self.series

    def to_dataframe(self, postprocess="none", confidence=0.95, truth=None, missing="refuse"):
        """The CLI's time series: an `epoch` column, then each epoch's table. `truth`: a dict
        {epoch: raw values} (each epoch's truth), as `aggregate --truth-rounds` gives it."""
        import pandas as pd

        frames = []
        for epoch, a in self.epochs.items():
            f = a.to_dataframe(postprocess, confidence, None if truth is None else truth[epoch], missing)
            f.insert(0, "epoch", epoch)
            frames.append(f)
        return pd.concat(frames, ignore_index=True)


def _file_digest_check(path, records, digest, info):
    """Warns about a file written before trailers (a cut there cannot be seen)."""
    if info is not None and info["trailer"] is None:
        warnings.warn(f"{path} has no trailer (written before report files had trailers): a file cut short at a record boundary "
                      f"cannot be told from a whole one", stacklevel=4)


def finish_series(series, rejected, labels, first_path, epochs):
    """An Aggregate (one epoch, or the epochs pooled) or a TimeSeries, as `aggregate` decides."""
    if epochs not in ("auto", "by-epoch", "pool"):
        raise ValueError(f"epochs={epochs!r}: 'auto', 'by-epoch' or 'pool'")
    parts = series.epochs()
    m = series.mechanism
    if len(parts) <= 1:
        mapping = resolve_labels(series, labels, first_path)  # before the epoch's copy is taken
        a = next(iter(series.epochs().values())) if parts else _native.Aggregator(m, series.labels_digest)
        return Aggregate(a, mapping, rejected, series)
    if epochs == "pool" or (epochs == "auto" and not m.memoized):
        pooled = series.pooled()
        if pooled is None:
            raise ValueError(f"{m.name}: its reports of {len(parts)} epochs share memos and tinyldp has no model of "
                             f"how they covary, so they cannot be pooled with an honest standard error: "
                             f"aggregate them per epoch (epochs='by-epoch')")
        mapping = resolve_labels(series, labels, first_path)
        return Aggregate(series.pooled(), mapping, rejected, series)
    return TimeSeries(series, resolve_labels(series, labels, first_path), rejected)


def aggregate(paths=(), states=(), labels=None, rejected="raise", epochs="auto"):
    """Aggregates report files and saved states (bytes or paths), as `tinyldp aggregate FILES
    --merge-state S…` does: same mechanism, parameters and label mapping, or a ValueError with
    the reason; a file given twice (or counted by a state) is refused. A rejected report raises
    RejectedReport (file, reasons and counts), as the CLI exits 3; rejected="collect" keeps them
    in .rejected instead. Reports of several epochs: a TimeSeries for a memoized mechanism (its
    epochs share memos), pooled for the others; epochs="by-epoch" or "pool" chooses (pooling
    memoized epochs accounts for the shared memos, and is refused where tinyldp cannot)."""
    if rejected not in REJECTED:
        raise ValueError(f"rejected must be one of {', '.join(REJECTED)}, not {rejected!r}")
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    total, counted = None, {}
    parts = [(os.fspath(p), lambda p=p: _native.aggregate_range(os.fspath(p))) for p in paths]
    parts += [(s if not isinstance(s, (bytes, bytearray)) else "a state",
               lambda s=s: (_native.EpochSeries.deserialize(_state_bytes(s)), {}, 0, None)) for s in states]
    for name, load in parts:
        a, r, _, digest = load()
        if digest is not None:
            _file_digest_check(name, *digest, _native.report_file_info(name))
        if rejected == "raise":
            _refuse_rejected(r, name)
        for reason, count in r.items():
            counted[reason] = counted.get(reason, 0) + count
        if total is None:
            total = a
            continue
        try:
            total.merge(a)
        except ValueError as e:
            raise ValueError(f"{name}: {e}") from None
    if total is None:
        raise ValueError("nothing to aggregate: give report files or states")
    first = os.fspath(paths[0]) if paths else None
    return finish_series(total, counted, labels, first, epochs)


def to_dataframe(source, postprocess="none", confidence=0.95, labels=None, truth=None, states=(),
                 rejected="raise", missing="refuse"):
    """One call from report files (a path or a list), an Aggregator, an Aggregate or a TimeSeries
    to the CLI's tidy table (see Aggregate.to_dataframe, TimeSeries.to_dataframe). Rejected
    reports — in the files, or counted in an aggregate — raise RejectedReport unless
    rejected="collect"; missing truth values are refused unless `missing` says how to treat them."""
    if rejected not in REJECTED:
        raise ValueError(f"rejected must be one of {', '.join(REJECTED)}, not {rejected!r}")
    if isinstance(source, (Aggregate, TimeSeries)):
        result = source
        if rejected == "raise":
            _refuse_rejected(result.rejected, "the aggregate")
    elif isinstance(source, _native.Aggregator):
        result = Aggregate(source, resolve_labels(source, labels))
    else:
        result = aggregate(source, states=states, labels=labels, rejected=rejected)
    return result.to_dataframe(postprocess, confidence, truth, missing)


def simulate(values, mechanism, seed=None, labels=None, device_ids=False, epoch=None, cohort=None,
             missing="refuse"):
    """Privatizes values as a fleet of devices would: (Reports, LabelMapping or None).

    Text values are labels: numbered by `labels` (a mapping, a labels file or a list) or in order
    of first appearance. seed: the DETERMINISTIC test source — the same reports as `tinyldp
    simulate --seed` on the same values, and NOT private; without it, the OS's entropy.
    missing: "refuse" (default: a ValueError naming the first missing value's index), "drop"
    (a warning counts them) or "as-label" (the label "", as `--missing category`)."""
    if missing == "as-label" and mechanism.numeric:
        raise ValueError(f"missing=\"as-label\" makes missing values a label; {mechanism.name} privatizes numbers "
                         f"(refuse or drop them)")
    values = handle_missing(values, missing)
    mapping = as_mapping(labels)
    if values.dtype.kind in "OUS":
        if mechanism.numeric:
            raise ValueError(f"{mechanism.name} privatizes numbers, not labels")
        if mapping is None:
            mapping = LabelMapping.from_values(values, mechanism.domain)
        indices = mapping.encode(values)
    else:
        indices = as_integers(values)
    reports = mechanism.privatize(indices, seed=seed, device_ids=device_ids, epoch=epoch, cohort=cohort)
    return reports, mapping


def write_reports(path, mechanism, reports, labels=None):
    """Writes a report file (and, with labels, `path.labels` beside it, its digest in the header),
    as `tinyldp simulate` does."""
    mapping = as_mapping(labels)
    _native.write_report_file(os.fspath(path), mechanism, reports, None if mapping is None else mapping.digest)
    if mapping is not None:
        mapping.write(f"{os.fspath(path)}.labels")
