# SPDX-License-Identifier: Apache-2.0
"""Report files aggregated on a Dask cluster (dask.distributed), exactly.

Every report file is cut into byte ranges of about `partition_bytes` at record boundaries; each
range is a task that aggregates its records into a state (the collector's Aggregator, in C++,
without the GIL); the states merge on the workers in a tree (fan-in `fan_in`) and only the
final state travels to the client. Merging is integer addition of support counts, so the result
is bit-identical to one process reading every file in order — the serialized state is the one
`tinyldp aggregate FILES --save-state` writes.

Record boundaries: report files have no sync marker, so a range cannot find a record start on
its own. When a file's records all have its first record's length (a fleet sending the same
fields), the boundaries are header + k·(2 + length); each task checks that its last record ends
exactly at its range's end, which, chained from the header, proves every cut was at a record
boundary. In a file whose records differ in length the first range to fail runs past its end
(RangeNotAtRecords; any other first failure is the file's own and is raised), and the file is
re-planned from one pass over its length prefixes (record_boundaries) on a worker.

The workers open the files themselves: give paths every worker can read (shared storage), and
install the tinyldp package where the workers' Python finds it (docs/dask.md).
"""
import os

from . import _native
from .frame import REJECTED, Aggregate, _refuse_rejected, resolve_labels

DEFAULT_PARTITION_BYTES = 64 << 20


def plan_file(path, partition_bytes=DEFAULT_PARTITION_BYTES):
    """The byte ranges [(path, start, end)] a file is cut into, assuming its records all have the
    first one's length (checked when they are read); exact ones when its size rules that out."""
    info = _native.report_file_info(path)
    start, end = info["header_bytes"], info["file_bytes"]
    record = 2 + info["first_record_bytes"]
    body = end - start
    if body == 0:
        return [(path, start, end)]
    if info["first_record_bytes"] == 0 or body % record != 0:
        return exact_plan(path, partition_bytes)
    per_range = max(1, partition_bytes // record) * record
    return [(path, s, min(s + per_range, end)) for s in range(start, end, per_range)]


def exact_plan(path, partition_bytes=DEFAULT_PARTITION_BYTES):
    """Ranges at the true record boundaries, from one pass over the file's length prefixes."""
    info = _native.report_file_info(path)
    parts = max(1, -(-(info["file_bytes"] - info["header_bytes"]) // partition_bytes))
    starts = _native.record_boundaries(path, parts)
    ends = starts[1:] + [info["file_bytes"]]
    return [(path, s, e) for s, e in zip(starts, ends)]


def aggregate_range(path, start, end):
    """One task: (state bytes, rejected by reason, records, what it covers)."""
    aggregator, rejected, records = _native.aggregate_range(path, start, end)
    return aggregator.serialize(), rejected, records, f"{path}[{start}:{end}]"


def merge_results(*results):
    """Merges task results exactly; a state of another mechanism, parameters or label mapping is
    refused with the reason, naming what it covers."""
    total = None
    rejected, records, covered = {}, 0, []
    for state, r, n, what in results:
        a = _native.Aggregator.deserialize(state)
        if total is None:
            total = a
        else:
            try:
                total.merge(a)
            except ValueError as e:
                raise ValueError(f"{what}: {e}") from None
        for reason, count in r.items():
            rejected[reason] = rejected.get(reason, 0) + count
        records += n
        covered.append(what)
    return total.serialize(), rejected, records, covered[0] if len(covered) == 1 else f"{len(covered)} parts"


def _tree_merge(client, futures, fan_in):
    while len(futures) > 1:
        futures = [client.submit(merge_results, *futures[i:i + fan_in], pure=False)
                   for i in range(0, len(futures), fan_in)]
    return futures[0]


def aggregate(paths, client=None, partition_bytes=DEFAULT_PARTITION_BYTES, fan_in=8, labels=None,
              rejected="raise"):
    """Aggregates report files on the cluster behind `client` (default: the current
    distributed client): an Aggregate (aggregator, labels, rejected reports by reason), equal
    to tinyldp.aggregate(paths) — the same serialized state. Rejected reports raise
    RejectedReport unless rejected="collect", as tinyldp.aggregate."""
    from distributed import default_client, wait

    if rejected not in REJECTED:
        raise ValueError(f"rejected must be one of {', '.join(REJECTED)}, not {rejected!r}")
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise ValueError("nothing to aggregate: give report files")
    client = client or default_client()
    plans = client.gather([client.submit(plan_file, p, partition_bytes, pure=False) for p in paths])
    futures = {p: [client.submit(aggregate_range, *r, pure=False) for r in plan] for p, plan in zip(paths, plans)}
    wait([f for fs in futures.values() for f in fs])
    for p, fs in futures.items():
        # The first range that fails started where the one before it ended — at a record
        # boundary, by induction from the header — so its error is either a wrong cut (it ran
        # past its end) or the file's own; the ranges after it may have started anywhere.
        first_error = next((f.exception() for f in fs if f.status == "error"), None)
        if first_error is None:
            continue
        if not isinstance(first_error, _native.RangeNotAtRecords):
            raise first_error
        # Records of different lengths: cut the file at its true boundaries instead.
        client.cancel(fs)
        plan = client.submit(exact_plan, p, partition_bytes, pure=False).result()
        futures[p] = [client.submit(aggregate_range, *r, pure=False) for r in plan]
    ordered = [f for p in paths for f in futures[p]]
    state, counts, _, _ = _tree_merge(client, ordered, fan_in).result()
    if rejected == "raise":
        _refuse_rejected(counts, ", ".join(paths))
    total = _native.Aggregator.deserialize(state)
    return Aggregate(total, resolve_labels(total, labels, paths[0]), counts)
