#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Labels that cannot lie (issue 18): a label mapping is part of the configuration. Two halves
of a data set simulated separately number their labels differently; their states must not merge
(the merged estimate would add up different labels), and with `--labels-from` they share one
mapping and merge to the right answer. A labels file is checked against the reports it labels.
usage: test_cli_labels.py <path to tinyldp>"""
import csv
import hashlib
import io
import os
import random
import tempfile

from cli_harness import check, finish, run

# An education-like column: 16 labels of unequal shares, 40 000 rows. The first half starts with
# "Bachelors", the second with "HS-grad", so first-appearance numbering differs between them
# (as the halves of adult.csv do).
LABELS = ["Bachelors", "HS-grad", "11th", "Masters", "9th", "Some-college", "Assoc-acdm", "Assoc-voc",
          "7th-8th", "Doctorate", "Prof-school", "5th-6th", "10th", "1st-4th", "Preschool", "12th"]
WEIGHTS = [16, 32, 4, 5, 2, 22, 3, 4, 2, 1, 2, 1, 3, 1, 1, 1]
rng = random.Random(18)
rows = rng.choices(LABELS, WEIGHTS, k=40000)
half = len(rows) // 2
first, second = ["Bachelors"] + rows[1:half], ["HS-grad"] + rows[half + 1:]
rows = first + second
truth = {label: rows.count(label) / len(rows) for label in LABELS}

with tempfile.TemporaryDirectory() as tmp:
    path = lambda name: os.path.join(tmp, name)
    for name, part in [("h1.csv", first), ("h2.csv", second), ("all.csv", rows)]:
        with open(path(name), "w") as f:
            f.write("age, education\n" + "".join(f"{30 + i % 40}, {v}\n" for i, v in enumerate(part)))
    with open(path("occ.csv"), "w") as f:
        f.write("occupation\n" + "".join(f"{v}\n" for v in ["Sales", "Tech-support", "Craft-repair"] * 50))

    def simulate(src, out, *extra, seed=1, expect=0):
        return run("simulate", "-m", "oue", "-e", "1", "-d", 16, "-i", path(src), "-c", "education",
                   "-o", path(out), "--seed", seed, *extra, expect=expect)

    # Halves numbered by first appearance: different mappings, recorded in the files.
    simulate("h1.csv", "h1.tldp", "--labels")
    simulate("h2.csv", "h2.tldp", "--labels", seed=2)
    h1_labels = open(path("h1.tldp.labels"), "rb").read()
    check(h1_labels.split(b"\n")[0] == b"Bachelors" and open(path("h2.tldp.labels")).readline() == "HS-grad\n",
          "first-appearance numbering differs between the halves")
    header = open(path("h1.tldp"), "rb").read(96)
    check(header[:8] == b"TLDPREP3", "a labelled report file has the version 3 header")
    check(header[64:96] == hashlib.sha256(h1_labels).digest(),
          "the header records the SHA-256 of its labels file (sha256sum of the file)")
    run("aggregate", path("h1.tldp"), "--save-state", path("s1"))
    run("aggregate", path("h2.tldp"), "--save-state", path("s2"))
    p = run("aggregate", "--merge-state", path("s1"), "--merge-state", path("s2"), "--labels",
            path("h1.tldp.labels"), expect=2)
    check("another label mapping" in p.stderr and "--labels-from" in p.stderr and p.stdout == "",
          f"states of different mappings are refused with the reason and the remedy: {p.stderr.strip()}")
    p = run("aggregate", path("h1.tldp"), path("h2.tldp"), expect=2)
    check("another label mapping" in p.stderr, f"report files of different mappings are refused: {p.stderr.strip()}")

    # The same halves with one mapping: they merge, and every label is estimated within 5 SE.
    simulate("h2.csv", "h2.tldp", "--labels-from", path("h1.tldp.labels"), seed=2)
    check(open(path("h2.tldp.labels"), "rb").read() == h1_labels, "--labels-from writes the mapping it used")
    run("aggregate", path("h2.tldp"), "--save-state", path("s2"))
    p = run("aggregate", "--merge-state", path("s1"), "--merge-state", path("s2"), "--labels",
            path("h1.tldp.labels"), "--truth", path("all.csv"), "--column", "education")
    table = list(csv.DictReader(io.StringIO(p.stdout)))
    check(len(table) == 16 and all(row["kind"] == "frequency" for row in table), f"one row per label: {table[:2]}")
    for row in table:
        label, frequency, se = row["item"], float(row["unbiased_estimate"]), float(row["standard_error"])
        check(label in truth and abs(frequency - truth[label]) <= 5 * se,
              f"merged halves: {label} {frequency} within 5 SE ({se}) of {truth.get(label)}")
        check(abs(float(row["true_value"]) - truth[label]) < 1e-5, f"--truth agrees with the data for {label}")
    files = list(csv.DictReader(io.StringIO(
        run("aggregate", path("h1.tldp"), path("h2.tldp"), "--labels", path("h1.tldp.labels")).stdout)))
    check(files[0]["estimate"] == table[0]["estimate"], "report files merge to the same estimate as their states")
    run("aggregate", "--merge-state", path("s1"), "--merge-state", path("s2"), "--save-state", path("s12"))
    p = run("aggregate", "--merge-state", path("s12"), "--labels", path("h1.tldp.labels"))
    check(p.stdout == run("aggregate", "--merge-state", path("s1"), "--merge-state", path("s2"), "--labels",
                          path("h1.tldp.labels")).stdout, "a merged state keeps its mapping")

    # A labels file is tied to its reports: another column's labels are refused.
    run("simulate", "-m", "oue", "-e", "1", "-d", 16, "-i", path("occ.csv"), "-c", "occupation", "--labels",
        "-o", path("occ.tldp"), "--seed", 3)
    p = run("aggregate", path("h1.tldp"), "--labels", path("occ.tldp.labels"), expect=2)
    check("is not the label mapping of these reports" in p.stderr and p.stdout == "",
          f"aggregate edu --labels occ.labels is refused: {p.stderr.strip()}")
    p = run("aggregate", path("h1.tldp"))
    check("--labels FILE prints them" in p.stderr and p.stdout.split("\n")[1].startswith("frequency,0,"),
          "without --labels the items are indices, with a note that labels exist")

    # --labels-from: a value outside the mapping is an error naming the row; nothing is written.
    p = run("simulate", "-m", "oue", "-e", "1", "-d", 16, "-i", path("occ.csv"), "-c", "occupation",
            "--labels-from", path("h1.tldp.labels"), "-o", path("x.tldp"), "--seed", 1, expect=2)
    check(f"occ.csv:2: label \"Sales\" is not in {path('h1.tldp.labels')} (--labels-from)" in p.stderr,
          f"unknown label under --labels-from: {p.stderr.strip()}")
    check(not os.path.exists(path("x.tldp")) and not os.path.exists(path("x.tldp.partial")),
          "a failed simulate leaves no report file")
    p = run("simulate", "-m", "oue", "-e", "1", "-d", 8, "-i", path("h1.csv"), "-c", "education",
            "--labels-from", path("h1.tldp.labels"), "-o", path("x.tldp"), expect=2)
    check("more than 8 distinct labels" in p.stderr, f"a mapping larger than the domain: {p.stderr.strip()}")
    with open(path("dup.labels"), "w") as f:
        f.write("a\nb\na\n")
    p = run("simulate", "-m", "oue", "-e", "1", "-d", 8, "-i", path("h1.csv"), "-c", "education",
            "--labels-from", path("dup.labels"), "-o", path("x.tldp"), expect=2)
    check("dup.labels:3: label \"a\" appears twice" in p.stderr, f"a label twice in a mapping: {p.stderr.strip()}")
    run("simulate", "-m", "oue", "-e", "1", "-d", 16, "-i", path("h1.csv"), "-c", "education", "--labels",
        "--labels-from", path("h1.tldp.labels"), "-o", path("x.tldp"), expect=1)

    # Files without a recorded mapping (unlabelled, or older tinyldp): --labels vouches for one,
    # with a warning; mixing them with labelled ones otherwise is refused.
    with open(path("idx.txt"), "w") as f:
        f.write("".join(f"{LABELS.index(v)}\n" for v in first))
    run("simulate", "-m", "oue", "-e", "1", "-d", 16, "-i", path("idx.txt"), "-o", path("idx.tldp"), "--seed", 4)
    check(open(path("idx.tldp"), "rb").read(8) == b"TLDPREP1", "unlabelled files keep the version 1 header")
    p = run("aggregate", path("idx.tldp"), path("h1.tldp"), expect=2)
    check("no recorded label mapping" in p.stderr and "--labels FILE" in p.stderr,
          f"unrecorded and recorded mappings do not mix silently: {p.stderr.strip()}")
    with open(path("canon.labels"), "w") as f:
        f.write("\n".join(LABELS) + "\n")
    simulate("h1.csv", "c1.tldp", "--labels-from", path("canon.labels"))
    p = run("aggregate", path("idx.tldp"), path("c1.tldp"), "--labels", path("canon.labels"))
    check("records no label mapping" in p.stderr and "unchecked" in p.stderr,
          f"--labels vouches for an unrecorded mapping, with a warning: {p.stderr.strip()}")
    check(p.stdout.split("\n")[1].startswith("frequency,Bachelors,"), "and labels the merged items")

finish()
