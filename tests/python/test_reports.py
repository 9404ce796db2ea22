# SPDX-License-Identifier: Apache-2.0
"""Reports and report files: the bindings' simulate makes the CLI's reports byte for byte, files
read from disk or from bytes give the same records, every rejection has the CLI's reason, and a
byte range of a file is read only when it is cut at record boundaries."""
import json

import numpy as np
import pytest

import tinyldp


def test_simulate_makes_the_clis_reports(cli, csv_file, columns, tmp_path):
    oue = tinyldp.Mechanism("oue", "1", domain=16)
    out = tmp_path / "edu.tldp"
    cli("simulate", "-m", "oue", "-e", "1", "-d", 16, "-i", csv_file, "-c", "education", "--labels", "-o", out,
        "--seed", 7, "--device-ids", "--epoch", 3)
    reports, labels = tinyldp.simulate(columns["education"], oue, seed=7, device_ids=True, epoch=3)
    f = tinyldp.read_report_file(str(out))
    assert f.mechanism == oue and len(f.reports) == len(reports) == 20000
    assert np.array_equal(f.reports.data, reports.data) and np.array_equal(f.reports.offsets, reports.offsets)
    # The mapping numbered by first appearance is the CLI's, file and digest alike.
    assert labels == tinyldp.LabelMapping.read(f"{out}.labels")
    assert f.labels_digest == labels.digest
    with open(f"{out}.labels", "rb") as labels_file:
        import hashlib
        assert hashlib.sha256(labels_file.read()).digest() == labels.digest

    sd = tinyldp.Mechanism("sd", 1, lo=17, hi=90, levels=8)
    cli("simulate", "-m", "sd", "-e", 1, "--lo", 17, "--hi", 90, "--levels", 8, "-i", csv_file, "-c", "age",
        "-o", tmp_path / "age.tldp", "--seed", 42)
    reports, mapping = tinyldp.simulate(columns["age"], sd, seed=42)
    assert mapping is None
    assert tinyldp.read_report_file(str(tmp_path / "age.tldp")).reports.data.tobytes() == reports.data.tobytes()


def test_files_written_by_the_bindings_read_in_the_cli(cli, columns, tmp_path):
    m = tinyldp.Mechanism("olh", 2, domain=16)
    reports, labels = tinyldp.simulate(columns["education"][:300], m, seed=3, cohort=9)
    path = tmp_path / "olh.tldp"
    tinyldp.write_reports(path, m, reports, labels)
    lines = cli("inspect", "--json", path).stdout.splitlines()
    assert len(lines) == 300
    for i in (0, 1, 299):
        assert json.loads(lines[i]) == {"record": i + 1, **m.inspect(reports[i])}
    assert m.inspect(reports[0])["cohort"] == 9
    # The bytes of the file parse to the same records.
    parsed = tinyldp.parse_report_file(path.read_bytes())
    assert parsed.labels_digest == labels.digest and parsed.reports.data.tobytes() == reports.data.tobytes()


def test_reports_from_arrays_lists_and_bytes():
    m = tinyldp.Mechanism("krr", 1, domain=8)
    r, _ = tinyldp.simulate(np.arange(8).repeat(10), m, seed=1)
    as_matrix = r.matrix()
    assert as_matrix.shape == (80, m.report_bytes()) and as_matrix.base is not None
    as_list = [r[i] for i in range(len(r))]
    for given in (as_matrix, as_list, tinyldp.Reports(as_list)):
        a = tinyldp.Aggregator(m)
        assert a.ingest(given) == {} and a.reports == 80
    one = tinyldp.Aggregator(m)
    one.ingest(r[5])
    assert one.reports == 1 and r[-1] == as_list[-1]
    with pytest.raises(IndexError):
        r[80]
    mixed = tinyldp.Reports([r[0], m.privatize([1], seed=1, device_ids=True)[0]])
    with pytest.raises(ValueError, match="differ in length"):
        mixed.matrix()


def test_rejections_have_the_clis_reasons(cli, tmp_path):
    m = tinyldp.Mechanism("krr", 1, domain=8)
    r, _ = tinyldp.simulate(np.arange(8).repeat(50), m, seed=2)
    reports = [bytearray(r[i]) for i in range(len(r))]
    reports[3][3] ^= 0xFF          # the parameter digest
    reports[10] = reports[10][:-1]  # truncated
    reports[20][1] = 99             # another mechanism's id
    codes = m.check([bytes(x) for x in reports])
    assert [tinyldp.PARSE_ERRORS[c] for c in codes[[3, 10, 20]]] == [
        "parameter digest mismatch (other epsilon, domain or precision)", "truncated report",
        "report of another mechanism"]
    assert (codes != 0).sum() == 3
    a = tinyldp.Aggregator(m)
    rejected = a.ingest([bytes(x) for x in reports], rejected="collect")
    assert sum(rejected.values()) == 3 and a.reports == 397
    path = tmp_path / "damaged.tldp"
    tinyldp.write_report_file(str(path), m, [bytes(x) for x in reports])
    stderr = cli("aggregate", path, expect=3).stderr
    for reason, count in rejected.items():
        assert f"rejected {count} report(s): {reason}" in stderr
    assert m.inspect(bytes(reports[3])) == {"rejected": tinyldp.PARSE_ERRORS[codes[3]]}


def test_broken_files_say_why(tmp_path):
    m = tinyldp.Mechanism("oue", 1, domain=16)
    r, _ = tinyldp.simulate(np.arange(16), m, seed=1)
    path = tmp_path / "r.tldp"
    tinyldp.write_report_file(str(path), m, r)
    data = path.read_bytes()
    (tmp_path / "cut.tldp").write_bytes(data[:-3])
    with pytest.raises(ValueError, match="cut short: the file promised a trailer"):
        tinyldp.read_report_file(str(tmp_path / "cut.tldp"))
    with pytest.raises(ValueError, match="cut short: the file promised a trailer"):
        tinyldp.parse_report_file(data[:-3])
    old = data[:40] + data[50:-26]  # as written before trailers (no promise, no trailer), then cut in a record
    with pytest.raises(ValueError, match="truncated record at byte"):
        tinyldp.parse_report_file(old[:-3])
    with pytest.raises(ValueError, match="bad magic"):
        tinyldp.parse_report_file(b"not a report file at all")
    with pytest.raises(FileNotFoundError, match="cannot open .*nosuch.tldp: No such file"):
        tinyldp.read_report_file(str(tmp_path / "nosuch.tldp"))
    big = bytearray(data)
    big[50:52] = (5000).to_bytes(2, "little")  # a record longer than any OUE report (after the promise)
    with pytest.raises(ValueError, match="declares 5000 bytes, more than any report"):
        tinyldp.parse_report_file(bytes(big))


def test_byte_ranges_split_only_at_record_boundaries(tmp_path):
    m = tinyldp.Mechanism("krr", 1, domain=8)
    plain, _ = tinyldp.simulate(np.arange(8).repeat(100), m, seed=4)
    with_ids = m.privatize(np.arange(8).repeat(100), seed=5, device_ids=True)  # 4 bytes longer
    mixed = tinyldp.Reports([plain[i] for i in range(400)] + [with_ids[i] for i in range(800)] +
                            [plain[i] for i in range(400, 800)])
    path = str(tmp_path / "mixed.tldp")
    tinyldp.write_report_file(path, m, mixed)
    whole, rejected, records, digest = tinyldp._native.aggregate_range(path)
    assert (rejected, records, whole.reports) == ({}, 1600, 1600)
    assert tinyldp.report_file_info(path)["trailer"] == digest and whole.sources == [(digest[1], None)]
    starts = tinyldp._native.record_boundaries(path, 5)
    assert len(starts) == 5 and starts[0] == tinyldp.report_file_info(path)["header_bytes"]
    ends = starts[1:] + [tinyldp.report_file_info(path)["records_end"]]
    total = tinyldp.EpochSeries(m)
    for s, e in zip(starts, ends):
        part, _, _, _ = tinyldp._native.aggregate_range(path, s, e)
        total.merge(part)
    assert total.add_source(digest[1])  # the ranges make up the file: the client records it
    assert total.serialize() == whole.serialize()
    # A cut one byte off a boundary: the range's last record runs past its end.
    with pytest.raises(tinyldp.RangeNotAtRecords, match="does not end at a record boundary"):
        tinyldp._native.aggregate_range(path, starts[0], starts[2] + 1)
    with pytest.raises(ValueError, match="not within the records"):
        tinyldp._native.aggregate_range(path, 3, starts[1])
