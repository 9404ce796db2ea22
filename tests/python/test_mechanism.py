# SPDX-License-Identifier: Apache-2.0
"""tinyldp.Mechanism: configured from keywords or a dict exactly as the CLI configures it (ε read
as the same exact decimal), refused with the collector's reasons, and pickled without loss."""
import json
import pickle
from decimal import Decimal

import pytest

import tinyldp


@pytest.mark.parametrize("text", ["1", "0.1", "2.5", "1e-1", "0.333", "20"])
def test_epsilon_as_text_or_number_is_the_clis(cli, text):
    plan = json.loads(cli("plan", "-m", "oue", "-e", text, "-d", 16, "--json").stdout)
    for given in (text, float(text), Decimal(text)):
        m = tinyldp.Mechanism("oue", given, domain=16)
        assert m.epsilon == plan["requested_epsilon"], given
        assert m.realized_epsilon == plan["realized_epsilon"], given
        assert m.probabilities == plan["probabilities"], given
        assert m.random_bits_per_report == plan["random_bits_per_report"]
    # The exact reading: 0.1 is rounded down to the 2^-32 grid, never up.
    assert tinyldp._native.parse_epsilon(text) == int(Decimal(text) * 2**32)


def test_configured_from_a_dict():
    config = {"name": "sd", "epsilon": "1", "lo": 17, "hi": 90, "levels": 8}
    m = tinyldp.Mechanism(**config)
    assert (m.name, m.kind, m.numeric, m.domain) == ("sd", "numeric", True, 8)
    assert m.parameters == {"lo": 17, "hi": 90, "levels": 8}
    assert list(m.item_values) == [17 + i * 73 / 7 for i in range(8)]
    d = tinyldp.Mechanism(**{"name": "dlaplace", "epsilon": 2, "lo": 0, "hi": 99, "sensitivity": 10})
    assert d.parameters == {"lo": 0, "hi": 99, "sensitivity": 10}
    assert d.local_epsilon > d.realized_epsilon  # Δ < W: any two inputs get the larger local ε
    assert list(d.item_values) == list(range(100)) and d.integer_items


@pytest.mark.parametrize("kwargs, message", [
    ({"name": "nosuch", "epsilon": 1}, "unknown mechanism \"nosuch\" (known: rr, krr"),
    ({"name": "oue", "epsilon": "1,5", "domain": 8}, "is not a decimal number"),
    ({"name": "oue", "epsilon": 25, "domain": 8}, "largest accepted epsilon, 20"),
    ({"name": "oue", "epsilon": 0, "domain": 8}, "epsilon must be positive"),
    ({"name": "oue", "domain": 8}, "epsilon is required for oue"),
    ({"name": "oue", "epsilon": 1}, "needs a domain"),
    ({"name": "sd", "epsilon": 1, "lo": 0, "hi": 10, "domain": 3}, "domain"),
    ({"name": "oue", "epsilon": 1, "domain": 8, "lo": 3}, "numeric mechanisms"),
    ({"name": "oue", "epsilon": 1, "domain": 8, "epsilon_one": "0.5"}, "memoized mechanisms"),
])
def test_refusals_say_why(kwargs, message):
    with pytest.raises(ValueError) as e:
        tinyldp.Mechanism(**kwargs)
    assert message in str(e.value), str(e.value)


def test_bad_types_are_type_errors():
    with pytest.raises(TypeError):
        tinyldp.Mechanism("oue", True, domain=8)
    with pytest.raises(TypeError):
        tinyldp.Mechanism("oue", [1], domain=8)


def test_memoized_mechanisms_take_epsilon_one_and_rappor_f_p_q():
    chain = tinyldp.Mechanism("l-oue", "2", epsilon_one="1", domain=32)
    assert chain.memoized and chain.epsilon_infinity == pytest.approx(2, abs=1e-6)
    assert chain.realized_epsilon <= 2
    rappor = tinyldp.Mechanism("rappor", f="0.5", p="0.5", q="0.75", domain=16)
    assert rappor.memoized and rappor.domain == 16
    with pytest.raises(ValueError, match="not a probability"):
        tinyldp.Mechanism("rappor", f="1.5", p="0.5", q="0.75", domain=16)
    with pytest.raises(ValueError, match="memo key"):
        chain.privatize([1, 2, 3], seed=1)


def test_every_mechanism_pickles_to_an_equal_one():
    configs = [
        dict(name="rr", epsilon=1), dict(name="krr", epsilon=2, domain=13), dict(name="sue", epsilon=0.5, domain=100),
        dict(name="oue", epsilon=1, domain=20), dict(name="blh", epsilon=1, domain=50),
        dict(name="olh", epsilon=2, domain=50), dict(name="hr", epsilon=1, domain=50),
        dict(name="sd", epsilon=1, lo=-100, hi=155, levels=5), dict(name="dlaplace", epsilon=1, lo=-8, hi=8, sensitivity=2),
        dict(name="she", epsilon=1, domain=16), dict(name="the", epsilon=1, domain=16),
        dict(name="rappor", f="0.5", p="0.5", q="0.75", domain=16),
        dict(name="l-sue", epsilon=2, epsilon_one=1, domain=32), dict(name="l-osue", epsilon=2, epsilon_one=1, domain=32),
        dict(name="l-oue", epsilon=2, epsilon_one=1, domain=32), dict(name="l-soue", epsilon=2, epsilon_one=1, domain=32),
        dict(name="l-grr", epsilon=2, epsilon_one=1, domain=12), dict(name="loloha", epsilon=2, epsilon_one=1, domain=50),
        dict(name="biloloha", epsilon=2, epsilon_one=1, domain=50),
        dict(name="1bitmean", epsilon=2, epsilon_one=1, lo=0, hi=100, grid_step=25),
        dict(name="dbitflip", epsilon=2, epsilon_one=1, lo=0, hi=100, grid_step=25, sampled_buckets=2),
        dict(name="pm", epsilon=2, lo=17, hi=90, levels=64), dict(name="hm", epsilon=2, lo=17, hi=90, levels=64),
        dict(name="sw", epsilon=2, lo=17, hi=90, levels=32), dict(name="hh", epsilon=2, lo=17, hi=90, branching=8),
        dict(name="haar-hrr", epsilon=2, lo=17, hi=90),
        dict(name="record", f="0.5", p="0.5", q="0.75", attribute_sizes=[3, 4, 2]),
        dict(name="spl-grr", epsilon=1, attribute_sizes=[3, 4, 2]), dict(name="spl-oue", epsilon=1, attribute_sizes=[3, 9]),
        dict(name="smp-grr", epsilon=1, attribute_sizes=[3, 5]), dict(name="smp-oue", epsilon=1, attribute_sizes=[3, 9]),
        dict(name="rsfd-grr", epsilon=1, attribute_sizes=[3, 4, 2]),
        dict(name="rsfd-oue-z", epsilon=1, attribute_sizes=[3, 9, 2]),
        dict(name="rsfd-oue-r", epsilon=1, attribute_sizes=[3, 9, 2]),
    ]
    names = {c["name"] for c in configs}
    for name in tinyldp.mechanism_names().split(", "):
        assert name in names, f"{name} has no case here"
    for c in configs:
        m = tinyldp.Mechanism(**c)
        copy = pickle.loads(pickle.dumps(m))
        assert copy == m and copy.header() == m.header() and copy.parameters == m.parameters, c
        assert copy != tinyldp.Mechanism("oue", 3, domain=20)
        assert copy.attribute_sizes == c.get("attribute_sizes", [])


def test_record_mechanisms_are_rows_of_the_table(cli):
    """The record rows (wire ids 22 … 29): listed by kind, configured by attribute sizes, their
    reports privatized a record per row, inspected and counted per attribute value — the same
    reports `tinyldp multi simulate --seed` makes, and their ε what `multi plan` prints."""
    assert tinyldp.mechanism_names("record").split(", ") == [
        "record", "spl-grr", "spl-oue", "smp-grr", "smp-oue", "rsfd-grr", "rsfd-oue-z", "rsfd-oue-r"]
    assert "record" not in tinyldp.mechanism_names("categorical").split(", ")
    m = tinyldp.Mechanism("rsfd-grr", 1, attribute_sizes=[3, 4, 2])
    assert (m.kind, m.record, m.memoized, m.id, m.domain) == ("record", True, False, 27, 9)
    assert m.parameters == {"attributes": 3} and m.attribute_sizes == [3, 4, 2]
    plan = cli("multi", "plan", "--domains", "3,4,2", "-e", "1", "-p", "rsfd-grr").stdout.splitlines()
    assert f"{m.realized_epsilon:.4f}"[:5] in plan[2], plan
    r = tinyldp.Mechanism("record", f="0.5", p="0.5", q="0.75", attribute_sizes=[2] * 16)
    assert (r.memoized, r.domain) == (True, 32)
    assert abs(r.epsilon_infinity - 35.2) < 0.05  # the NLTCS figure at f = 0.5
    values = [[0, 1, 1], [2, 3, 0], [1, 0, 1]]
    reports = m.privatize(values, seed=5)
    assert len(reports) == 3 and list(m.check(reports)) == [0, 0, 0]
    fields = m.inspect(reports[0])
    assert fields["mechanism"] == "rsfd-grr" and fields["attribute_sizes"] == [3, 4, 2]
    assert len(fields["values"]) == 3 and all(v < k for v, k in zip(fields["values"], [3, 4, 2]))
    a = tinyldp.Aggregator(m)
    assert a.ingest(reports) == {}
    assert list(a.support) == [sum(1 for f in map(m.inspect, reports) if f["values"][j] == v)
                               for j, k in enumerate([3, 4, 2]) for v in range(k)]
    with pytest.raises(ValueError, match="estimate them per attribute"):
        a.estimate()
    assert pickle.loads(pickle.dumps(m)) == m


def test_plan_prints_a_records_epsilons(cli):
    """`tinyldp plan -m <record protocol>`: ε of one report (and ε∞ with the memo) as `multi plan`
    and `joint plan` print them, exactly (the issue asks `plan` for each)."""
    for name in ["spl-grr", "spl-oue", "smp-grr", "smp-oue", "rsfd-grr", "rsfd-oue-z", "rsfd-oue-r"]:
        j = json.loads(cli("plan", "-m", name, "-e", "1", "--domains", "3,4,2", "--json").stdout)
        m = tinyldp.Mechanism(name, 1, attribute_sizes=[3, 4, 2])
        assert j["attribute_sizes"] == [3, 4, 2] and "epsilon_infinity" not in j, j
        assert j["epsilon_one"] == pytest.approx(m.local_epsilon, abs=1e-12), name
        row = [line for line in cli("multi", "plan", "--domains", "3,4,2", "-e", "1", "-p", name).stdout.splitlines()
               if line.startswith(name + " ")][0]
        assert 0 <= j["epsilon_one"] - float(row.split()[2].rstrip("…")) < 1e-4, (name, row)  # printed to 4 digits
        text = cli("plan", "-m", name, "-e", "1", "--domains", "3,4,2").stdout
        assert "no memo: every report spends its epsilon again" in text and "tinyldp multi plan" in text
    j = json.loads(cli("plan", "-m", "record", "--f", "0.5", "--p", "0.5", "--q", "0.75", "--domains", "2x16",
                       "--json").stdout)
    joint = cli("joint", "plan", "--domains", "2x16", "--f", "0.5").stdout.splitlines()[-1].split()
    assert 0 <= j["epsilon_one"] - float(joint[1].rstrip("…")) < 1e-4, (j, joint)
    assert 0 <= j["epsilon_infinity"] - float(joint[2].rstrip("…")) < 1e-4, (j, joint)
    assert abs(j["epsilon_infinity"] - 35.2) < 0.05


@pytest.mark.parametrize("kwargs, message", [
    (dict(name="spl-grr", epsilon=1), "give attribute_sizes"),
    (dict(name="spl-grr", epsilon=1, attribute_sizes=[3, 1]), "attribute 1 has 1 values"),
    (dict(name="smp-oue", epsilon=1, attribute_sizes=[3]), "smp-oue takes 2 to 64 attributes"),
    (dict(name="spl-oue", epsilon=1, attribute_sizes=[3, 4], domain=2), "domain is not a parameter of spl-oue"),
    (dict(name="record", f="0.5", attribute_sizes=[2, 2]), "record's p must be below q"),
    (dict(name="oue", epsilon=1, domain=4, attribute_sizes=[2, 2]), "attribute sizes are for the record mechanisms"),
])
def test_record_refusals_say_why(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tinyldp.Mechanism(**kwargs)


def test_records_privatize_rows_of_values():
    m = tinyldp.Mechanism("spl-oue", 1, attribute_sizes=[3, 9])
    with pytest.raises(ValueError, match="values must be 2-D, 2 columns"):
        m.privatize([0, 1], seed=1)
    with pytest.raises(ValueError, match="outside 0 … 8"):
        m.privatize([[0, 9]], seed=1)
    r = tinyldp.Mechanism("record", f="0.5", p="0.5", q="0.75", attribute_sizes=[2, 2])
    with pytest.raises(ValueError, match="memoized"):
        r.privatize([[0, 1]], seed=1)


@pytest.mark.parametrize("tolerance", ["1e-4", "1e-3", 0.01])
def test_precision_keywords_are_the_clis(cli, tolerance):
    plan = json.loads(cli("plan", "-m", "oue", "-e", 1, "-d", 1024, "--epsilon-tolerance", tolerance,
                          "--json").stdout)
    m = tinyldp.Mechanism("oue", 1, domain=1024, epsilon_tolerance=tolerance)
    assert m.probabilities == plan["probabilities"]
    assert m.realized_epsilon == plan["realized_epsilon"]
    assert m.random_bits_per_report == plan["random_bits_per_report"]
    assert m.random_bits_per_report < tinyldp.Mechanism("oue", 1, domain=1024).random_bits_per_report
    assert 1 - float(tolerance) <= m.realized_epsilon <= 1
    assert m.epsilon_tolerance == pytest.approx(float(tolerance), abs=2 ** -32)  # on the 2^-32 grid
    assert m.precision_bits == 64
    # The precision travels with the pickled configuration (the report-file header).
    assert pickle.loads(pickle.dumps(m)).probabilities == m.probabilities


def test_precision_bits_cap_every_probability():
    m = tinyldp.Mechanism("krr", 1, domain=16, precision_bits=8)
    assert m.random_bits_per_report <= 8 and m.precision_bits == 8
    assert tinyldp.Mechanism("oue", 1, domain=16).epsilon_tolerance == pytest.approx(2 ** -21)


@pytest.mark.parametrize("kwargs, message", [
    ({"name": "dlaplace", "epsilon": 1, "lo": 0, "hi": 9, "epsilon_tolerance": "1e-3"},
     "epsilon_tolerance is not a parameter of dlaplace"),
    ({"name": "oue", "epsilon": 1, "domain": 8, "precision_bits": 0}, "precision_bits must be 1 … 64"),
    ({"name": "oue", "epsilon": 1, "domain": 8, "epsilon_tolerance": 2}, "epsilon_tolerance must be below epsilon"),
])
def test_precision_misuse_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tinyldp.Mechanism(**kwargs)
