"""Checking the papers' claims against a figure's aggregated table.

A claim is evaluated at the points its `at` selects (every value of an axis
it does not mention; `max`/`min` pick the extreme swept value) on the median
of the repetitions. It needs every value it looks at: one missing point
makes the outcome "no data", never a guess.

Whether an outcome is asserted depends on the claim's check kind, as in
FIGURES.md: trend claims are asserted; absolute claims (numbers tied to the
authors' hardware) are only reported; conditional claims are asserted only
where their condition is met here.
"""
from __future__ import annotations

import itertools
import math
import operator
from dataclasses import dataclass
from statistics import mean

import numpy as np
import pandas as pd

HELD, FAILED, NO_DATA = "held", "failed", "no data"
COMPARE = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt}
REDUCE = {"mean": mean, "min": min, "max": max}


@dataclass
class ClaimResult:
    claim: dict
    outcome: str      # held, failed or no data
    asserted: bool
    detail: str       # the numbers behind the outcome
    note: str = ""    # why it is not asserted, or which condition was met

    @property
    def label(self) -> str:
        return self.outcome if self.asserted else f"{self.outcome} (not asserted)"


class MissingData(Exception):
    pass


def _format(value: float) -> str:
    return f"{value:.4g}"


def _where(context: dict) -> str:
    return ", ".join(f"{axis}={value}" for axis, value in context.items()) or "the only point"


class _Table:
    """Median values of one metric, looked up by series and axis values."""

    def __init__(self, table: pd.DataFrame, metric: str):
        if metric not in table.columns:
            raise MissingData(f"the table has no column for metric '{metric}'")
        self.table = table
        self.metric = metric

    def value(self, series: str, context: dict) -> float:
        mask = self.table["series"] == series
        for axis, wanted in context.items():
            column = self.table[axis]
            if isinstance(wanted, (int, float)) and not isinstance(wanted, bool):
                mask &= np.isclose(pd.to_numeric(column, errors="coerce"), wanted)
            else:
                mask &= column == wanted
        rows = self.table.loc[mask, self.metric]
        if rows.empty or pd.isna(rows.iloc[0]):
            raise MissingData(f"no {self.metric} for {series} at {_where(context)}")
        return float(rows.iloc[0])

    def ratio(self, numerator: str, denominator: str, context: dict) -> float:
        top, bottom = self.value(numerator, context), self.value(denominator, context)
        if bottom == 0:
            if top == 0:
                raise MissingData(f"{numerator}/{denominator} is 0/0 at {_where(context)}")
            return math.inf
        return top / bottom


def _contexts(axes: dict[str, list], at: dict, skip_axis: str | None = None) -> list[dict]:
    choices = []
    for axis, values in axes.items():
        if axis == skip_axis:
            continue
        selector = at.get(axis, "all")
        if selector == "all":
            choices.append([(axis, value) for value in values])
        elif selector in ("max", "min"):
            choices.append([(axis, max(values) if selector == "max" else min(values))])
        else:
            choices.append([(axis, selector)])
    return [dict(combination) for combination in itertools.product(*choices)]


def _compared(values: list[tuple[dict, float]], claim: dict, what: str) -> tuple[bool, str]:
    """Apply op/bound to each value (reduce: every) or to their mean/min/max."""
    compare, bound, reduce = COMPARE[claim["op"]], claim["bound"], claim.get("reduce", "every")
    listed = "; ".join(f"{_where(context)}: {_format(value)}" for context, value in values)
    if reduce == "every":
        return all(compare(value, bound) for _, value in values), f"{what}: {listed} (each needs {claim['op']} {bound})"
    reduced = REDUCE[reduce]([value for _, value in values])
    return compare(reduced, bound), (f"{what}: {reduce} {_format(reduced)} over {listed} "
                                     f"(needs {claim['op']} {bound})")


def _ratio(claim, table, axes, series_names, along) -> tuple[bool, str]:
    numerator, denominator = claim["numerator"], claim["denominator"]
    values = [(context, table.ratio(numerator, denominator, context)) for context in _contexts(axes, claim.get("at", {}))]
    return _compared(values, claim, f"{numerator}/{denominator} {table.metric}")


def _value(claim, table, axes, series_names, along) -> tuple[bool, str]:
    series = claim["series"]
    values = [(context, table.value(series, context)) for context in _contexts(axes, claim.get("at", {}))]
    return _compared(values, claim, f"{series} {table.metric}")


def _not_worse(a: float, b: float, higher_is_better: bool, tolerance: float) -> bool:
    """a is at least as good as b, allowing b to win by a relative `tolerance`."""
    slack = tolerance * abs(b)
    return a >= b - slack if higher_is_better else a <= b + slack


def _order(claim, table, axes, series_names, along) -> tuple[bool, str]:
    descending = claim.get("direction", "descending") == "descending"
    tolerance = claim.get("tolerance", 0.0)
    held, parts = True, []
    for context in _contexts(axes, claim.get("at", {})):
        values = [(name, table.value(name, context)) for name in claim["series"]]
        in_order = all(_not_worse(a, b, descending, tolerance) for (_, a), (_, b) in zip(values, values[1:]))
        held &= in_order
        sign = " > " if descending else " < "
        parts.append(f"{_where(context)}: " + sign.join(f"{name} {_format(v)}" for name, v in values)
                     + ("" if in_order else " [out of order]"))
    return held, "; ".join(parts)


def _best(claim, table, axes, series_names, along) -> tuple[bool, str]:
    best, highest = claim["series"], claim.get("direction", "max") == "max"
    rivals = [name for name in claim.get("among", series_names) if name != best]
    tolerance = claim.get("tolerance", 0.0)
    held, parts = True, []
    for context in _contexts(axes, claim.get("at", {})):
        mine = table.value(best, context)
        others = {name: table.value(name, context) for name in rivals}
        strongest = (max if highest else min)(others, key=others.get)
        wins = _not_worse(mine, others[strongest], highest, tolerance)
        held &= wins
        parts.append(f"{_where(context)}: {best} {_format(mine)} vs strongest rival {strongest} "
                     f"{_format(others[strongest])}" + ("" if wins else " [beaten]"))
    return held, "; ".join(parts)


def _monotone(claim, table, axes, series_names, along) -> tuple[bool, str]:
    increasing = claim["direction"] == "increasing"
    tolerance, abs_tolerance = claim.get("tolerance", 0.0), claim.get("abs_tolerance", 0.0)
    along = claim.get("along", along)
    steps = axes[along]
    if all(isinstance(step, (int, float)) for step in steps):
        steps = sorted(steps)
    if "ratio" in claim:
        numerator, denominator = claim["ratio"]
        targets = {f"{numerator}/{denominator}": lambda ctx: table.ratio(numerator, denominator, ctx)}
    else:
        names = claim.get("series", series_names)
        names = [names] if isinstance(names, str) else names
        targets = {name: (lambda ctx, name=name: table.value(name, ctx)) for name in names}
    held, parts = True, []
    for context in _contexts(axes, claim.get("at", {}), skip_axis=along):
        for name, lookup in targets.items():
            sequence = [lookup({axis: step if axis == along else context[axis] for axis in axes}) for step in steps]
            good = all((b >= a - max(tolerance * abs(a), abs_tolerance)) if increasing
                       else (b <= a + max(tolerance * abs(a), abs_tolerance))
                       for a, b in zip(sequence, sequence[1:]))
            held &= good
            where = f" at {_where(context)}" if context else ""
            parts.append(f"{name}{where} along {along}: " + " → ".join(_format(v) for v in sequence)
                         + ("" if good else " [not monotone]"))
    return held, "; ".join(parts)


EVALUATORS = {"ratio": _ratio, "value": _value, "order": _order, "best": _best, "monotone": _monotone}


def _assertion(claim: dict, hw_threads: int, max_threads: int | None) -> tuple[bool, str]:
    check = claim["check"]
    if check == "trend":
        return True, ""
    if check == "absolute":
        return False, "absolute number tied to the authors' hardware: reported, never asserted"
    condition, needed = claim["condition"], claim.get("requires_hw_threads")
    if needed is None:
        return False, f"condition: {condition} (not checked automatically, so not asserted)"
    reached = max_threads if max_threads is not None else hw_threads
    if hw_threads >= needed and reached >= needed:
        return True, f"condition met: {condition}"
    return False, (f"condition not met: {condition} (needs {needed} hardware threads; this machine has "
                   f"{hw_threads}, the sweep reaches {reached} threads)")


def evaluate_claim(claim: dict, table: pd.DataFrame, axes: dict[str, list], *, series_names: list[str],
                   default_metric: str | None, default_along: str | None = None,
                   hw_threads: int = 1, max_threads: int | None = None) -> ClaimResult:
    asserted, note = _assertion(claim, hw_threads, max_threads)
    try:
        lookup = _Table(table, claim.get("metric", default_metric))
        held, detail = EVALUATORS[claim["kind"]](claim, lookup, axes, series_names, default_along)
    except MissingData as missing:
        return ClaimResult(claim, NO_DATA, asserted, str(missing), note)
    return ClaimResult(claim, HELD if held else FAILED, asserted, detail, note)


def evaluate_figure_claims(figure, table: pd.DataFrame, hw_threads: int) -> list[ClaimResult]:
    """All claims of a resolved figure (config.ResolvedFigure) on its aggregated table."""
    plot = figure.config.plot
    return [evaluate_claim(claim, table, figure.axes,
                           series_names=[series.name for series in figure.config.series],
                           default_metric=plot["y"] if isinstance(plot["y"], str) else None,
                           default_along=plot["x"], hw_threads=hw_threads, max_threads=figure.max_threads())
            for claim in figure.config.claims]
