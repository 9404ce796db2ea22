# SPDX-License-Identifier: Apache-2.0
"""Epochs and files counted once, from Python as from the CLI: memoized reports of several epochs
give a TimeSeries (the CLI's time series, epoch by epoch), epochs="pool" the CLI's pooled estimate
(standard errors that account for the shared memos), a mechanism without a covariance model refuses
to pool; a file given twice, a copy of it, or a state that counted it is refused; a file cut at a
record boundary is refused; a file written before trailers is read with a warning."""
import io
import shutil

import numpy as np
import pandas as pd
import pytest

import tinyldp

MECH = ["-m", "l-osue", "-e", "2", "--epsilon-one", "1", "-d", "8"]


@pytest.fixture(scope="module")
def rounds(tmp_path_factory, cli):
    d = tmp_path_factory.mktemp("epochs")
    values = np.random.default_rng(3).integers(0, 8, size=1500)
    (d / "values.txt").write_text("\n".join(map(str, values)) + "\n")
    cli("simulate", *MECH, "-i", d / "values.txt", "-o", d / "r.tldp", "--rounds", 3, "--change-prob", 0.2, "--seed", 4)
    return d


def test_memoized_epochs_are_a_time_series_like_the_cli(rounds, cli):
    series = tinyldp.aggregate(rounds / "r.tldp")
    assert isinstance(series, tinyldp.TimeSeries) and sorted(series.epochs) == [0, 1, 2]
    assert all(a.reports == 1500 for a in series.epochs.values())
    frame = series.to_dataframe()
    expected = pd.read_csv(io.StringIO(cli("aggregate", rounds / "r.tldp").stdout))
    assert list(frame.columns) == list(expected.columns)
    assert (frame["epoch"].to_numpy() == expected["epoch"].to_numpy()).all()
    for column in ("unbiased_estimate", "standard_error", "ci_low", "ci_high"):
        np.testing.assert_allclose(frame[column].to_numpy(dtype=float), expected[column].to_numpy(dtype=float),
                                   rtol=1e-5, atol=1e-6)


def test_pooled_epochs_match_the_cli_and_widen_the_error(rounds, cli):
    pooled = tinyldp.aggregate(rounds / "r.tldp", epochs="pool")
    assert isinstance(pooled, tinyldp.Aggregate) and pooled.reports == 4500
    e = pooled.estimate()
    j = cli.json("aggregate", rounds / "r.tldp", "--pool-epochs")
    np.testing.assert_allclose(e["standard_error"], [i["standard_error"] for i in j["items"]], rtol=1e-9)
    series = tinyldp.aggregate(rounds / "r.tldp", epochs="by-epoch")
    independent = np.sqrt(sum(a.estimate()["standard_error"] ** 2 for a in series.epochs.values())) / 3
    assert (e["standard_error"] > 1.1 * independent).all()


def test_a_mechanism_without_a_covariance_model_refuses_to_pool(tmp_path, cli):
    (tmp_path / "c.txt").write_text("\n".join(str(v) for v in range(0, 100, 3)) + "\n")
    cli("simulate", "-m", "1bitmean", "-e", "2", "--epsilon-one", "1", "--lo", 0, "--hi", 100,
        "-i", tmp_path / "c.txt", "-o", tmp_path / "m.tldp", "--rounds", 2, "--seed", 1)
    with pytest.raises(ValueError, match="cannot be pooled"):
        tinyldp.aggregate(tmp_path / "m.tldp", epochs="pool")
    assert isinstance(tinyldp.aggregate(tmp_path / "m.tldp"), tinyldp.TimeSeries)
    with pytest.raises(ValueError, match="epochs="):
        tinyldp.aggregate(tmp_path / "m.tldp", epochs="sometimes")


def test_a_file_is_counted_once(rounds, tmp_path, cli):
    with pytest.raises(ValueError, match="twice"):
        tinyldp.aggregate([rounds / "r.tldp", rounds / "r.tldp"])
    shutil.copy(rounds / "r.tldp", tmp_path / "copy.tldp")
    with pytest.raises(ValueError, match="twice"):
        tinyldp.aggregate([rounds / "r.tldp", tmp_path / "copy.tldp"])
    cli("aggregate", rounds / "r.tldp", "--save-state", tmp_path / "s.agg")
    with pytest.raises(ValueError, match="twice"):
        tinyldp.aggregate([tmp_path / "copy.tldp"], states=[tmp_path / "s.agg"])
    state = tinyldp.EpochSeries.deserialize((tmp_path / "s.agg").read_bytes())
    assert state.reports == 4500 and sorted(k for k in state.epochs()) == [0, 1, 2]


def test_a_cut_or_changed_file_is_refused_and_an_old_one_warned(rounds, tmp_path):
    data = (rounds / "r.tldp").read_bytes()
    info = tinyldp.report_file_info(str(rounds / "r.tldp"))
    start, end = info["header_bytes"], info["records_end"]
    record = 2 + info["first_record_bytes"]
    (tmp_path / "cut.tldp").write_bytes(data[:end - 10 * record])  # ten records and the trailer gone
    with pytest.raises(ValueError, match="cut short"):
        tinyldp.aggregate(tmp_path / "cut.tldp")
    dropped = data[:start] + data[start + record:]  # the first record gone, the trailer kept
    (tmp_path / "dropped.tldp").write_bytes(dropped)
    with pytest.raises(ValueError, match="records lost"):
        tinyldp.aggregate(tmp_path / "dropped.tldp")
    with pytest.raises(ValueError, match="records lost"):
        tinyldp.parse_report_file(dropped)
    old = data[:start - 10] + data[start:end]  # no promise, no trailer: as written before trailers
    (tmp_path / "old.tldp").write_bytes(old)
    with pytest.warns(UserWarning, match="no trailer"):
        series = tinyldp.aggregate(tmp_path / "old.tldp")
    assert series.reports == 4500
