"""Metrics: numbers read from a run's result document.

A metric is a field of the result JSON, dotted for nested fields
(`throughput`, `latency_us.p99`, `aborts_by_reason.validation`), or a derived
metric of the run's program, which the papers plot but the program need not
store (the engine's are below; other programs declare theirs in programs.py).

Time series (the engine's `--timeline`, Strife Fig 8d): `timeline_samples`
reads the commits of each whole second of the measured interval, and
`phase_spans` the phases of the run's logged schedule (HOT's moving hot set,
`config.hot_schedule`: each phase's `start_s`, counted from the start of the
measured interval as the timeline is, and its `hot_partitions` n). The
derived metrics `phase_throughput_cv` and `phase_throughput_n_corr` summarize
the throughput of each phase (the mean of its whole seconds) for claims.
"""
from __future__ import annotations

import math
import statistics
from typing import Callable, Mapping

# speedup: a metric of a figure's table, not of one run: a series' throughput over its own throughput at one
# thread (the same other axes), the scaling shape a many-core comparison is about (sim-reference-tpcc: the
# simulated curves against real ones whose absolute numbers belong to another machine). It is computed from
# the points' medians (tables.add_speedup) and, for claims, from their bootstrap replicates (claims.Samples).
SPEEDUP = "speedup"
SPEEDUP_OF = "throughput"
SPEEDUP_AXIS = "threads"
SPEEDUP_BASE = 1


def speedup_baseline(context: Mapping[str, object]) -> dict:
    """The point whose throughput a speedup at `context` (axis -> value) divides by: the same axes at one
    thread."""
    return {**context, SPEEDUP_AXIS: SPEEDUP_BASE}


# Where the engine logs a run's phases, and what distinguishes them (workloads/hot/hot.h).
PHASE_SCHEDULE = "config.hot_schedule"
PHASE_LABEL = "hot_partitions"


def rate_text(rate: float) -> str:
    """A rate in [0, 1] as printed for people: three significant digits, so that a small one is not rounded
    to 0.000 (0.000280, 0.0350, 0.500; 0 as 0)."""
    if rate <= 0 or not math.isfinite(rate):
        return f"{rate:g}"
    return f"{rate:.{max(3, 2 - math.floor(math.log10(rate)))}f}"


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


def timeline_samples(result: dict, name: str = "timeline") -> list[float]:
    """Commits in each whole second of the measured interval: the engine's array `name` (one count
    per second from the interval's start, `--timeline`), zero where it wrote none (it stops at the
    last second with a commit), without the last, partial, second (`phases.measured_s`)."""
    counts = _field(result, name)
    if not isinstance(counts, list):
        raise TypeError(f"{name} is not an array")
    seconds = int(math.floor(result["phases"]["measured_s"] + 1e-9))
    return [float(counts[i]) if i < len(counts) else 0.0 for i in range(seconds)]


def phase_spans(result: dict, schedule: str = PHASE_SCHEDULE, label: str = PHASE_LABEL
                ) -> list[tuple[float, float, object]]:
    """(start_s, end_s, label) of each logged phase that starts inside the measured interval; the
    last one ends with it. Each entry of the array `schedule` has `start_s` (seconds since the
    interval's start) and `label`."""
    measured = float(result["phases"]["measured_s"])
    entries = sorted(_field(result, schedule), key=lambda entry: entry["start_s"])
    starts = [(float(entry["start_s"]), entry.get(label)) for entry in entries if entry["start_s"] < measured]
    ends = [start for start, _ in starts[1:]] + [measured]
    return [(start, end, value) for (start, value), end in zip(starts, ends)]


def phase_throughputs(result: dict) -> list[tuple[object, float]]:
    """(label, mean commits per second) of each phase with at least one whole second of the
    timeline inside it (second i spans [i, i + 1))."""
    samples = timeline_samples(result)
    means = []
    for start, end, label in phase_spans(result):
        inside = [value for second, value in enumerate(samples) if start <= second and second + 1 <= end]
        if inside:
            means.append((label, statistics.fmean(inside)))
    return means


def _phase_throughput_cv(result: dict) -> float:
    # how much the phases' throughputs differ: population standard deviation / mean of the
    # per-phase means (Strife Fig 8d: "stable throughput" vs "varies significantly depending on n")
    means = [mean for _, mean in phase_throughputs(result)]
    if len(means) < 2 or statistics.fmean(means) == 0:
        return math.nan
    return statistics.pstdev(means) / statistics.fmean(means)


def _phase_throughput_n_corr(result: dict) -> float:
    # Pearson correlation of each phase's throughput with its number of hot partitions n:
    # near 1 when a protocol "suffers with a smaller n" (Strife Fig 8d), near 0 when n does not matter
    pairs = [(float(label), mean) for label, mean in phase_throughputs(result) if label is not None]
    if len(pairs) < 3 or len({n for n, _ in pairs}) < 2 or len({mean for _, mean in pairs}) < 2:
        return math.nan
    return statistics.correlation([n for n, _ in pairs], [mean for _, mean in pairs])


ENGINE_DERIVED: dict[str, Callable[[dict], float]] = {
    "abort_rate": _abort_rate,                      # aborts / (commits + aborts)
    "processed_throughput": _processed_throughput,
    "bcc_mm_share": _bcc_share("mm"),               # BCC's history memory management
    "bcc_clock_share": _bcc_share("clock"),         # BCC's global-clock accesses
    "ns_per_txn_per_thread": _ns_per_txn_per_thread,
    "ns_per_access": _ns_per_access,                # YCSB: per request of a committed transaction
    "access_bound_ratio": _access_bound_ratio,      # ns_per_access / memory_bound.access_bound_ns
    "phase_throughput_cv": _phase_throughput_cv,    # --timeline + HOT's schedule: spread of the phases
    "phase_throughput_n_corr": _phase_throughput_n_corr,   # ... and their correlation with n
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
        except (KeyError, TypeError, ValueError):
            return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return math.nan
    return float(value)
