# SPDX-License-Identifier: Apache-2.0
"""The tables of a generated Markdown document, read back by the checks that keep its figures
true: bench/footprint/footprint.py doc-check (docs/footprint.md) and
bench/target_costs/check_budgets.py --doc (docs/target-costs.md)."""


def table_rows(lines):
    """(header cells, row cells) of every data row of every table in `lines`, in order: a table
    is a run of lines starting with '|', its first line the header; separator rows are skipped."""
    header = None
    for line in lines:
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif not all(set(c) <= {"-", " ", ":"} for c in cells):
            yield header, cells
