#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reading inputs (issue 18): the column is checked against the header before any data row,
empty fields (--missing) and out-of-range numbers (--clamp), a header row that looks like data,
quoted CSV fields, I/O errors that say why, --version. Memory and speed on a 5 M-row file are
measured by scripts/cli-performance (docs/cli-performance.md), not here.
usage: test_cli_input.py <path to tinyldp>"""
import os
import re
import tempfile

from cli_harness import check, finish, run, split_report_file

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def reports(tldp):
    """The number of records in a report file."""
    return len(split_report_file(open(tldp, "rb").read())[1])


with tempfile.TemporaryDirectory() as tmp:
    path = lambda name: os.path.join(tmp, name)

    def write(name, text):
        with open(path(name), "w") as f:
            f.write(text)
        return path(name)

    krr = ["simulate", "-m", "krr", "-e", "1", "-d", 8, "--seed", 1]
    sd = ["simulate", "-m", "sd", "-e", "1", "--lo", 0, "--hi", 99, "--seed", 1]

    # The column is checked before any data row: a file whose rows are all broken still says
    # which column is missing (and which columns there are).
    broken = write("broken.csv", "age,colour\n" + "only-one-field\n" * 1000 + "\"unterminated\n")
    p = run(*krr, "-i", broken, "-c", "shade", "--labels", "-o", path("x.tldp"), expect=2)
    check("no column named \"shade\" (the header has: age, colour)" in p.stderr,
          f"column error first, with the header's names: {p.stderr.strip()}")
    p = run(*krr, "-i", broken, "-c", 5, "--labels", "-o", path("x.tldp"), expect=2)
    check("no column 5 (the header has 2)" in p.stderr, f"an index beyond the header: {p.stderr.strip()}")
    p = run(*krr, "-i", broken, "-c", "colour", "--labels", "-o", path("x.tldp"), expect=2)
    check("broken.csv:2: row has no column 1" in p.stderr, f"then the data error, with its row: {p.stderr.strip()}")

    # Quoted fields: a comma or a line break inside quotes belongs to the field.
    quoted = write("quoted.csv", 'id,colour\n1,"green, light"\n2,red\n3,"green, light"\n')
    run(*krr, "-i", quoted, "-c", "colour", "--labels", "-o", path("q.tldp"))
    check(open(path("q.tldp.labels")).read() == "green, light\nred\n", "a quoted comma stays in the label")
    spaced = write("spaced.csv", "\n   \n id , colour \n1, red\n  \n2,\tblue \n")
    run(*krr, "-i", spaced, "-c", "colour", "--labels", "-o", path("s.tldp"))
    check(open(path("s.tldp.labels")).read() == "red\nblue\n" and reports(path("s.tldp")) == 2,
          "blank lines (before the header too) are not rows; spaces around fields are trimmed")
    multi = write("multi.csv", 'id,colour\n1,"two\nlines"\n')
    p = run(*krr, "-i", multi, "-c", "colour", "--labels", "-o", path("x.tldp"), expect=2)
    check("has a line break" in p.stderr, f"a label with a line break cannot be a labels-file line: {p.stderr}")

    # Empty fields: an error naming the row by default; --missing skip drops the row;
    # --missing category makes "" a label (labelled columns only).
    holes = write("holes.csv", "colour,age\nred,30\n,41\nblue,\nred,52\n")
    p = run(*krr, "-i", holes, "-c", "colour", "--labels", "-o", path("x.tldp"), expect=2)
    check("holes.csv:3: missing value of column \"colour\"" in p.stderr and "--missing" in p.stderr,
          f"an empty field is an error naming the row: {p.stderr.strip()}")
    p = run(*krr, "-i", holes, "-c", "colour", "--labels", "--missing", "skip", "-o", path("skip.tldp"))
    check(reports(path("skip.tldp")) == 3 and "skipped 1 row(s)" in p.stderr, f"--missing skip: {p.stderr}")
    run(*krr, "-i", holes, "-c", "colour", "--labels", "--missing", "category", "-o", path("cat.tldp"))
    check(reports(path("cat.tldp")) == 4 and open(path("cat.tldp.labels")).read() == "red\n\nblue\n",
          "--missing category: the empty label is a category")
    p = run(*krr, "-i", holes, "-c", "colour", "--missing", "category", "-o", path("x.tldp"), expect=2)
    check("needs a labelled categorical column" in p.stderr, f"category without labels: {p.stderr.strip()}")
    p = run(*sd, "-i", holes, "-c", "age", "-o", path("x.tldp"), expect=2)
    check("holes.csv:4: missing value of column \"age\"" in p.stderr, f"numeric empty field: {p.stderr.strip()}")
    run(*sd, "-i", holes, "-c", "age", "--missing", "skip", "-o", path("age.tldp"))
    check(reports(path("age.tldp")) == 3, "numeric --missing skip")
    run(*krr, "-i", holes, "-c", "colour", "--missing", "sometimes", "-o", path("x.tldp"), expect=1)
    qmarks = write("qmarks.csv", "colour\nred\n?\nblue\n")
    p = run(*krr, "-i", qmarks, "-c", "colour", "--labels", "--missing-as", "?", "-o", path("x.tldp"), expect=2)
    check("qmarks.csv:3: missing value" in p.stderr, f"--missing-as ?: {p.stderr.strip()}")
    run(*krr, "-i", qmarks, "-c", "colour", "--labels", "--missing-as", "?", "--missing", "skip", "-o", path("qm.tldp"))
    check(reports(path("qm.tldp")) == 2 and open(path("qm.tldp.labels")).read() == "red\nblue\n",
          "--missing-as ? --missing skip drops the \"?\" row")

    # Out-of-range numbers: an error naming row and value; --clamp moves them to the nearer end,
    # for simulate and for aggregate --truth alike.
    ages = write("ages.csv", "age\n30\n150\n-4\n99\n")
    p = run(*sd, "-i", ages, "-c", "age", "-o", path("x.tldp"), expect=2)
    check("ages.csv:3: value 150 is outside [0, 99]" in p.stderr and "--clamp" in p.stderr,
          f"out of range: {p.stderr.strip()}")
    p = run(*sd, "-i", ages, "-c", "age", "--clamp", "-o", path("ages.tldp"))
    check(reports(path("ages.tldp")) == 4 and "clamped 2 value(s) into [0, 99]" in p.stderr, f"--clamp: {p.stderr}")
    p = run("aggregate", path("ages.tldp"), "--truth", ages, "-c", "age", "--clamp", "--format", "json")
    check(f'"true_value": {sum([30, 99, 0, 99]) / 4}' in p.stdout, "--truth --clamp: the true mean of 30, 99, 0, 99")
    run("aggregate", path("ages.tldp"), "--truth", ages, "-c", "age", expect=2)
    p = run(*krr, "-i", ages, "-c", "age", "--clamp", "-o", path("x.tldp"), expect=2)
    check("--clamp is for the numeric mechanisms" in p.stderr, f"--clamp on categories: {p.stderr.strip()}")

    # A header row that looks like data (nltcs.csv has none): a warning; --no-header reads it.
    nltcs = write("nltcs.csv", "0,1,0,1\n1,1,0,0\n0,0,1,1\n")
    p = run(*krr, "-i", nltcs, "-c", 2, "-o", path("n.tldp"))
    check("looks like data" in p.stderr and "--no-header" in p.stderr and reports(path("n.tldp")) == 2,
          f"a numeric first row is taken as the header, with a warning: {p.stderr.strip()}")
    p = run(*krr, "-i", nltcs, "-c", 2, "--no-header", "-o", path("n.tldp"))
    check("looks like data" not in p.stderr and reports(path("n.tldp")) == 3, "--no-header reads every row")
    p = run(*krr, "-i", quoted, "-c", "colour", "--labels", "-o", path("x.tldp"))
    check("looks like data" not in p.stderr, "a real header gives no warning")

    # One value per line: CRLF line ends and blank lines are fine.
    run(*krr, "-i", write("crlf.txt", "1\r\n2\r\n\r\n3\r\n"), "-o", path("crlf.tldp"))
    check(reports(path("crlf.tldp")) == 3, "CRLF lines, a blank line skipped")

    # Every I/O error says why.
    os.chdir(tmp)
    for args, needle in [
        ((*krr, "-i", "nosuch.csv", "-c", "x", "-o", "x.tldp"), "cannot open nosuch.csv: No such file or directory"),
        ((*krr, "-i", tmp, "-o", "x.tldp"), f"cannot read {tmp}: Is a directory"),
        ((*krr, "-i", crlf := path("crlf.txt"), "-o", os.path.join("nodir", "x.tldp")),
         "cannot write nodir/x.tldp: No such file or directory"),
        (("aggregate", "nosuch.tldp"), "cannot open nosuch.tldp: No such file or directory"),
        (("aggregate", "--merge-state", "nosuch.state"), "cannot open nosuch.state: No such file or directory"),
        (("aggregate", path("crlf.tldp"), "--labels", "nosuch.labels"),
         "cannot open label file nosuch.labels: No such file or directory"),
        ((*krr, "-i", crlf, "--labels-from", "nosuch.labels", "-o", "x.tldp"),
         "cannot open label file nosuch.labels: No such file or directory"),
        (("aggregate", path("crlf.tldp"), "--save-state", os.path.join("nodir", "s")),
         "cannot write nodir/s: No such file or directory"),
    ]:
        p = run(*args, expect=2)
        check(needle in p.stderr, f"{' '.join(map(str, args))}: says '{needle}': {p.stderr.strip()}")

    # A failed run leaves an earlier output as it was.
    before = open(path("crlf.tldp"), "rb").read()
    run(*krr, "-i", write("bad.txt", "1\n2\n9\n"), "-o", path("crlf.tldp"), expect=2)
    check(open(path("crlf.tldp"), "rb").read() == before and not os.path.exists(path("crlf.tldp.partial")),
          "a failed simulate neither clobbers the old output nor leaves a partial one")

    # A CSV of several columns without --column: refused, naming the columns (it was read as
    # whole lines, its header one more label); one column without --column stays one value per line.
    people = write("people.csv", "age,colour\n30,red\n40,blue\n")
    p = run(*krr, "-i", people, "--labels", "-o", path("w.tldp"), expect=2)
    check("people.csv has 2 columns (age, colour): choose one with --column" in p.stderr and
          not os.path.exists(path("w.tldp")), f"several columns need --column: {p.stderr.strip()}")
    p = run(*sd, "-i", people, "-o", path("w.tldp"), expect=2)
    check("has 2 columns (age, colour)" in p.stderr, f"numeric too: {p.stderr.strip()}")
    quoted_one = write("quoted-one.csv", '"green, light"\nred\n')
    run(*krr, "-i", quoted_one, "--labels", "-o", path("w.tldp"))
    check(open(path("w.tldp.labels")).read() == '"green, light"\nred\n',
          "a quoted comma is one column: the line is still one value")
    run(*krr, "-i", write("ints.txt", "1\n2\n"), "-o", path("i.tldp"))
    p = run("aggregate", path("i.tldp"), "--truth", people, expect=2)
    check("has 2 columns (age, colour)" in p.stderr, f"aggregate --truth too: {p.stderr.strip()}")

    # --delimiter, and a UTF-8 byte-order mark before the header (spreadsheet exports).
    semi = write("semi.csv", "\ufeffage;colour\n30;red\n40;blue\n30;red\n")
    p = run(*krr, "-i", semi, "-c", "colour", "--labels", "-o", path("d.tldp"), expect=2)
    check("look separated by ';': pass --delimiter ';'" in p.stderr, f"a ;-separated file read by commas: {p.stderr}")
    run(*krr, "-i", semi, "-c", "colour", "--delimiter", ";", "--labels", "-o", path("d.tldp"))
    check(open(path("d.tldp.labels")).read() == "red\nblue\n" and reports(path("d.tldp")) == 3, "--delimiter ;")
    run(*sd, "-i", semi, "-c", "age", "--delimiter", ";", "-o", path("d.tldp"))
    check(reports(path("d.tldp")) == 3, "the BOM is not part of the first column's name")
    p = run(*krr, "-i", semi, "--delimiter", ";", "--labels", "-o", path("d.tldp"), expect=2)
    check("has 2 columns (age, colour)" in p.stderr, f"the BOM is not in the names either: {p.stderr.strip()}")
    tabs = write("tabs.tsv", "age\tcolour\n30\tred, dark\n")
    run(*krr, "-i", tabs, "-c", "colour", "--delimiter", "tab", "--labels", "-o", path("t.tldp"))
    check(open(path("t.tldp.labels")).read() == "red, dark\n", "--delimiter tab: commas are text")
    bom_one = write("bom-one.txt", "\ufeff3\n4\n")
    run(*krr, "-i", bom_one, "-o", path("b.tldp"))
    check(reports(path("b.tldp")) == 2, "a BOM before one value per line")
    run("aggregate", path("d.tldp"), "--truth", semi, "--delimiter", ";", "-c", "age", "-f", "json")
    for bad in [";;", '"', ""]:
        p = run(*krr, "-i", semi, "-c", "colour", "--delimiter", bad, "--labels", "-o", path("x.tldp"), expect=1)
        check("give one character" in p.stderr, f"--delimiter {bad!r} refused: {p.stderr.strip()}")
    # joint and multi read their CSVs the same way.
    records = write("records.csv", "\ufeffa;b\nx;1\ny;0\nx;1\n")
    run("multi", "simulate", "-i", records, "--delimiter", ";", "-p", "spl-grr", "-e", "1", "-o", path("m.tldpm"),
        "--seed", 1)
    p = run("multi", path("m.tldpm"), "--truth", records, "--delimiter", ";", "--format", "json")
    check('"a"' in p.stdout and '"b"' in p.stdout, f"multi: the BOM is not in the first name: {p.stdout[:200]}")
    run("joint", "simulate", "-i", records, "--delimiter", ";", "--f", "0.5", "-o", path("j.tldpj"), "--seed", 1)
    p = run("joint", path("j.tldpj"), "-a", "a,b", "--truth", records, "--delimiter", ";", "-E", "em")
    check(p.returncode == 0, "joint: --delimiter for the truth")

    # --version: the project's version, written once in project(VERSION).
    version = re.search(r"project\(tinyldp VERSION (\d+\.\d+\.\d+)", open(os.path.join(SOURCE, "CMakeLists.txt")).read())
    check(run("--version").stdout.strip() == f"tinyldp {version.group(1)}", "--version prints the project version")

finish()
