# SPDX-License-Identifier: Apache-2.0
"""tinyldp.dask on a LocalCluster with two workers: report files cut into byte ranges, each
aggregated by a task, the states merged in a tree — bit-identical to the single-process CLI
(`tinyldp aggregate FILES --save-state`), records of different lengths included."""
import numpy as np
import pytest

import tinyldp
import tinyldp.dask
from conftest import write_csv

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    # In-process workers (threads; the ranges are read without the GIL): starts in a second,
    # and nothing to spawn on a busy CI machine.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as c:
            yield c


@pytest.fixture(scope="module")
def shards(tmp_path_factory, cli, columns):
    """Three OUE shards with one label mapping (CLI-simulated), and a fourth written by the
    bindings whose records differ in length (some carry a device id)."""
    d = tmp_path_factory.mktemp("dask")
    edu = columns["education"]
    paths = []
    for k, part in enumerate(np.array_split(edu, 3)):
        write_csv(d / f"part{k}.csv", education=part)
        labels = ["--labels"] if k == 0 else ["--labels-from", f"{paths[0]}.labels"]
        cli("simulate", "-m", "oue", "-e", 1, "-d", 16, "-i", d / f"part{k}.csv", "-c", "education", *labels,
            "-o", d / f"part{k}.tldp", "--seed", 10 + k)
        paths.append(str(d / f"part{k}.tldp"))
    m = tinyldp.Mechanism("oue", 1, domain=16)
    mapping = tinyldp.LabelMapping.read(f"{paths[0]}.labels")
    values = mapping.encode(edu[:3000])
    plain = m.privatize(values, seed=20)
    with_ids = m.privatize(values, seed=21, device_ids=True)
    # 1504 records of 2 + 9 bytes and 1496 (a multiple of 11) of 2 + 13: the body divides by
    # 11, so the planner first tries the arithmetic cut, which is wrong.
    assert (m.report_bytes(), m.report_bytes(device_id=True)) == (9, 13)
    mixed = tinyldp.Reports([plain[i] for i in range(1504)] + [with_ids[i] for i in range(1504, 3000)])
    tinyldp.write_reports(d / "mixed.tldp", m, mixed, mapping)
    paths.append(str(d / "mixed.tldp"))
    return d, paths


def test_two_workers_give_the_clis_state_bit_for_bit(client, cli, shards):
    d, paths = shards
    j = cli.json("aggregate", *paths, "--labels", f"{paths[0]}.labels", "--postprocess", "norm-sub",
                 "--save-state", d / "cli.state")
    expected = (d / "cli.state").read_bytes()
    # Small ranges: many tasks per file, a three-level merge tree, and the mixed file re-planned.
    for partition_bytes in (4096, 1 << 20):
        result = tinyldp.dask.aggregate(paths, client=client, partition_bytes=partition_bytes, fan_in=3)
        assert result.serialize() == expected, partition_bytes
        assert result.reports == j["reports"] == 23000 and result.rejected == {}
        assert result.labels == tinyldp.LabelMapping.read(f"{paths[0]}.labels")
        e = result.estimate("norm-sub")
        assert list(e["estimate"]) == [item["estimate"] for item in j["items"]]
        assert list(e["standard_error"]) == [item["standard_error"] for item in j["items"]]
    # Both workers took part.
    assert len(client.scheduler_info()["workers"]) == 2


def test_the_plan_cuts_uniform_files_arithmetically_and_mixed_ones_exactly(shards):
    _, paths = shards
    info = tinyldp.report_file_info(paths[0])
    record = 2 + info["first_record_bytes"]
    plan = tinyldp.dask.plan_file(paths[0], 100 * record)
    assert [s for _, s, _ in plan] == list(range(info["header_bytes"], info["records_end"], 100 * record))
    assert plan[-1][2] == info["records_end"] == info["file_bytes"] - 26  # the trailer after the records
    # The mixed file's size divides by its first record's length, so the arithmetic cut is tried
    # and some range finds out it is wrong; the exact plan reads.
    guessed = tinyldp.dask.plan_file(paths[3], 4096)
    assert guessed != tinyldp.dask.exact_plan(paths[3], 4096)
    first_error = None
    for path, s, e in guessed:
        try:
            tinyldp._native.aggregate_range(path, s, e)
        except ValueError as error:
            first_error = error
            break
    assert isinstance(first_error, tinyldp.RangeNotAtRecords), first_error
    whole, _, _, _ = tinyldp._native.aggregate_range(paths[3])
    total = None
    for path, s, e in tinyldp.dask.exact_plan(paths[3], 4096):
        part, _, _, _ = tinyldp._native.aggregate_range(path, s, e)
        total = part if total is None else (total.merge(part) or total)
    assert ({e: a.serialize() for e, a in total.epochs().items()} ==
            {e: a.serialize() for e, a in whole.epochs().items()})


def test_a_shard_of_other_parameters_is_refused_naming_it(client, shards, tmp_path):
    _, paths = shards
    other = tinyldp.Mechanism("oue", 2, domain=16)
    reports, _ = tinyldp.simulate(np.arange(16), other, seed=1)
    tinyldp.write_report_file(str(tmp_path / "other.tldp"), other, reports)
    with pytest.raises(ValueError, match=r"other\.tldp.*different mechanisms or parameters"):
        tinyldp.dask.aggregate([paths[0], str(tmp_path / "other.tldp")], client=client)


def test_epochs_and_repeated_files_as_in_one_process(client, cli, shards, tmp_path):
    """Memoized reports of several epochs come back as the same TimeSeries as tinyldp.aggregate
    (every epoch's state bit for bit); a file given twice is refused; a cut file is refused."""
    _, paths = shards
    with pytest.raises(ValueError, match="twice"):
        tinyldp.dask.aggregate([paths[0], paths[0]], client=client, partition_bytes=4096)
    values = tmp_path / "v.txt"
    values.write_text("\n".join(str(i % 6) for i in range(900)) + "\n")
    cli("simulate", "-m", "l-grr", "-e", 2, "--epsilon-one", 1, "-d", 6, "-i", values, "-o", tmp_path / "g.tldp",
        "--rounds", 3, "--seed", 2)
    local = tinyldp.aggregate(tmp_path / "g.tldp")
    spread = tinyldp.dask.aggregate([str(tmp_path / "g.tldp")], client=client, partition_bytes=1024)
    assert isinstance(spread, tinyldp.TimeSeries) and sorted(spread.epochs) == [0, 1, 2]
    assert spread.serialize() == local.serialize()
    pooled = tinyldp.dask.aggregate([str(tmp_path / "g.tldp")], client=client, partition_bytes=1024, epochs="pool")
    assert pooled.reports == 2700
    data = (tmp_path / "g.tldp").read_bytes()
    (tmp_path / "cut.tldp").write_bytes(data[:-26])  # the trailer gone
    with pytest.raises(ValueError, match="cut short"):
        tinyldp.dask.aggregate([str(tmp_path / "cut.tldp")], client=client)


def test_rejected_reports_raise_unless_collected(client, tmp_path):
    m = tinyldp.Mechanism("oue", 1, domain=16)
    reports, _ = tinyldp.simulate(np.arange(16).repeat(4), m, seed=2)
    batch = [bytes(r) for r in reports]
    batch[5] = batch[5][:-1]
    path = str(tmp_path / "damaged.tldp")
    tinyldp.write_report_file(path, m, batch)
    with pytest.raises(tinyldp.RejectedReport, match=r"1 report\(s\) rejected \(truncated report: 1\)"):
        tinyldp.dask.aggregate(path, client=client)
    collected = tinyldp.dask.aggregate(path, client=client, rejected="collect")
    assert collected.rejected == {"truncated report": 1} and collected.reports == 63


@pytest.mark.parametrize("options", [["-m", "hh", "--branching", "8"], ["-m", "haar-hrr"]])
def test_range_mechanisms_give_the_clis_state_quantiles_and_range(client, cli, columns, tmp_path, options):
    """hh and haar-hrr (the counts of a tree's levels): two shards cut into many ranges merge to the
    CLI's state bit for bit, and give its quantiles and range."""
    paths = []
    for k, part in enumerate(np.array_split(np.asarray(columns["age"]), 2)):
        write_csv(tmp_path / f"age{k}.csv", age=part)
        cli("simulate", *options, "-e", 1, "--lo", 17, "--hi", 90, "-i", tmp_path / f"age{k}.csv", "-c", "age",
            "-o", tmp_path / f"age{k}.tldp", "--seed", 30 + k)
        paths.append(str(tmp_path / f"age{k}.tldp"))
    j = cli.json("aggregate", *paths, "--range", "20:40", "--save-state", tmp_path / "cli.state")
    result = tinyldp.dask.aggregate(paths, client=client, partition_bytes=4096, fan_in=3)
    assert result.serialize() == (tmp_path / "cli.state").read_bytes()
    q = result.aggregator.quantiles([0.5, 0.9, 0.95, 0.99])
    assert list(q["estimate"]) == [x["estimate"] for x in j["quantiles"]]
    assert list(result.aggregator.range(20, 40)["estimate"]) == [j["range"]["estimate"]]
