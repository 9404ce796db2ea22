# SPDX-License-Identifier: Apache-2.0
"""Aggregation and estimates: the bindings' numbers are the CLI's (JSON, which prints doubles
exactly) for every mechanism and post-processing, the saved states are byte-identical to
`aggregate --save-state`, merging is exact and refuses other mappings, and to_dataframe() is the
CLI's tidy CSV table from one call."""
import io

import numpy as np
import pandas as pd
import pytest

import tinyldp
from conftest import LABELS, write_csv

# (CLI options, column): every mechanism the collector configures by name and simulate takes.
CASES = {
    "rr": (["-m", "rr", "-e", "1"], "bit"),
    "krr": (["-m", "krr", "-e", "2", "-d", "8"], "category"),
    "sue": (["-m", "sue", "-e", "0.5", "-d", "8"], "category"),
    "oue": (["-m", "oue", "-e", "1", "-d", "16", "--labels"], "education"),
    "blh": (["-m", "blh", "-e", "1", "-d", "8"], "category"),
    "olh": (["-m", "olh", "-e", "2", "-d", "16", "--labels"], "education"),
    "hr": (["-m", "hr", "-e", "1", "-d", "8"], "category"),
    "she": (["-m", "she", "-e", "1", "-d", "8"], "category"),
    "the": (["-m", "the", "-e", "1", "-d", "8"], "category"),
    "sd": (["-m", "sd", "-e", "1", "--lo", "17", "--hi", "90", "--levels", "8"], "age"),
    "dlaplace": (["-m", "dlaplace", "-e", "2", "--lo", "17", "--hi", "90", "--sensitivity", "10"], "age"),
}


@pytest.fixture(scope="module")
def data(tmp_path_factory, columns):
    d = tmp_path_factory.mktemp("aggregate")
    cols = dict(columns, bit=columns["category"] % 2)
    write_csv(d / "people.csv", **cols)
    files = {}
    for name, (options, column) in CASES.items():
        files[name] = d / f"{name}.tldp"
    return d, cols, files


@pytest.fixture(scope="module")
def simulated(data, cli):
    d, _, files = data
    for seed, (name, (options, column)) in enumerate(CASES.items()):
        cli("simulate", *options, "-i", d / "people.csv", "-c", column, "-o", files[name], "--seed", seed)
    return files


def cli_estimates(cli, path, *extra):
    return cli.json("aggregate", path, *extra)


@pytest.mark.parametrize("name", CASES)
def test_estimates_are_the_clis(cli, simulated, name, tmp_path):
    path = simulated[name]
    state_file = tmp_path / "cli.state"
    for post, confidence in [("none", 0.95), ("norm-sub", 0.9), ("simplex", 0.99), ("clip", 0.5), ("em", 0.95)]:
        j = cli_estimates(cli, path, "--postprocess", post, "--confidence", confidence, "--save-state", state_file)
        result = tinyldp.aggregate(str(path))
        assert result.reports == j["reports"] and result.rejected == {}
        e = result.estimate(post, confidence)
        for ours, theirs in [("estimate", "estimate"), ("count", "count"), ("ci_low", "ci_low"),
                             ("ci_high", "ci_high"), ("unbiased_estimate", "unbiased_estimate"),
                             ("standard_error", "standard_error")]:
            assert list(e[ours]) == [item[theirs] for item in j["items"]], (name, post, ours)
        if result.mechanism.numeric:
            mu = result.mean(confidence)
            assert (mu["estimate"], mu["standard_error"], mu["ci_low"], mu["ci_high"]) == (
                j["mean"]["estimate"], j["mean"]["standard_error"], j["mean"]["ci_low"], j["mean"]["ci_high"])
        assert result.serialize() == state_file.read_bytes(), "the state is --save-state's, byte for byte"
        assert result.mechanism.realized_epsilon == j["realized_epsilon"]


def test_dataframe_is_the_clis_table(cli, simulated, data):
    d, cols, _ = data
    for name in ("oue", "sd", "krr"):
        options, column = CASES[name]
        csv = cli("aggregate", simulated[name], "--labels" if "--labels" in options else "--allow-rejected",
                  *([f"{simulated[name]}.labels"] if "--labels" in options else []), "--postprocess", "norm-sub",
                  "--truth", d / "people.csv", "--column", column).stdout
        theirs = pd.read_csv(io.StringIO(csv), keep_default_na=False, na_values=[""])
        ours = tinyldp.to_dataframe(str(simulated[name]), postprocess="norm-sub", truth=cols[column])
        assert list(ours.columns) == list(theirs.columns) == tinyldp.COLUMNS + ["true_value"]
        assert list(ours["kind"]) == list(theirs["kind"])
        if name == "oue":  # labels from the file next to the reports, the comma-holding one included
            assert list(ours["item"]) == list(theirs["item"]) and "green, light" in set(ours["item"])
        else:
            assert np.allclose(ours["item"].astype(float), theirs["item"], equal_nan=True)
        for c in tinyldp.COLUMNS[2:] + ["true_value"]:
            # The CLI prints 6 significant digits (counts: one decimal; a mean: 10 digits).
            assert np.allclose(ours[c].astype(float), theirs[c], rtol=5e-6, atol=0.05 if c == "count" else 1e-9,
                               equal_nan=True), (name, c)


def test_one_call_without_labels_gives_indices_and_warns(simulated):
    with pytest.warns(UserWarning, match="the items have labels"):
        frame = tinyldp.to_dataframe(tinyldp.Aggregator.deserialize(
            tinyldp.aggregate(str(simulated["oue"])).aggregator.serialize()))
    assert list(frame["item"]) == list(range(16))


def test_labels_that_are_not_the_reports_are_refused(simulated, tmp_path, columns):
    wrong = tinyldp.LabelMapping(sorted(LABELS))
    with pytest.raises(ValueError, match="is not the label mapping of these reports"):
        tinyldp.aggregate(str(simulated["oue"]), labels=wrong)
    # A labels file next to the reports that is not theirs is refused too.
    path = tmp_path / "edu.tldp"
    path.write_bytes(simulated["oue"].read_bytes())
    wrong.write(f"{path}.labels")
    with pytest.raises(ValueError, match="is not the label mapping"):
        tinyldp.to_dataframe(str(path))
    with pytest.raises(ValueError, match="labels are for categorical"):
        tinyldp.aggregate(str(simulated["sd"]), labels=wrong)


def test_shards_of_different_mappings_do_not_merge_and_of_one_mapping_do(cli, columns, tmp_path):
    """The halves-of-adult case: numbered by first appearance, two halves differ; merging their
    states is refused; with one shared mapping the merge is the one-pass result."""
    m = tinyldp.Mechanism("oue", 1, domain=16)
    edu = columns["education"]
    first, second = edu[:10000], edu[10000:]
    r1, l1 = tinyldp.simulate(first, m, seed=1)
    r2, l2 = tinyldp.simulate(second[::-1], m, seed=2)
    assert l1 != l2
    a1, a2 = tinyldp.Aggregator(m, l1.digest), tinyldp.Aggregator(m, l2.digest)
    a1.ingest(r1)
    a2.ingest(r2)
    with pytest.raises(ValueError, match="different label mappings"):
        a1.merge(a2)
    assert a1.reports == 10000, "a refused merge changes nothing"
    r2, same = tinyldp.simulate(second, m, seed=2, labels=l1)
    assert same is l1
    a2 = tinyldp.Aggregator(m, l1.digest)
    a2.ingest(r2)
    tinyldp.write_reports(tmp_path / "h1.tldp", m, r1, l1)
    tinyldp.write_reports(tmp_path / "h2.tldp", m, r2, l1)
    cli("aggregate", tmp_path / "h1.tldp", "--save-state", tmp_path / "s1")
    cli("aggregate", tmp_path / "h2.tldp", "--save-state", tmp_path / "s2")
    merged = tinyldp.aggregate(states=[tmp_path / "s1", (tmp_path / "s2").read_bytes()], labels=l1)
    assert merged.labels == l1
    a1.merge(a2)
    assert merged.aggregator.serialize() == a1.serialize()  # the one epoch's counts; the series adds the files
    both = tinyldp.aggregate([str(tmp_path / "h1.tldp"), str(tmp_path / "h2.tldp")])
    assert both.aggregator.serialize() == a1.serialize() and both.labels == l1
    truth = pd.Series(edu).value_counts(normalize=True)
    e = both.estimate("norm-sub")
    for i, label in enumerate(l1):
        assert abs(e["estimate"][i] - truth[label]) < 6 * e["standard_error"][i] + 0.01, label


def test_states_of_other_parameters_or_overflowing_counts_are_refused():
    a = tinyldp.Aggregator(tinyldp.Mechanism("oue", 1, domain=16))
    b = tinyldp.Aggregator(tinyldp.Mechanism("oue", 2, domain=16))
    with pytest.raises(ValueError, match="different mechanisms or parameters"):
        a.merge(b)
    with pytest.raises(ValueError, match="not a valid aggregate state"):
        tinyldp.Aggregator.deserialize(b"TLDPAGG3 and then nothing")
    with pytest.raises(ValueError, match="holds no reports"):
        a.estimate()


def test_numeric_estimates_are_unbiased_and_bins_sum_their_items(columns):
    age = columns["age"]
    m = tinyldp.Mechanism("dlaplace", 2, lo=17, hi=90, sensitivity=10)
    a = tinyldp.Aggregator(m)
    reports, _ = tinyldp.simulate(np.tile(age, 5), m, seed=11)
    a.ingest(reports)
    mu = a.mean()
    assert abs(mu["estimate"] - age.mean()) < 6 * mu["standard_error"]
    e = a.estimate()
    bins = a.estimate_bins([0, 10, 40])
    assert np.isclose(bins["unbiased_estimate"].sum(), 1.0)
    assert np.isclose(bins["unbiased_estimate"][0], e["unbiased_estimate"][:10].sum())
    with pytest.raises(ValueError, match="bin_start must ascend"):
        a.estimate_bins([0, 5, 5])
    with pytest.raises(ValueError, match="has no mean"):
        tinyldp.Aggregator(tinyldp.Mechanism("krr", 1, domain=4)).mean()


@pytest.mark.parametrize("name,domain", [("pm", 2048), ("hm", 2050)])
def test_pm_and_hm_give_the_mean_and_refuse_a_distribution(columns, name, domain):
    age = columns["age"]
    m = tinyldp.Mechanism(name, 4, lo=17, hi=90)
    assert m.mean_only and m.numeric and m.domain == domain
    a = tinyldp.Aggregator(m)
    reports, _ = tinyldp.simulate(age, m, seed=5)
    a.ingest(reports)
    mu = a.mean()
    assert abs(mu["estimate"] - age.mean()) < 6 * mu["standard_error"]
    frame = tinyldp.to_dataframe(a, truth=age)
    assert list(frame["kind"]) == ["mean"] and frame["true_value"][0] == pytest.approx(age.mean())
    for call in (a.estimate, lambda: a.estimate_bins([0, 10]), a.bayesian_update,
                 lambda: tinyldp.to_dataframe(a, postprocess="em")):
        with pytest.raises(ValueError, match="mean only, no distribution"):
            call()


def test_em_is_the_clis_with_its_options_and_a_distribution(cli, simulated):
    """aggregate --postprocess em with --em-tolerance / --em-max-iterations: the same numbers;
    the run on its own (bayesian_update) says how it went, and its likelihood never falls."""
    for name in ("dlaplace", "oue", "krr"):
        path = simulated[name]
        j = cli_estimates(cli, path, "--postprocess", "em", "--em-tolerance", "1e-5", "--em-max-iterations", "500")
        result = tinyldp.aggregate(str(path))
        e = result.estimate("em", em_tolerance=1e-5, em_max_iterations=500)
        assert list(e["estimate"]) == [item["estimate"] for item in j["items"]], name
        assert list(e["ci_low"]) == [item["ci_low"] for item in j["items"]], name
        assert (e["estimate"] >= 0).all() and abs(e["estimate"].sum() - 1) < 1e-9
        run = result.aggregator.bayesian_update(tolerance=1e-5, max_iterations=500, track_likelihood=True)
        assert list(run["estimate"]) == list(e["estimate"])
        assert (run["iterations"], run["converged"]) == (j["em_iterations"], j["em_converged"])
        assert run["counts"] == ("supports" if name == "oue" else "outputs")
        ll = run["log_likelihood"]
        assert len(ll) == run["iterations"] + 1 and (np.diff(ll) >= -1e-9 * np.abs(ll[:-1])).all()
    with pytest.raises(ValueError, match="em_max_iterations"):
        tinyldp.aggregate(str(simulated["krr"])).estimate("em", em_max_iterations=0)


def test_sw_distribution_is_ems_over_its_buckets(columns):
    """sw: the rows are its buckets (atom_values); EM, or EMS with em_smoothing= (the CLI's
    --em-smoothing); the table has a mean row and one row per bucket."""
    age = columns["age"]
    m = tinyldp.Mechanism("sw", 2, lo=17, hi=90)
    assert m.atoms == 74 and list(m.atom_values) == list(range(17, 91)) and m.domain > m.atoms
    a = tinyldp.Aggregator(m)
    reports, _ = tinyldp.simulate(age, m, seed=5)
    a.ingest(reports)
    e = a.estimate("em", em_smoothing=0.25)
    run = a.bayesian_update(smoothing=0.25)
    assert run["smoothing"] == 0.25 and run["converged"] and list(run["estimate"]) == list(e["estimate"])
    assert a.bayesian_update()["smoothing"] == 0
    plain = a.estimate("em")
    assert list(plain["estimate"]) != list(e["estimate"]) and abs(plain["estimate"].sum() - 1) < 1e-9
    truth = np.bincount(np.asarray(age) - 17, minlength=74) / len(age)
    def ks(f):
        return np.abs(np.cumsum(f) - np.cumsum(truth)).max()
    assert ks(e["estimate"]) < ks(a.estimate("none")["unbiased_estimate"])
    frame = tinyldp.to_dataframe(a, postprocess="em", truth=age)  # plain EM
    assert list(frame["kind"]) == ["mean"] + ["quantile"] * 4 + ["frequency"] * 74
    assert list(frame["item"][5:]) == list(range(17, 91)) and list(frame["item"][1:5]) == [0.5, 0.9, 0.95, 0.99]
    assert frame["true_value"][5:].to_numpy() == pytest.approx(truth)
    with pytest.raises(ValueError, match="em_smoothing must be in"):
        a.estimate("em", em_smoothing=0.5)
    # The SW paper's stopping rule, as the CLI's --em-likelihood-tolerance: the same EM, stopped at
    # the first step that gains less than 10⁻³ in log-likelihood (fewer steps, still converged).
    paper = a.bayesian_update(likelihood_tolerance=1e-3)
    assert paper["converged"] and paper["iterations"] < a.bayesian_update()["iterations"]
    assert list(a.estimate("em", em_likelihood_tolerance=1e-3)["estimate"]) == list(paper["estimate"])
    with pytest.raises(ValueError, match="em_likelihood_tolerance must be at least 0"):
        a.estimate("em", em_likelihood_tolerance=-1)
    k = tinyldp.Aggregator(tinyldp.Mechanism("krr", 2, domain=4))
    k.ingest(tinyldp.simulate(np.arange(400) % 4, k.mechanism, seed=1)[0])
    with pytest.raises(ValueError, match="categories have no order"):
        k.estimate("em", em_smoothing=0.25)


@pytest.mark.parametrize("options, keywords", [
    (["-m", "l-osue", "-e", "2", "--epsilon-one", "1", "-d", "8"], dict(name="l-osue", epsilon=2, epsilon_one=1, domain=8)),
    (["-m", "rappor", "--f", "0.5", "--p", "0.5", "--q", "0.75", "-d", "8"],
     dict(name="rappor", f="0.5", p=0.5, q="0.75", domain=8)),
])
def test_memoized_reports_aggregate_as_in_the_cli(cli, data, options, keywords, tmp_path):
    """Files of the memoized mechanisms (header version 4), simulated by the CLI with a fleet key:
    the bindings read the same configuration and give the CLI's estimates and state."""
    d, _, _ = data
    path = tmp_path / "memo.tldp"
    cli("simulate", *options, "-i", d / "people.csv", "-c", "category", "-o", path,
        "--fleet-key", tmp_path / "fleet.key", "--seed", 5)
    j = cli.json("aggregate", path, "--save-state", tmp_path / "cli.state")
    result = tinyldp.aggregate(str(path))
    assert result.mechanism == tinyldp.Mechanism(**keywords) and result.mechanism.memoized
    assert result.serialize() == (tmp_path / "cli.state").read_bytes()
    assert list(result.estimate()["estimate"]) == [item["estimate"] for item in j["items"]]


def test_hh_tree_ranges_and_quantiles_are_the_clis(cli, data, tmp_path):
    """hh: the consistent tree's leaves, mean, quantiles and a range from the bindings are the
    CLI's numbers for every post-processing it has; em is refused with the reason (a report is a
    level's node); a level without reports is refused too."""
    d, cols, _ = data
    path = tmp_path / "hh.tldp"
    cli("simulate", "-m", "hh", "-e", "1", "--lo", "17", "--hi", "90", "--branching", "8", "-i", d / "people.csv",
        "-c", "age", "-o", path, "--seed", 3)
    result = tinyldp.aggregate(str(path))
    assert result.mechanism == tinyldp.Mechanism("hh", 1, lo=17, hi=90, branching=8)
    assert result.mechanism.atoms == 74 and result.mechanism.domain > 74
    for post in ("none", "norm-sub", "simplex", "clip"):
        j = cli.json("aggregate", path, "--postprocess", post, "--range", "20:40", "--quantiles", "0.25,0.5,0.9")
        e = result.estimate(post)
        for column in ("estimate", "standard_error", "ci_low", "ci_high", "unbiased_estimate"):
            assert list(e[column]) == [item[column] for item in j["items"]], (post, column)
        q = result.aggregator.quantiles([0.25, 0.5, 0.9], post)
        assert list(q["estimate"]) == [x["estimate"] for x in j["quantiles"]]
        assert list(q["ci_low"]) == [x["ci_low"] for x in j["quantiles"]]
        r = result.aggregator.range(20, 40, post)
        assert list(r["estimate"]) == [j["range"]["estimate"]] and list(r["standard_error"]) == [j["range"]["standard_error"]]
        assert result.mean()["estimate"] == j["mean"]["estimate"]
    age = np.asarray(cols["age"])
    truth = np.mean((age >= 20) & (age <= 40))
    r = result.aggregator.range(20, 40)
    assert abs(r["unbiased_estimate"][0] - truth) < 5 * r["standard_error"][0]
    with pytest.raises(ValueError, match="em is not available"):
        result.estimate("em")
    few = tinyldp.Aggregator(result.mechanism)
    few.ingest(tinyldp.simulate(age[:2], result.mechanism, seed=1)[0])
    with pytest.raises(ValueError, match="has no reports"):
        few.estimate("none")
