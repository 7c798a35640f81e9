"""Checking the papers' claims against a figure's aggregated table.

A claim is evaluated at the points its `at` selects (every value of an axis
it does not mention; a value or a list of values; `max`/`min` pick the
extreme swept value) on the median of the repetitions. It needs every value it looks at: one missing point
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


def _spread(values: list[float]) -> float:
    """Largest / smallest: how far values that should stay level ("relatively stable") drift apart."""
    if min(values) <= 0:
        raise MissingData(f"a spread needs positive values; got {', '.join(_format(v) for v in values)}")
    return max(values) / min(values)


REDUCE = {"mean": mean, "min": min, "max": max, "spread": _spread}


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
        return _quotient(self.value(numerator, context), self.value(denominator, context),
                         f"{numerator}/{denominator}", context)


def _quotient(top: float, bottom: float, what: str, context: dict) -> float:
    """top / bottom; a zero denominator is no data: x/0 would make any ratio claim hold (or fail)
    vacuously, e.g. a monotone ratio over points where the denominator series counted nothing."""
    if bottom == 0:
        raise MissingData(f"{what} is {_format(top)}/0 at {_where(context)}: a zero denominator has no ratio")
    return top / bottom


def _selected(values: list, selector: object) -> list:
    """The swept values an `at` selector picks: all, max, min, one value or a list of those."""
    if isinstance(selector, list):
        return [value for item in selector for value in _selected(values, item)]
    if selector == "all":
        return list(values)
    if selector in ("max", "min"):
        return [max(values) if selector == "max" else min(values)]
    return [selector]


def _contexts(axes: dict[str, list], at: dict, skip_axis: str | None = None) -> list[dict]:
    choices = [[(axis, value) for value in _selected(values, at.get(axis, "all"))]
               for axis, values in axes.items() if axis != skip_axis]
    return [dict(combination) for combination in itertools.product(*choices)]


def _satisfies(value: float, claim: dict) -> bool:
    op, bound = claim["op"], claim["bound"]
    return bound[0] <= value <= bound[1] if op == "between" else COMPARE[op](value, bound)


def _requirement(claim: dict) -> str:
    op, bound = claim["op"], claim["bound"]
    return f"in [{_format(bound[0])}, {_format(bound[1])}]" if op == "between" else f"{op} {_format(bound)}"


def _compared(values: list[tuple[dict, float]], claim: dict, what: str) -> tuple[bool, str]:
    """Apply op/bound to each value (reduce: every) or to their mean/min/max."""
    reduce = claim.get("reduce", "every")
    listed = "; ".join(f"{_where(context)}: {_format(value)}" for context, value in values)
    if reduce == "every":
        return all(_satisfies(value, claim) for _, value in values), \
            f"{what}: {listed} (each needs {_requirement(claim)})"
    reduced = REDUCE[reduce]([value for _, value in values])
    return _satisfies(reduced, claim), (f"{what}: {reduce} {_format(reduced)} over {listed} "
                                        f"(needs {_requirement(claim)})")


def _series_list(claim: dict, series_names: list[str]) -> list[str]:
    """The claim's `series` (one or a list), or every series of the figure."""
    names = claim.get("series", series_names)
    return [names] if isinstance(names, str) else list(names)


def _ratio(claim, table, axes, series_names, along) -> tuple[bool, str]:
    numerator, denominator = claim["numerator"], claim["denominator"]
    if "numerator_metric" in claim or "denominator_metric" in claim:   # two metrics, e.g. of one series
        top = _Table(table.table, claim.get("numerator_metric", table.metric))
        bottom = _Table(table.table, claim.get("denominator_metric", table.metric))

        def quotient(context: dict) -> float:
            return _quotient(top.value(numerator, context), bottom.value(denominator, context),
                             f"{numerator} {top.metric} / {denominator} {bottom.metric}", context)
        values = [(context, quotient(context)) for context in _contexts(axes, claim.get("at", {}))]
        return _compared(values, claim, f"{numerator} {top.metric} / {denominator} {bottom.metric}")
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


def _beats_by(a: float, b: float, higher_is_better: bool, margin: float) -> bool:
    """a is better than b by at least a relative `margin` of b (so equal values, a flat curve, fail)."""
    lead = margin * abs(b)
    return a >= b + lead if higher_is_better else a <= b - lead


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
    if "within" in claim:   # only the stretch [low, high] of the axis (e.g. bcc Fig 5's three stages of 2PL)
        low, high = claim["within"]
        steps = [step for step in steps if low <= step <= high]
        if len(steps) < 2:
            raise MissingData(f"fewer than two swept {along} values within [{_format(low)}, {_format(high)}]")
    if "ratio" in claim:
        numerator, denominator = claim["ratio"]
        targets = {f"{numerator}/{denominator}": lambda ctx: table.ratio(numerator, denominator, ctx)}
    else:
        targets = {name: (lambda ctx, name=name: table.value(name, ctx))
                   for name in _series_list(claim, series_names)}
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


def _similar(claim, table, axes, series_names, along) -> tuple[bool, str]:
    factor = claim["factor"]
    held, parts = True, []
    for context in _contexts(axes, claim.get("at", {})):
        values = {name: table.value(name, context) for name in claim["series"]}
        lowest, highest = min(values, key=values.get), max(values, key=values.get)
        low, high = values[lowest], values[highest]
        spread = high / low if low > 0 else (1.0 if high == low else math.inf)
        close = spread <= factor
        held &= close
        parts.append(f"{_where(context)}: highest {highest} {_format(high)} / lowest {lowest} {_format(low)} = "
                     f"{_format(spread)}" + ("" if close else f" [more than {factor}x apart]"))
    return held, "; ".join(parts)


def _matches(claim, table, axes, series_names, along) -> tuple[bool, str]:
    """Each value within tolerance of the paper's, per series (by: series) or per axis value."""
    by = claim.get("by", along)
    tolerance, abs_tolerance = claim.get("tolerance", 0.0), claim.get("abs_tolerance", 0.0)
    if by == "series":
        expected = [(name, {}, number) for name, number in claim["expected"].items()]
        contexts = _contexts(axes, claim.get("at", {}))
    else:
        expected = [(name, {by: value}, number) for name in _series_list(claim, series_names)
                    for value, number in claim["expected"].items()]
        contexts = _contexts(axes, claim.get("at", {}), skip_axis=by)
    held, parts = True, []
    for context in contexts:
        for name, fixed, number in expected:
            where = {axis: {**context, **fixed}[axis] for axis in axes}
            value = table.value(name, where)
            close = abs(value - number) <= max(tolerance * abs(number), abs_tolerance)
            held &= close
            parts.append(f"{name} at {_where(where)}: {_format(value)} (expected {_format(number)})"
                         + ("" if close else " [off]"))
    return held, "; ".join(parts)


def _top_metric(claim, table, axes, series_names, along) -> tuple[bool, str]:
    highest = claim.get("direction", "max") == "max"
    tolerance = claim.get("tolerance", 0.0)
    others = [_Table(table.table, metric) for metric in claim["others"]]
    held, parts = True, []
    for context in _contexts(axes, claim.get("at", {})):
        for name in _series_list(claim, series_names):
            mine = table.value(name, context)
            rivals = {other.metric: other.value(name, context) for other in others}
            strongest = (max if highest else min)(rivals, key=rivals.get)
            wins = _not_worse(mine, rivals[strongest], highest, tolerance)
            held &= wins
            parts.append(f"{name} at {_where(context)}: {table.metric} {_format(mine)} vs {strongest} "
                         f"{_format(rivals[strongest])}" + ("" if wins else " [beaten]"))
    return held, "; ".join(parts)


def _scaling(claim, table, axes, series_names, along) -> tuple[bool, str]:
    """Parallel efficiency (y(v) / y(v0)) / (v / v0) against the lowest swept v0."""
    along = claim.get("along", along)
    swept = sorted(axes[along])
    start, up_to = swept[0], claim.get("up_to", math.inf)
    steps = [value for value in swept[1:] if value <= up_to]
    if not steps:
        raise MissingData(f"only {along}={start} is swept" + (f" up to {up_to}" if "up_to" in claim else ""))
    values = []
    for context in _contexts(axes, claim.get("at", {}), skip_axis=along):
        for name in _series_list(claim, series_names):
            reference = table.value(name, {**context, along: start})
            if reference <= 0:
                raise MissingData(f"{name} has {table.metric} {_format(reference)} at {along}={start}")
            for step in steps:
                speedup = table.value(name, {**context, along: step}) / reference
                values.append(({"series": name, **context, along: step}, speedup / (step / start)))
    return _compared(values, claim, f"parallel efficiency of {table.metric} relative to {along}={start}")


def _interior_optimum(claim, table, axes, series_names, along) -> tuple[bool, str]:
    """The best value along the axis lies strictly inside the swept range (a "sweet spot")."""
    highest = claim.get("direction", "max") == "max"
    along = claim.get("along", along)
    steps = axes[along]
    if all(isinstance(step, (int, float)) for step in steps):
        steps = sorted(steps)
    if len(steps) < 3:
        raise MissingData(f"only {len(steps)} values of {along} are swept; an interior optimum needs 3")
    held, parts = True, []
    for context in _contexts(axes, claim.get("at", {}), skip_axis=along):
        for name in _series_list(claim, series_names):
            sequence = [table.value(name, {axis: step if axis == along else context[axis] for axis in axes})
                        for step in steps]
            best = (max if highest else min)(range(len(steps)), key=lambda i: sequence[i])
            inside = 0 < best < len(steps) - 1
            held &= inside
            where = f" at {_where(context)}" if context else ""
            parts.append(f"{name}{where}: {'highest' if highest else 'lowest'} at {along}={steps[best]}"
                         + ("" if inside else " [at the edge of the sweep]"))
    return held, "; ".join(parts)


def _peak(claim, table, axes, series_names, along) -> tuple[bool, str]:
    """The series at along = peak_at is at least as high (low) as at every other swept value (or, with a
    margin, higher (lower) by that relative margin)."""
    along, peak, series = claim.get("along", along), claim["peak_at"], claim["series"]
    highest, tolerance = claim.get("direction", "max") == "max", claim.get("tolerance", 0.0)
    margin = claim.get("margin", 0.0)   # the peak must beat every other value by this relative margin
    held, parts = True, []
    for context in _contexts(axes, claim.get("at", {}), skip_axis=along):
        values = {step: table.value(series, {**context, along: step}) for step in axes[along]}
        others = {step: v for step, v in values.items() if step != peak}
        rival = (max if highest else min)(others, key=others.get)
        wins = (_beats_by(values[peak], others[rival], highest, margin) if margin
                else _not_worse(values[peak], others[rival], highest, tolerance))
        held &= wins
        where = f" at {_where(context)}" if context else ""
        parts.append(f"{series}{where}: {along}={peak}: {_format(values[peak])} vs best other {along}={rival}: "
                     f"{_format(others[rival])}" + (f" (needs a {margin:.0%} lead)" if margin else "")
                     + ("" if wins else " [not the peak]"))
    return held, "; ".join(parts)


def _superadditive(claim, table, axes, series_names, along) -> tuple[bool, str]:
    """The combination gains more over the baseline than its parts together: combined - baseline >
    sum(part - baseline) at every selected point (TSKD: "even better than the sum of the improvement by
    the two separately")."""
    combined, parts, baseline = claim["combined"], claim["parts"], claim["baseline"]
    held, details = True, []
    for context in _contexts(axes, claim.get("at", {})):
        base = table.value(baseline, context)
        gain = table.value(combined, context) - base
        part_gains = {name: table.value(name, context) - base for name in parts}
        more = gain > sum(part_gains.values())
        held &= more
        details.append(f"{_where(context)}: {combined} gains {_format(gain)} over {baseline} vs "
                       + " + ".join(f"{name} {_format(g)}" for name, g in part_gains.items())
                       + f" = {_format(sum(part_gains.values()))}" + ("" if more else " [not more than the sum]"))
    return held, "; ".join(details)


EVALUATORS = {"ratio": _ratio, "value": _value, "order": _order, "best": _best, "monotone": _monotone,
              "similar": _similar, "matches": _matches, "top_metric": _top_metric, "scaling": _scaling,
              "interior_optimum": _interior_optimum,
              "peak": _peak, "superadditive": _superadditive}


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
        metric = claim.get("metric", default_metric)
        if metric is None and claim["kind"] == "ratio":   # both metrics named by the claim itself
            metric = claim.get("numerator_metric", claim.get("denominator_metric"))
        lookup = _Table(table, metric)
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
