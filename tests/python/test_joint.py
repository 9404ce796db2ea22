# SPDX-License-Identifier: Apache-2.0
"""Joint estimation from Python: the record-counts state (load, serialize, merge, pickle) and every
estimator and baseline giving `tinyldp joint --format json`'s numbers on the same file, with its
options; the truth's AVD; refusals with reasons."""
import pickle
import re

import numpy as np
import pytest

import tinyldp
from conftest import write_csv


@pytest.fixture(scope="module")
def records(tmp_path_factory, cli):
    """Three correlated columns (2, 3 and 2 values) of 6 000 rows, one record report per row."""
    d = tmp_path_factory.mktemp("joint")
    rng = np.random.default_rng(16)
    a = rng.integers(0, 2, size=6000)
    b = np.where(rng.random(6000) < 0.6, 2 * a, rng.integers(0, 3, size=6000))
    c = np.where(rng.random(6000) < 0.7, a, 1 - a)
    csv = write_csv(d / "records.csv", a=a, b=[["x", "y", "z"][v] for v in b], c=c)
    path = d / "records.tldpj"
    cli("joint", "simulate", "-i", csv, "-o", path, "--f", "0.25", "--p", "0.25", "--q", "0.75", "--seed", 3)
    truth = np.zeros(12)
    for i, j, k in zip(a, b, c):
        truth[i * 6 + j * 2 + k] += 1 / 6000
    return path, csv, truth


def test_every_estimator_is_the_clis(cli, records):
    path, csv, truth = records
    for options, keywords in [([], {}), (["--stop", "largest-cell", "--max-iterations", "50"],
                                         dict(stop="largest-cell", max_iterations=50)),
                              (["--delta", "1e-4", "--lambda", "0.01", "--threads", "1"],
                               dict(delta=1e-4, lambda_=0.01, threads=1)),
                              (["--prior-strength", "500"], dict(prior_strength=500))]:
        j = cli.json("joint", path, "-a", "a,b,c", "--truth", csv, *options)
        result = tinyldp.estimate_joint(str(path), ["a", "b", "c"], truth=truth, **keywords)
        assert result["cells"] == j["cells"] and result["attributes"] == j["attributes"] == ["a", "b", "c"]
        assert (result["reports"], result["patterns"]) == (j["reports"], j["patterns"])
        assert (result["epsilon_one"], result["epsilon_infinity"]) == (j["epsilon_one"], j["epsilon_infinity"])
        assert set(result["estimators"]) == set(j["estimators"])
        for name, theirs in j["estimators"].items():
            ours = result["estimators"][name]
            assert list(ours["estimate"]) == theirs["estimate"], (name, options)
            for key in ("iterations", "converged", "alive", "memory_bytes"):
                assert ours[key] == theirs[key], (name, key, options)
            assert ours["avd"] == pytest.approx(theirs["avd"], abs=1e-12), name
    frame = tinyldp.joint_dataframe(result)
    assert list(frame.index)[:2] == ["0|x|0", "0|x|1"] and list(frame.columns)[-1] == "true_value"
    assert frame["em"].sum() == pytest.approx(1)


def test_one_estimator_by_index_and_likelihood(records):
    path, _, _ = records
    counts = tinyldp.RecordCounts.load(str(path))
    run = tinyldp._native.estimate_joint(counts, [0, 2], "em", track_likelihood=True)
    ll = run["log_likelihood"]
    assert run["cells"] == 4 and len(ll) >= 2 and (np.diff(ll) >= -1e-9 * np.abs(ll[:-1])).all()
    assert tinyldp.estimate_joint(counts, [0, 2], "pairs")["estimators"].keys() == {"pairs", "uniform", "marginals"}


def test_map_prior_strength_on_the_cli(cli, records):
    path, csv, _ = records
    for bad in ["0", "-3", "nan", "inf", "12x", ""]:
        p = cli("joint", path, "-a", "a,b", "-E", "map", "--prior-strength", bad, expect=2)
        assert "--prior-strength" in p.stderr and "positive number of reports or 'cells'" in p.stderr, (bad, p.stderr)
    # cells (the default) is one report per cell: the same estimate as saying the count.
    default = cli.json("joint", path, "-a", "a,b", "-E", "map")["estimators"]["map"]["estimate"]
    assert cli.json("joint", path, "-a", "a,b", "-E", "map", "--prior-strength", "6")["estimators"]["map"]["estimate"] == default
    assert cli.json("joint", path, "-a", "a,b", "-E", "map", "--prior-strength", "600")["estimators"]["map"]["estimate"] != default


def test_plot(cli, records, tmp_path):
    path, csv, truth = records
    svg = tmp_path / "joint.svg"
    j = cli.json("joint", path, "-a", "a,b,c", "-E", "map", "--truth", csv, "--plot", svg)
    text = svg.read_text()
    assert text.startswith("<svg") or text.startswith("<?xml"), text[:80]
    assert "joint of a, b, c by map, AVD" in text and "6000 reports" in text
    # One bar per cell (12: no cut), each with its tooltip: estimate, marginals' product, truth.
    tips = re.findall(r"<title>([^<]*)</title>", text)
    assert [t.split(":")[0] for t in tips] == j["cells"], tips
    for tip, p, m, t in zip(tips, j["estimators"]["map"]["estimate"], j["estimators"]["marginals"]["estimate"], j["true_value"]):
        value, marg, true = (float(x) for x in re.findall(r"(?:: |marginals |true )([0-9.e-]+)", tip))
        assert (value, marg, true) == pytest.approx((p, m, t), rel=1e-3, abs=1e-6), tip
    assert "product of the marginals" in text and "cells largest" not in text
    # A joint of more cells than the chart holds: its 30 largest, said in the legend.
    rng = np.random.default_rng(5)
    wide = write_csv(tmp_path / "wide.csv", x=rng.integers(0, 8, 3000), y=rng.integers(0, 8, 3000))
    cli("joint", "simulate", "-i", wide, "--f", 0.2, "--seed", 3, "-o", tmp_path / "wide.tldpj")
    many = tmp_path / "many.svg"
    j = cli.json("joint", tmp_path / "wide.tldpj", "-a", "x,y", "-E", "em", "--plot", many)
    tips = [t.split(":")[0] for t in re.findall(r"<title>([^<]*)</title>", many.read_text())]
    largest = sorted(range(64), key=lambda c: -j["estimators"]["em"]["estimate"][c])[:30]
    assert len(tips) == 30 and set(tips) == {j["cells"][c] for c in largest}
    assert "the 30 of 64 cells largest in the estimate" in many.read_text()
    p = cli("joint", path, "-a", "a,b", "--plot", tmp_path / "no" / "such" / "dir.svg", expect=2)
    assert "cannot write" in p.stderr


def test_record_counts_state(records, tmp_path):
    path, _, _ = records
    counts = tinyldp.RecordCounts.load(str(path))
    assert counts.reports == 6000 and [a["name"] for a in counts.attributes] == ["a", "b", "c"]
    assert counts.attributes[1]["labels"] == ["x", "y", "z"] and counts.epsilon_infinity > counts.epsilon_one
    again = tinyldp.RecordCounts.deserialize(counts.serialize())
    again.merge(pickle.loads(pickle.dumps(counts)))
    assert again.reports == 12000 and again.patterns == counts.patterns
    again.save(str(tmp_path / "twice.tldpj"))
    assert tinyldp.RecordCounts.load(str(tmp_path / "twice.tldpj")).serialize() == again.serialize()
    doubled = tinyldp.estimate_joint(again, ["a", "b"], "em")["estimators"]["em"]["estimate"]
    assert list(doubled) == pytest.approx(list(tinyldp.estimate_joint(counts, ["a", "b"], "em")["estimators"]["em"]["estimate"]),
                                          abs=1e-6)


def test_refusals_say_why(records):
    path, _, _ = records
    with pytest.raises(ValueError, match="no attribute 'nosuch'"):
        tinyldp.estimate_joint(str(path), ["a", "nosuch"])
    with pytest.raises(ValueError, match="unknown joint estimator"):
        tinyldp.estimate_joint(str(path), ["a"], "bayes")
    with pytest.raises(ValueError, match="prior_strength must be a positive"):
        tinyldp.estimate_joint(str(path), ["a"], "map", prior_strength=0)
    with pytest.raises(ValueError, match="prior_strength is map's option"):
        tinyldp._native.estimate_joint(tinyldp.RecordCounts.load(str(path)), ["a"], "em", prior_strength=5)
    with pytest.raises(ValueError, match="stop must be"):
        tinyldp.estimate_joint(str(path), ["a"], "em", stop="never")
    with pytest.raises(ValueError, match="truth has"):
        tinyldp.estimate_joint(str(path), ["a"], truth=[1.0])
    with pytest.raises(ValueError, match="not a record-counts state"):
        tinyldp.RecordCounts.deserialize(b"TLDPJNT1")
