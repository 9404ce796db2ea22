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

import warnings

from . import _native
from .frame import REJECTED, _refuse_rejected, finish_series

DEFAULT_PARTITION_BYTES = 64 << 20


def plan_file(path, partition_bytes=DEFAULT_PARTITION_BYTES):
    """The byte ranges [(path, start, end)] a file is cut into, assuming its records all have the
    first one's length (checked when they are read); exact ones when its size rules that out."""
    info = _native.report_file_info(path)
    start, end = info["header_bytes"], info["records_end"]
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
    parts = max(1, -(-(info["records_end"] - info["header_bytes"]) // partition_bytes))
    starts = _native.record_boundaries(path, parts)
    ends = starts[1:] + [info["records_end"]]
    return [(path, s, e) for s, e in zip(starts, ends)]


def aggregate_range(path, start, end):
    """One task: (state bytes, rejected by reason, records, what it covers, {path: [records,
    digest]}) — the digest of its records, which the client adds up per file and checks against
    the file's trailer."""
    series, rejected, records, digest = _native.aggregate_range(path, start, end)
    return series.serialize(), rejected, records, f"{path}[{start}:{end}]", {path: list(digest)}


def merge_results(*results):
    """Merges task results exactly (per epoch: an EpochSeries); a state of another mechanism,
    parameters or label mapping is refused with the reason, naming what it covers."""
    total = None
    rejected, records, covered, digests = {}, 0, [], {}
    for state, r, n, what, d in results:
        for path, (count, digest) in d.items():
            mine = digests.setdefault(path, [0, 0])
            mine[0] += count
            mine[1] = (mine[1] + digest) % (1 << 64)
        a = _native.EpochSeries.deserialize(state)
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
    return (total.serialize(), rejected, records, covered[0] if len(covered) == 1 else f"{len(covered)} parts",
            digests)


def _tree_merge(client, futures, fan_in):
    while len(futures) > 1:
        futures = [client.submit(merge_results, *futures[i:i + fan_in], pure=False)
                   for i in range(0, len(futures), fan_in)]
    return futures[0]


def aggregate(paths, client=None, partition_bytes=DEFAULT_PARTITION_BYTES, fan_in=8, labels=None,
              rejected="raise", epochs="auto"):
    """Aggregates report files on the cluster behind `client` (default: the current
    distributed client): what tinyldp.aggregate(paths, rejected=…, epochs=…) returns — an
    Aggregate, or a TimeSeries for memoized reports of several epochs — from the same serialized
    state. Each file's records are checked against its trailer; a file given twice is refused.
    Rejected reports raise RejectedReport unless rejected="collect", as tinyldp.aggregate."""
    from distributed import default_client, wait

    if rejected not in REJECTED:
        raise ValueError(f"rejected must be one of {', '.join(REJECTED)}, not {rejected!r}")
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise ValueError("nothing to aggregate: give report files")
    seen = {}
    for p in paths:  # the same file by two names is caught by its digest, below
        if os.path.realpath(p) in seen:
            raise ValueError(f"{p} is given twice (as {seen[os.path.realpath(p)]} too): every report in it would count twice")
        seen[os.path.realpath(p)] = p
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
    state, counts, _, _, digests = _tree_merge(client, ordered, fan_in).result()
    if rejected == "raise":
        _refuse_rejected(counts, ", ".join(paths))
    total = _native.EpochSeries.deserialize(state)
    for p in dict.fromkeys(paths):  # each file once: its ranges' digests against its trailer
        info = _native.report_file_info(p)
        count, digest = digests.get(p, [0, 0])
        if info["trailer"] is None:
            warnings.warn(f"{p} has no trailer (written before report files had trailers): a file cut short at a record boundary "
                          f"cannot be told from a whole one", stacklevel=2)
        elif tuple(info["trailer"]) != (count, digest):
            raise ValueError(f"{p}: the trailer counts {info['trailer'][0]} record(s) with digest {info['trailer'][1]}; "
                             f"the file holds {count} with digest {digest} (records lost, added or changed)")
        # A file read as one range was recorded by its task already (a whole file's range is).
        if count > 0 and (digest, None) not in total.sources and not total.add_source(digest):
            raise ValueError(f"{p} counts the same reports as another file given (the same records' digest): "
                             f"given twice, every report in it would count twice")
    return finish_series(total, counts, labels, paths[0], epochs)
