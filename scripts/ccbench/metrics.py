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


ENGINE_DERIVED: dict[str, Callable[[dict], float]] = {
    "abort_rate": _abort_rate,                      # aborts / (commits + aborts)
    "processed_throughput": _processed_throughput,
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
