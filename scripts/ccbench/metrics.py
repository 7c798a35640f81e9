"""Metrics: numbers read from a run's result document.

A metric is a field of the result JSON, dotted for nested fields
(`throughput`, `latency_us.p99`, `aborts_by_reason.validation`), or a derived
metric of the run's program, which the papers plot but the program need not
store (the engine's are below; other programs declare theirs in programs.py).
"""
from __future__ import annotations

import math
from typing import Callable, Mapping


def _abort_rate(result: dict) -> float:
    attempts = result["commits"] + result["aborts"]
    return result["aborts"] / attempts if attempts else math.nan


def _processed_throughput(result: dict) -> float:
    # committed + aborted attempts per second (bcc Fig 7), from the committed rate.
    commits = result["commits"]
    return result["throughput"] * (commits + result["aborts"]) / commits if commits else math.nan


def _bcc_share(component: str) -> Callable[[dict], float]:
    # fraction of worker time BCC spent in one component (--bcc_breakdown; bcc Table 1):
    # its worker seconds / (threads * measured seconds)
    def share(result: dict) -> float:
        worker_seconds = result["config"]["threads"] * result["phases"]["measured_s"]
        spent = result["cc_stats"]["breakdown"][f"{component}_s"]
        return spent / worker_seconds if worker_seconds else math.nan
    return share


def _ns_per_txn_per_thread(result: dict) -> float:
    # worker nanoseconds per committed transaction: threads * measured seconds / commits
    commits = result["commits"]
    return result["config"]["threads"] * result["phases"]["measured_s"] * 1e9 / commits if commits else math.nan


def _ns_per_access(result: dict) -> float:
    # worker nanoseconds per committed access, for workloads with a fixed number of
    # requests per transaction (YCSB's req_per_txn); the engine-cost figure's y axis
    return _ns_per_txn_per_thread(result) / result["config"]["req_per_txn"]


def _access_bound_ratio(result: dict) -> float:
    # ns per access over the memory-latency bound the same run measured (--memory_bound)
    return _ns_per_access(result) / result["memory_bound"]["access_bound_ns"]


ENGINE_DERIVED: dict[str, Callable[[dict], float]] = {
    "abort_rate": _abort_rate,                      # aborts / (commits + aborts)
    "processed_throughput": _processed_throughput,
    "bcc_mm_share": _bcc_share("mm"),               # BCC's history memory management
    "bcc_clock_share": _bcc_share("clock"),         # BCC's global-clock accesses
    "ns_per_txn_per_thread": _ns_per_txn_per_thread,
    "ns_per_access": _ns_per_access,                # YCSB: per request of a committed transaction
    "access_bound_ratio": _access_bound_ratio,      # ns_per_access / memory_bound.access_bound_ns
}


def _field(result: dict, name: str) -> object:
    value = result
    for part in name.split("."):
        value = value[part]
    return value


def metric_value(result: dict | None, name: str,
                 derived: Mapping[str, Callable[[dict], float]] = ENGINE_DERIVED) -> float:
    """The metric's value, or NaN when the result lacks it or it is not a number.

    A field the program writes wins over the derived metric of the same name:
    the program knows its own definitions best.
    """
    if result is None:
        return math.nan
    try:
        value = _field(result, name)
    except (KeyError, TypeError):
        try:
            value = derived[name](result) if name in derived else math.nan
        except (KeyError, TypeError):
            return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return math.nan
    return float(value)
