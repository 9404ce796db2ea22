# SPDX-License-Identifier: Apache-2.0
"""tinyldp's collector in Python: configure mechanisms exactly as the devices do, parse and
aggregate their reports, merge and serialize aggregate states, and estimate frequencies (and
numeric means) with intervals and post-processing — numpy arrays in and out, a pandas DataFrame
with the CLI's columns from one call.

    import tinyldp
    m = tinyldp.Mechanism("oue", "1", domain=16)            # or tinyldp.Mechanism(**config)
    reports, labels = tinyldp.simulate(column, m, seed=1)   # labels numbered as they come
    agg = tinyldp.Aggregator(m, labels.digest)
    agg.ingest(reports)
    agg.estimate("norm-sub")                                # dict of numpy arrays
    tinyldp.to_dataframe("edu.tldp")                        # files → the CLI's tidy table
    tinyldp.estimate_joint("n.tldpj", ["a", "b"])            # record reports → joint estimates

The C++ collector does the work (tinyldp._native); tinyldp.dask spreads report files over a
Dask cluster. docs/python.md is the guide.
"""
from ._native import (PARSE_ERRORS, Aggregator, EpochSeries, Mechanism, RangeNotAtRecords, RecordCounts, ReportFile, Reports,
                      mechanism_names, mechanism_table, normal_quantile_two_sided, parse_report_file, read_report_file,
                      report_file_info, shuffle_epsilon, write_report_file)
from .frame import (COLUMNS, MISSING, REJECTED, Aggregate, RejectedReport, TimeSeries, aggregate, simulate,
                    to_dataframe, write_reports)
from .joint import estimate_joint, joint_dataframe
from .labels import LabelMapping

POSTPROCESS = ("none", "clip", "norm-sub", "simplex", "em")

__all__ = [
    "Aggregate", "Aggregator", "COLUMNS", "EpochSeries", "LabelMapping", "MISSING", "Mechanism", "PARSE_ERRORS",
    "POSTPROCESS", "REJECTED", "RangeNotAtRecords", "RejectedReport", "RecordCounts", "ReportFile", "Reports",
    "TimeSeries", "aggregate", "estimate_joint",
    "joint_dataframe", "mechanism_names", "mechanism_table", "normal_quantile_two_sided", "parse_report_file", "read_report_file",
    "report_file_info", "shuffle_epsilon", "simulate", "to_dataframe", "write_report_file", "write_reports",
]

