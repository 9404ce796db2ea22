# SPDX-License-Identifier: Apache-2.0
"""The `tinyldp` command with the record mechanisms as rows of the collector's table (wire ids
22 … 29): a raw capture of a fleet's serial frames goes through `wrap -m <protocol> --domains …`
into a report file (header version 5), `inspect` says what each report is (mechanism, attribute
sizes, ε, what it holds), and `multi ingest` / `joint ingest` read that report file — with or
without a --schema — into exactly the counts the simulation made, as they read framed reports;
the refusals name what is wrong (a record file given to aggregate, a record mechanism given to
plan or simulate, --domains missing or on a single attribute, a report file of another
schema, framed reports without a schema); `multi` writes aggregate's names (item, estimate, count,
ci_low, ci_high, unbiased_estimate, standard_error, true_value) with intervals in text, JSON and
CSV; `multi merge` and `joint merge` add shards up to the whole and refuse a file given twice or a
copy of one."""
import json
import os
import random
import struct
import tempfile
import zlib
from cli_harness import check, finish, run, report_file, split_report_file

work = tempfile.mkdtemp(prefix="tinyldp-records-")


def path(name):
    return os.path.join(work, name)


def capture_of(framed, report_bytes, noise=b"\x00boot\n"):
    """The framed wire reports (all report_bytes long) as a UART capture: a5 5a, u16 length,
    the report, CRC-32 of length and report; noise before the first frame."""
    data = open(framed, "rb").read()
    check(len(data) % report_bytes == 0, f"{framed}: {len(data)} bytes of {report_bytes}-byte reports")
    out = bytearray(noise)
    for at in range(0, len(data), report_bytes):
        frame = b"\xa5\x5a" + struct.pack("<H", report_bytes) + data[at:at + report_bytes]
        out += frame + struct.pack("<I", zlib.crc32(frame[2:]))
    return bytes(out)


# A table of three attributes: colour (3 values), size (4), flag (2).
rng = random.Random(7)
rows = [(rng.choice("rgb"), rng.choice(["s", "m", "l", "xl"]), rng.choice("yn")) for _ in range(3000)]
with open(path("t.csv"), "w") as f:
    f.write("colour,size,flag\n" + "".join(",".join(r) + "\n" for r in rows))

# --- multi: spl-grr (values) and smp-oue (sampled index, bits) --------------------------------
for protocol, report_bytes in (("spl-grr", 7 + 1), ("smp-oue", 7 + 2)):
    run("multi", "simulate", "-i", path("t.csv"), "-p", protocol, "-e", "1", "--seed", "3",
        "--framed", path(protocol + ".bin"), "-o", path(protocol + ".tldpm"))
    with open(path(protocol + ".uart"), "wb") as f:
        f.write(capture_of(path(protocol + ".bin"), report_bytes))
    mech = ["-m", protocol, "-e", "1", "--domains", "3,4,2"]
    p = run("wrap", path(protocol + ".uart"), *mech, "-o", path(protocol + ".tldp"))
    check("3000 report(s) written" in p.stderr and "domains 3,4,2" in p.stderr, f"wrap of {protocol}: {p.stderr}")
    head = open(path(protocol + ".tldp"), "rb").read(8)
    check(head == b"TLDPREP5", f"{protocol}'s report file has header version 5: {head}")

    # inspect: every report says what it is.
    p = run("inspect", path(protocol + ".tldp"), "--json")
    lines = [json.loads(line) for line in p.stdout.splitlines()]
    check(len(lines) == 3000, f"inspect {protocol}: {len(lines)} lines")
    first = lines[0]
    check(first["mechanism"] == protocol and first["attribute_sizes"] == [3, 4, 2]
          and abs(first["epsilon_per_report"] - 1) < 1e-6, f"inspect {protocol}: {first}")
    if protocol == "spl-grr":
        check(all(len(j["values"]) == 3 and j["values"][0] < 3 and j["values"][1] < 4 for j in lines),
              "spl-grr: a value per attribute, within its domain")
    else:
        sampled = [j["sampled"] for j in lines]
        check(set(sampled) == {0, 1, 2}, f"smp-oue samples every attribute: {set(sampled)}")
        check(all(f"bits_set_{j['sampled']}" in j for j in lines), "smp-oue: the sampled attribute's bits")
        check(all(sum(k.startswith("bits_set_") for k in j) == 1 for j in lines), "smp-oue: one attribute a report")
    p = run("inspect", path(protocol + ".tldp"))
    check(p.stdout.startswith(path(protocol + ".tldp") + ' #1 mechanism="' + protocol + '" attribute_sizes=[3,4,2]'),
          f"inspect's text: {p.stdout[:120]}")

    # ingest of the report file: the simulation's counts, byte for byte, with its schema; without
    # it the same counts under attributes 0, 1, 2.
    run("multi", "ingest", path(protocol + ".tldp"), "--schema", path(protocol + ".tldpm"), "-o", path("a.tldpm"))
    check(open(path("a.tldpm"), "rb").read() == open(path(protocol + ".tldpm"), "rb").read(),
          f"{protocol}: the report file counts as the simulation did")
    run("multi", "ingest", path(protocol + ".bin"), "--schema", path(protocol + ".tldpm"), "-o", path("b.tldpm"))
    check(open(path("b.tldpm"), "rb").read() == open(path(protocol + ".tldpm"), "rb").read(),
          f"{protocol}: framed reports count the same")
    run("multi", "ingest", path(protocol + ".tldp"), "-o", path("c.tldpm"))
    named = json.loads(run("multi", path(protocol + ".tldpm"), "-f", "json").stdout)
    numbered = json.loads(run("multi", path("c.tldpm"), "-f", "json").stdout)
    check([a["name"] for a in numbered["attributes"]] == ["0", "1", "2"], f"unnamed attributes: {numbered}")
    check([[i["estimate"] for i in a["items"]] for a in numbered["attributes"]] ==
          [[i["estimate"] for i in a["items"]] for a in named["attributes"]],
          f"{protocol}: the same estimates without the schema's names")

    # Refusals with their reasons.
    p = run("aggregate", path(protocol + ".tldp"), expect=2)
    check("record of 3 attributes" in p.stderr and "tinyldp multi" in p.stderr, f"aggregate refuses: {p.stderr}")
    p = run("multi", "ingest", path(protocol + ".bin"), "-o", path("x.tldpm"), expect=2)
    check("give --schema" in p.stderr, f"framed reports need a schema: {p.stderr}")
    check(not os.path.exists(path("x.tldpm")), "nothing written")

# A report file of another schema, and a damaged report: refused, nothing written.
p = run("multi", "ingest", path("spl-grr.tldp"), "--schema", path("smp-oue.tldpm"), "-o", path("x.tldpm"), expect=2)
check("holds reports of spl-grr, epsilon 1, domains 3,4,2, not of the schema's smp-oue" in p.stderr,
      f"another schema: {p.stderr}")
header, records = split_report_file(open(path("spl-grr.tldp"), "rb").read())
bad = bytearray(records[5])
bad[7] |= 0x3  # report 6's colour (2 bits) holds 3 of 3
records[5] = bytes(bad)
open(path("bad.tldp"), "wb").write(report_file(header, records))  # its trailer vouches for it: the report is refused
p = run("multi", "ingest", path("bad.tldp"), "-o", path("x.tldpm"), expect=2)
check("record 6: value outside the domain" in p.stderr and "5 reports before it were good" in p.stderr,
      f"a bad report: {p.stderr}")
check(not os.path.exists(path("x.tldpm")), "nothing written")
p = run("inspect", path("bad.tldp"), expect=3)
check('#6 rejected="value outside the domain"' in p.stdout, "inspect marks the bad report")

# Mechanism options: --domains is the records', and only theirs.
p = run("plan", "-m", "spl-grr", "-e", "1", "--domains", "3,4,2")
check("spl-grr, epsilon 1, domains 3,4,2" in p.stdout and "tinyldp multi plan" in p.stdout,
      f"plan prints a record protocol's epsilon and points to multi plan: {p.stdout}")
p = run("simulate", "-m", "record", "--f", "0.5", "--p", "0.5", "--q", "0.75", "--domains", "2x3",
        "-i", path("t.csv"), "-o", path("x.tldp"), expect=2)
check("use tinyldp joint" in p.stderr, f"simulate refuses: {p.stderr}")
p = run("wrap", path("spl-grr.uart"), "-m", "spl-grr", "-e", "1", "-o", path("x.tldp"), expect=2)
check("spl-grr needs --domains" in p.stderr, f"--domains missing: {p.stderr}")
p = run("wrap", path("spl-grr.uart"), "-m", "oue", "-e", "1", "--domains", "3", "-o", path("x.tldp"), expect=2)
check("--domains is for the record mechanisms" in p.stderr, f"--domains on oue: {p.stderr}")
p = run("wrap", path("spl-grr.uart"), "-m", "smp-grr", "-e", "1", "--domains", "3", "-o", path("x.tldp"), expect=2)
check("smp-grr takes 2 to 64 attributes" in p.stderr, f"one attribute for smp: {p.stderr}")
p = run("--help")
check("record, spl-grr, spl-oue, smp-grr, smp-oue, rsfd-grr, rsfd-oue-z, rsfd-oue-r" in p.stdout,
      "--help lists the record mechanisms")

# --- multi speaks aggregate's vocabulary: the same names, intervals everywhere ----------------
VOCABULARY = ["item", "count", "estimate", "ci_low", "ci_high", "unbiased_estimate", "standard_error", "true_value"]
run("simulate", "-m", "krr", "-e", "1", "-d", "4", "-i", path("t.csv"), "-c", "size", "--labels", "--seed", "5",
    "-o", path("size.tldp"))
agg = json.loads(run("aggregate", path("size.tldp"), "--truth", path("t.csv"), "-c", "size", "--labels",
                     path("size.tldp.labels"), "-f", "json").stdout)
agg_csv = run("aggregate", path("size.tldp"), "--truth", path("t.csv"), "-c", "size", "--labels",
              path("size.tldp.labels")).stdout.splitlines()[0]
check(sorted(agg["items"][0]) == sorted(VOCABULARY), f"aggregate's items: {sorted(agg['items'][0])}")
z95 = 1.959963984540054
truth = {c: {} for c in range(3)}
for r in rows:
    for c in range(3):
        truth[c][r[c]] = truth[c].get(r[c], 0) + 1 / len(rows)
j = json.loads(run("multi", path("smp-oue.tldpm"), "--truth", path("t.csv"), "-f", "json").stdout)
check(j["confidence"] == 0.95 and [a["name"] for a in j["attributes"]] == ["colour", "size", "flag"],
      f"multi JSON: {list(j)}")
for c, a in enumerate(j["attributes"]):
    check(a["reports"] > 800, f"smp-oue: each attribute sampled by about a third of 3000: {a['reports']}")
    for i in a["items"]:
        check(sorted(i) == sorted(VOCABULARY), f"multi's items have aggregate's names: {sorted(i)}")
        check(i["unbiased_estimate"] == i["estimate"], "multi: no post-processing")
        check(abs(i["count"] - i["estimate"] * a["reports"]) < 1e-6 * a["reports"], f"count = estimate x n_j: {i}")
        check(abs((i["ci_high"] - i["ci_low"]) - 2 * z95 * i["standard_error"]) < 1e-9, f"a 95 % normal interval: {i}")
        check(abs(i["estimate"] - truth[c][i["item"]]) <= 6 * i["standard_error"], f"within 6 SE of the truth: {i}")
        check(i["true_value"] == truth[c][i["item"]] or abs(i["true_value"] - truth[c][i["item"]]) < 1e-12,
              f"true_value: {i}")
wide = json.loads(run("multi", path("smp-oue.tldpm"), "--confidence", "0.99", "-f", "json").stdout)
check(all(w["ci_high"] - w["ci_low"] > i["ci_high"] - i["ci_low"]
          for wa, a in zip(wide["attributes"], j["attributes"]) for w, i in zip(wa["items"], a["items"])),
      "--confidence 0.99: wider intervals")
lines = run("multi", path("smp-oue.tldpm"), "--truth", path("t.csv"), "-f", "csv").stdout.splitlines()
check(lines[0] == "attribute," + agg_csv, f"multi's CSV is aggregate's after `attribute`: {lines[0]} / {agg_csv}")
check(len(lines) == 1 + 3 + 4 + 2 and all(line.split(",")[1] == "frequency" for line in lines[1:]),
      f"one row per value: {lines}")
text = run("multi", path("smp-oue.tldpm")).stdout
check("95 % interval" in text and text.count("[") >= 9, f"multi's text shows intervals: {text[:300]}")
for bad, reason, status in ((["-f", "xml"], "xml not in {text,json,csv}", 1),
                            (["--confidence", "1.5"], "--confidence must be in (0, 1)", 2)):
    p = run("multi", path("smp-oue.tldpm"), *bad, expect=status)
    check(reason in p.stderr, f"multi {bad}: {p.stderr.strip()}")

# --- joint: record (id 22), memoized -----------------------------------------------------------
run("joint", "simulate", "-i", path("t.csv"), "--f", "0.5", "--seed", "4", "--framed", path("r.bin"),
    "-o", path("r.tldpj"))
with open(path("r.uart"), "wb") as f:
    f.write(capture_of(path("r.bin"), 7 + 2))  # 9 bits
mech = ["-m", "record", "--f", "0.5", "--p", "0.5", "--q", "0.75", "--domains", "3,4,2"]
p = run("wrap", path("r.uart"), *mech, "-o", path("r.tldp"))
check("record, epsilon-one" in p.stderr, f"wrap of records: {p.stderr}")
j = json.loads(run("inspect", path("r.tldp"), "--json").stdout.splitlines()[0])
check(j["mechanism"] == "record" and j["attribute_sizes"] == [3, 4, 2] and j["epsilon_infinity"] > j["epsilon_one"] > 0
      and all(f"bits_set_{a}" in j for a in range(3)), f"inspect record: {j}")
run("joint", "ingest", path("r.tldp"), "--schema", path("r.tldpj"), "-o", path("a.tldpj"))
check(open(path("a.tldpj"), "rb").read() == open(path("r.tldpj"), "rb").read(),
      "record: the report file counts as the simulation did")
p = run("joint", "ingest", path("r.tldp"), "-o", path("b.tldpj"))
check("counted 3000 record reports" in p.stdout, f"joint ingest without a schema: {p.stdout}")
p = run("joint", path("b.tldpj"), "-a", "0,2", "-E", "em", "-f", "json")
check(json.loads(p.stdout)["attributes"] == ["0", "2"], "the attributes by number")
p = run("joint", "ingest", path("spl-grr.tldp"), "-o", path("x.tldpj"), expect=2)
check("not of record (wire id 22)" in p.stderr, f"joint ingest of spl-grr reports: {p.stderr}")
p = run("multi", "ingest", path("r.tldp"), "-o", path("x.tldpm"), expect=2)
check("not of a multi-attribute protocol" in p.stderr, f"multi ingest of records: {p.stderr}")

# --- merge: shards of one report file add up to the whole; a file given twice is refused --------
for command, source, ext in (("multi", "smp-oue.tldp", ".tldpm"), ("joint", "r.tldp", ".tldpj")):
    header, reports = split_report_file(open(path(source), "rb").read())
    half = len(reports) // 2
    for name, part in (("h1", reports[:half]), ("h2", reports[half:])):
        with open(path(name + ".tldp"), "wb") as f:
            f.write(report_file(header, part))
        run(command, "ingest", path(name + ".tldp"), "-o", path(name + ext))
    run(command, "ingest", path(source), "-o", path("whole" + ext))
    p = run(command, "merge", path("h1" + ext), path("h2" + ext), "-o", path("merged" + ext))
    check(open(path("merged" + ext), "rb").read() == open(path("whole" + ext), "rb").read(),
          f"{command} merge: two halves give the whole file's counts, byte for byte")
    p = run(command, "merge", path("h1" + ext), path("h2" + ext), path("h1" + ext), "-o", path("x" + ext), expect=2)
    check("the same file given twice" in p.stderr and "would count twice" in p.stderr, f"{command} merge twice: {p.stderr}")
    with open(path("copy" + ext), "wb") as f:
        f.write(open(path("h2" + ext), "rb").read())
    p = run(command, "merge", path("h2" + ext), path("copy" + ext), "-o", path("x" + ext), expect=2)
    check("(a copy)" in p.stderr, f"{command} merge of a copy: {p.stderr}")
    check(not os.path.exists(path("x" + ext)), f"{command}: a refused merge writes nothing")

# Counts of no report (an empty report file ingested): no estimate, said so (not zeros with
# zero-width intervals).
header, _ = split_report_file(open(path("smp-oue.tldp"), "rb").read())
with open(path("empty.tldp"), "wb") as f:
    f.write(report_file(header, []))
run("multi", "ingest", path("empty.tldp"), "-o", path("empty.tldpm"))
for fmt in ("text", "json", "csv"):
    p = run("multi", path("empty.tldpm"), "-f", fmt, expect=2)
    check("no reports: nothing to estimate from" in p.stderr, f"multi of empty counts, {fmt}: {p.stderr}")

finish()
