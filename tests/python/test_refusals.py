# SPDX-License-Identifier: Apache-2.0
"""Right or refused: missing values (None, NaN, pandas' NA) are never the labels "None"/"nan" —
refused with the first one's index unless `missing=` says to drop them (counted) or make them
the CLI's label ""; rejected reports raise RejectedReport (a ValueError naming the reason and
the index) from Aggregator.ingest, aggregate, to_dataframe and dask, as `tinyldp aggregate`
exits 3 — unless rejected="collect" counts them as the CLI's report does."""
import warnings

import numpy as np
import pandas as pd
import pytest

import tinyldp


def test_missing_labels_are_refused_with_their_index():
    m = tinyldp.Mechanism("krr", 1, domain=4)
    for values in (["a", None, "b"], ["a", float("nan"), "b"], pd.Series(["a", np.nan, "b"]),
                   pd.Series(["a", pd.NA, "b"], dtype="string"), np.array(["a", None, "b"], dtype=object)):
        with pytest.raises(ValueError, match=r"1 missing value\(s\), the first .* at index 1: missing=\"drop\""):
            tinyldp.simulate(values, m, seed=1)


def test_missing_numbers_are_refused_too():
    m = tinyldp.Mechanism("sd", 1, lo=0, hi=10, levels=4)
    with pytest.raises(ValueError, match="at index 2"):
        tinyldp.simulate(np.array([1.0, 2.0, np.nan]), m, seed=1)
    with pytest.raises(ValueError, match="as-label"):
        tinyldp.simulate([1, None], m, seed=1, missing="as-label")
    with pytest.raises(ValueError, match="missing must be one of refuse, drop, as-label"):
        tinyldp.simulate([1, 2], m, seed=1, missing="ignore")


def test_drop_counts_what_it_dropped():
    m = tinyldp.Mechanism("krr", 1, domain=4)
    with pytest.warns(UserWarning, match=r"dropped 2 missing value\(s\) of 5"):
        reports, labels = tinyldp.simulate(["a", None, "b", float("nan"), "a"], m, seed=1, missing="drop")
    assert len(reports) == 3 and labels.labels == ["a", "b"]
    # The same three values without the missing ones: the same reports.
    same, _ = tinyldp.simulate(["a", "b", "a"], m, seed=1)
    assert bytes(reports.data) == bytes(same.data)
    with pytest.warns(UserWarning, match="dropped 1"):
        numbers, _ = tinyldp.simulate(np.array([1.0, np.nan, 3.0]), tinyldp.Mechanism("krr", 1, domain=4), seed=1,
                                      missing="drop")
    assert len(numbers) == 2


def test_as_label_is_the_clis_empty_label():
    m = tinyldp.Mechanism("krr", 1, domain=4)
    _, labels = tinyldp.simulate(["a", None, "b", float("nan")], m, seed=1, missing="as-label")
    assert labels.labels == ["a", "", "b"]  # --missing category's label "", one for every kind of missing
    assert "nan" not in labels.labels and "None" not in labels.labels


def test_truth_with_missing_values_is_refused_or_dropped(tmp_path):
    m = tinyldp.Mechanism("krr", 2, domain=4)
    values = ["a", "b", "a", "c"] * 50
    reports, labels = tinyldp.simulate(values, m, seed=3)
    path = tmp_path / "r.tldp"
    tinyldp.write_reports(path, m, reports, labels)
    truth = values[:-1] + [None]
    with pytest.raises(ValueError, match="truth: 1 missing value"):
        tinyldp.to_dataframe(str(path), truth=truth)
    with pytest.warns(UserWarning, match="truth: dropped 1"):
        frame = tinyldp.to_dataframe(str(path), truth=truth, missing="drop")
    counts = pd.Series(values[:-1]).value_counts(normalize=True)
    assert frame.set_index("item")["true_value"]["a"] == pytest.approx(counts["a"])


@pytest.mark.parametrize("counts", ["Aggregator", "EpochSeries"])
def test_ingest_raises_on_a_rejected_report_and_counts_nothing(counts):
    # One rule for both: the time series ingests as the aggregator does.
    m = tinyldp.Mechanism("oue", 1, domain=16)
    a = getattr(tinyldp, counts)(m)
    with pytest.raises(tinyldp.RejectedReport) as e:
        a.ingest(b"hello")
    assert isinstance(e.value, ValueError) and e.value.index == 0 and e.value.reason in str(e.value)
    assert e.value.reason in tinyldp.PARSE_ERRORS
    reports, _ = tinyldp.simulate(np.arange(16), m, seed=1)
    batch = [bytes(r) for r in reports]
    batch[7] = batch[7][:-1]
    with pytest.raises(tinyldp.RejectedReport, match="report 7 of 16 is rejected: truncated report") as e:
        a.ingest(batch)
    assert e.value.index == 7 and e.value.reason == "truncated report"
    assert a.reports == 0  # all or nothing: the 15 valid reports before and after were not counted
    assert a.ingest(batch, rejected="collect") == {"truncated report": 1} and a.reports == 15
    assert a.ingest(reports) == {} and a.reports == 31
    with pytest.raises(ValueError, match="rejected must be"):
        a.ingest(reports, rejected="ignore")


def test_files_with_rejected_reports_raise_as_the_cli_exits_3(tmp_path, cli):
    m = tinyldp.Mechanism("oue", 1, domain=16)
    reports, _ = tinyldp.simulate(np.arange(16).repeat(10), m, seed=1)
    batch = [bytes(r) for r in reports]
    batch[3] = batch[3][:2] + bytes([99]) + batch[3][3:]
    batch[9] = batch[9][:-1]
    path = tmp_path / "damaged.tldp"
    tinyldp.write_report_file(str(path), m, batch)
    cli("aggregate", path, expect=3)
    for call in (lambda: tinyldp.to_dataframe(str(path)), lambda: tinyldp.aggregate(str(path))):
        with pytest.raises(tinyldp.RejectedReport, match=r"damaged.tldp: 2 report\(s\) rejected") as e:
            call()
        assert sum(e.value.rejected.values()) == 2 and e.value.index is None
    collected = tinyldp.aggregate(str(path), rejected="collect")
    assert sum(collected.rejected.values()) == 2 and collected.reports == 158
    with pytest.raises(tinyldp.RejectedReport):  # an Aggregate that holds rejected reports
        tinyldp.to_dataframe(collected)
    frame = tinyldp.to_dataframe(collected, rejected="collect")
    assert len(frame) == 16
    assert tinyldp.to_dataframe(str(path), rejected="collect").equals(frame)
