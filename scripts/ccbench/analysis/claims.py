"""Checking the papers' claims on a figure's runs: held, failed or inconclusive.

A claim is evaluated at the points its `at` selects (every value of an axis
it does not mention; a value or a list of values; `max`/`min` pick the
extreme swept value). It needs every value it looks at: one missing point
makes the outcome "no data", never a guess.

Each claim kind reduces to checks: a statistic computed from the points'
medians (a ratio of two series, a value, the margin by which one series is
ahead of another or a step goes the claimed way, a spread, a parallel
efficiency) that must satisfy a requirement (`>= bound`, `between`, ...).
A measured metric is not deterministic (Hoefler and Belli, "Scientific
benchmarking of parallel computing systems", SC'15, rule 5: say whether
measurements are deterministic, and give a confidence interval for those that
are not), so every check gets a 95% bootstrap interval: the repetitions of
each point are resampled with replacement (2000 times, seeded per point, so
the same runs always give the same verdict), the statistic is computed on
the medians of each resample, and the interval is the 2.5th to 97.5th
percentile of those. A check *held* when its whole interval satisfies the
requirement, *failed* when its whole interval violates it (the opposite
holds with that confidence), and is *inconclusive* otherwise. A claim failed
when one of its checks failed, held when all held, and is inconclusive
otherwise.

Why a bootstrap and not a rank test (Mann-Whitney): the claims compare
ratios with bounds other than 1, means over points, spreads of several
series, efficiencies and tolerances; a rank test answers only whether one
sample tends to exceed another, while the bootstrap gives an interval for
exactly the statistic the claim states, without assuming normality (rule 6)
and compared through its interval (rule 8). With 3 repetitions on each side
the interval excludes the bound only when every repetition of one side beats
every repetition of the other, which is also what an exact one-sided
Mann-Whitney test at p = 0.05 (1 of 20 orderings) demands, so nothing is lost
at the small profile's sample sizes. Fewer than 3 repetitions of a noisy
metric give no interval (the claim is inconclusive).

A metric the figure lists in `deterministic_metrics` (an algorithm's output
for a seed, such as an FVS size or a cluster count: no timing in it) has no
measurement noise: its checks are decided on the median, from one
repetition on. So is a reference series' point (measured data read from a
file, reference.py): one published number, whose noise its runs' repetitions
are not here to resample; the check's interval comes from the other side.
`speedup` (metrics.py) is computed per resample: the point's throughput over
the same series' throughput at one thread.

Whether an outcome is asserted depends on the claim's check kind: trend
claims (relations the paper's text states) are asserted; absolute claims (numbers tied to the
authors' hardware) are only reported; conditional claims are asserted only
where their condition is met here. `expected_here: fail` with a `reason`
marks a claim known not to hold on this machine (it needs more cores than it
has): it is still evaluated and reported, with its reason.
"""
from __future__ import annotations

import itertools
import math
import numbers
import operator
import warnings
import zlib
from dataclasses import dataclass, field
from typing import Callable, Collection

import numpy as np
import pandas as pd

from ccbench.specification.crossfield import series_references
from ccbench.specification.metrics import SPEEDUP, SPEEDUP_AXIS, SPEEDUP_OF, speedup_baseline

HELD, FAILED, INCONCLUSIVE, NO_DATA = "held", "failed", "inconclusive", "no data"
OUTCOMES = (HELD, FAILED, INCONCLUSIVE, NO_DATA)
CONFIDENCE = 0.95
BOOTSTRAP_REPLICATES = 2000
MIN_REPETITIONS = 3        # of a noisy metric at a point, for an interval (see the module's comment)
COMPARE = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt}
def _spread(stacked: np.ndarray, axis: int = 0) -> np.ndarray:
    """Largest / smallest over the points (per resample): how far values that should stay level
    ("relatively stable") drift apart."""
    if stacked[:, 0].min() <= 0:
        raise MissingData(f"a spread needs positive values; got {', '.join(_format(v) for v in stacked[:, 0])}")
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.max(stacked, axis=axis) / np.min(stacked, axis=axis)


REDUCE = {"mean": np.mean, "min": np.min, "max": np.max, "spread": _spread}


@dataclass
class Check:
    """One comparison behind a verdict: a statistic's estimate (on the medians) and its interval."""
    label: str
    estimate: float
    low: float
    high: float
    verdict: str

    @property
    def collapsed(self) -> bool:
        """No interval to show: a deterministic metric, or repetitions that all agree."""
        return self.low == self.high == self.estimate

    def as_dict(self) -> dict:
        return {"label": self.label, "estimate": _json_number(self.estimate), "low": _json_number(self.low),
                "high": _json_number(self.high), "verdict": self.verdict}


@dataclass
class ClaimResult:
    claim: dict
    outcome: str      # held, failed, inconclusive or no data
    asserted: bool
    detail: str       # the numbers behind the outcome
    note: str = ""    # why it is not asserted, which condition was met, why it is expected to fail here
    repetitions: tuple[int, int] | None = None     # fewest and most successful repetitions of the points it used
    points: list[tuple[str, tuple]] = field(default_factory=list)   # (series, ((axis, value), ...)) it used
    checks: list[Check] = field(default_factory=list)
    numbers: str = ""  # the detail without its list of intervals (the report shows it; the checks hold them)

    @property
    def label(self) -> str:
        return self.outcome if self.asserted else f"{self.outcome} (not asserted)"

    @property
    def expected_to_fail(self) -> bool:
        return self.claim.get("expected_here") == "fail"

    def repetitions_text(self) -> str:
        """How many repetitions the verdict took: "3" or "3-7" (fewest-most over its points)."""
        if self.repetitions is None:
            return "-"
        low, high = self.repetitions
        return str(low) if low == high else f"{low}-{high}"


class MissingData(Exception):
    pass


def _format(value: float) -> str:
    return "?" if math.isinf(value) or math.isnan(value) else f"{value:.4g}"


def _json_number(value: float) -> float | None:
    return None if math.isinf(value) or math.isnan(value) else float(value)


def _where(context: dict) -> str:
    return ", ".join(f"{axis}={value}" for axis, value in context.items()) or "the only point"


def _coordinate(value: object) -> object:
    """An axis value as a lookup key: 0, 0.0 and numpy's 0.0 are one point, strings stay strings."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Number):
        return round(float(value), 9)
    return value


def group_key(series: str, coords) -> tuple:
    """A point without its repetition, as claims name the points they use: (series, ((axis, value), ...))
    with the axes in the figure's order."""
    return series, tuple((axis, _coordinate(value)) for axis, value in coords)


def _interval(values: np.ndarray) -> tuple[float, float]:
    """The bootstrap percentile interval of values[1:] (values[0] is the estimate). A replicate with no value
    (a zero denominator, a resample without the metric) could be anything: it counts as -inf for the low end
    and +inf for the high end, so that many of them make the interval unbounded, hence inconclusive."""
    replicates = values[1:]
    missing = np.isnan(replicates)
    tail = 100 * (1 - CONFIDENCE) / 2
    low = np.percentile(np.where(missing, -np.inf, replicates), tail, method="lower")
    high = np.percentile(np.where(missing, np.inf, replicates), 100 - tail, method="higher")
    return float(low), float(high)


def _satisfies(value: float, op: str, bound) -> bool:
    return bound[0] <= value <= bound[1] if op == "between" else COMPARE[op](value, bound)


def _interval_verdict(low: float, high: float, op: str, bound) -> str:
    """held: the whole interval satisfies the requirement; failed: none of it does; else inconclusive."""
    if _satisfies(low, op, bound) and _satisfies(high, op, bound):
        return HELD
    outside = (high < bound[0] or low > bound[1]) if op == "between" else \
        not (_satisfies(low, op, bound) or _satisfies(high, op, bound))
    return FAILED if outside else INCONCLUSIVE


class Samples:
    """Each point's metric values over its successful repetitions, as arrays [median, replicate medians...]:
    index 0 is the median of all repetitions (what the table and the plot show), 1.. the medians of
    BOOTSTRAP_REPLICATES resamples. Every metric of a point is resampled with the same draws (a resample
    is a set of runs), so that two metrics of one run stay paired. Deterministic metrics, a reference
    series' points (rows with `reference` true: measured data) and points whose repetitions all agree
    repeat the median; a noisy metric with fewer than MIN_REPETITIONS values has NaN replicates (no
    interval)."""

    def __init__(self, runs: pd.DataFrame, axes: list[str], deterministic: Collection[str] = (),
                 breakdown: dict | None = None, replicates: int = BOOTSTRAP_REPLICATES):
        ok = runs[runs["status"] == "ok"] if "status" in runs.columns else runs
        self.axes, self.deterministic, self.breakdown = list(axes), set(deterministic), breakdown
        self.replicates = replicates
        self.columns = set(runs.columns)
        positions: dict[tuple, list[int]] = {}
        for index, row in enumerate(ok[["series", *self.axes]].itertuples(index=False)):
            positions.setdefault(self._key(row[0], dict(zip(self.axes, row[1:]))), []).append(index)
        self._rows = {key: ok.iloc[rows] for key, rows in positions.items()}
        self.fixed = {key for key, rows in self._rows.items()
                      if "reference" in rows.columns and rows["reference"].astype(bool).all()}
        self._draws: dict[tuple, np.ndarray] = {}
        self._cache: dict[tuple, np.ndarray] = {}
        self.looked_at: set[tuple] = set()       # points used by the claim being evaluated
        self.short: set[tuple] = set()           # ... where a noisy metric had too few repetitions

    def _key(self, series: str, context: dict) -> tuple:
        return group_key(series, ((axis, context[axis]) for axis in self.axes))

    def has(self, metric: str) -> bool:
        if metric == SPEEDUP:
            return SPEEDUP_OF in self.columns and SPEEDUP_AXIS in self.axes
        return metric in self.columns or metric in self._breakdown_columns()

    def _breakdown_columns(self) -> list[str]:
        from ccbench.specification.crossfield import breakdown_columns   # the config checks are heavier
        return breakdown_columns(self.breakdown) if self.breakdown else []

    def count(self, key: tuple) -> int:
        rows = self._rows.get(key)
        return 0 if rows is None else len(rows)

    def values(self, metric: str, series: str, context: dict) -> np.ndarray:
        if metric in self._breakdown_columns():
            return self._breakdown_value(metric, series, context)
        if metric == SPEEDUP:
            return _quotient(self.values(SPEEDUP_OF, series, context),
                             self.values(SPEEDUP_OF, series, speedup_baseline(context)),
                             f"{series}'s {SPEEDUP} ({SPEEDUP_OF} over its {SPEEDUP_OF} at {SPEEDUP_AXIS}=1)", context)
        key = self._key(series, context)
        self.looked_at.add(key)
        if (metric, key) not in self._cache:
            self._cache[metric, key] = self._compute(metric, key, series, context)
        values = self._cache[metric, key]
        if metric not in self.deterministic and np.isnan(values[1:]).all() and not np.isnan(values[0]):
            self.short.add(key)
        return values

    def _compute(self, metric: str, key: tuple, series: str, context: dict) -> np.ndarray:
        rows = self._rows.get(key)
        column = np.array([], dtype=float) if rows is None else pd.to_numeric(rows[metric], errors="coerce").to_numpy(float)
        present = column[~np.isnan(column)]
        if not len(present):
            raise MissingData(f"no {metric} for {series} at {_where(context)}")
        estimate = float(np.median(present))
        if metric in self.deterministic or key in self.fixed or \
                (present == present[0]).all() and len(present) >= MIN_REPETITIONS:
            return np.full(self.replicates + 1, estimate)
        if len(present) < MIN_REPETITIONS:
            return np.concatenate([[estimate], np.full(self.replicates, np.nan)])
        if key not in self._draws:   # seeded by the point, so a verdict does not depend on evaluation order
            generator = np.random.default_rng(zlib.crc32(repr(key).encode()))
            self._draws[key] = generator.integers(0, len(column), size=(self.replicates, len(column)))
        with warnings.catch_warnings():     # a resample of only NaN values has no median: NaN, on purpose
            warnings.simplefilter("ignore", RuntimeWarning)
            replicates = np.nanmedian(column[self._draws[key]], axis=1)
        return np.concatenate([[estimate], replicates])

    def _breakdown_value(self, metric: str, series: str, context: dict) -> np.ndarray:
        from ccbench.analysis.tables import breakdown_values
        if series != self.breakdown["subject"]:
            raise MissingData(f"no {metric} for {series} at {_where(context)} (only {self.breakdown['subject']} "
                              f"has the breakdown)")
        return np.asarray(breakdown_values(self.breakdown, lambda name, part: self.values(part, name, context))[metric],
                          dtype=float)


class _Table:
    """One metric of the samples, looked up by series and axis values; collects the claim's checks."""

    def __init__(self, samples: Samples, metric: str | None, checks: list[Check]):
        if metric is None or not samples.has(metric):
            raise MissingData(f"the table has no column for metric '{metric}'")
        self.samples, self.metric, self.checks = samples, metric, checks

    def on(self, metric: str) -> "_Table":
        return _Table(self.samples, metric, self.checks)

    def value(self, series: str, context: dict) -> np.ndarray:
        return self.samples.values(self.metric, series, context)

    def ratio(self, numerator: str, denominator: str, context: dict) -> np.ndarray:
        return _quotient(self.value(numerator, context), self.value(denominator, context),
                         f"{numerator}/{denominator}", context)

    def check(self, label: str, values: np.ndarray, op: str, bound) -> str:
        """Judge one statistic (values[0] the estimate, values[1:] its replicates); returns the verdict."""
        low, high = _interval(values)
        verdict = _interval_verdict(low, high, op, bound)
        self.checks.append(Check(label, float(values[0]), low, high, verdict))
        return verdict


def _quotient(top: np.ndarray, bottom: np.ndarray, what: str, context: dict) -> np.ndarray:
    """top / bottom; a zero denominator is no data: x/0 would make any ratio claim hold (or fail)
    vacuously, e.g. a monotone ratio over points where the denominator series counted nothing. A
    resample with a zero denominator has no ratio (NaN)."""
    if bottom[0] == 0:
        raise MissingData(f"{what} is {_format(top[0])}/0 at {_where(context)}: a zero denominator has no ratio")
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(bottom != 0, top / np.where(bottom != 0, bottom, 1.0), np.nan)


def _shown(values: np.ndarray) -> str:
    return _format(values[0])


def _mark(verdicts: list[str], failed: str) -> str:
    """The marker after a point's numbers: what went wrong there, or that it is undecided."""
    if FAILED in verdicts:
        return f" [{failed}]"
    return " [undecided]" if INCONCLUSIVE in verdicts else ""


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


def _requirement(claim: dict) -> str:
    op, bound = claim["op"], claim["bound"]
    return f"in [{_format(bound[0])}, {_format(bound[1])}]" if op == "between" else f"{op} {_format(bound)}"


def _compared(values: list[tuple[dict, np.ndarray]], claim: dict, what: str, table: _Table) -> str:
    """Apply op/bound to each value (reduce: every) or to their mean/min/max."""
    reduce = claim.get("reduce", "every")
    listed = "; ".join(f"{_where(context)}: {_shown(value)}" for context, value in values)
    if reduce == "every":
        for context, value in values:
            table.check(_where(context), value, claim["op"], claim["bound"])
        return f"{what}: {listed} (each needs {_requirement(claim)})"
    reduced = REDUCE[reduce](np.vstack([value for _, value in values]), axis=0)
    table.check(reduce, reduced, claim["op"], claim["bound"])
    return f"{what}: {reduce} {_shown(reduced)} over {listed} (needs {_requirement(claim)})"


def _series_list(claim: dict, series_names: list[str]) -> list[str]:
    """The claim's `series` (one or a list), or every series of the figure."""
    names = claim.get("series", series_names)
    return [names] if isinstance(names, str) else list(names)


def _ratio(claim, table, axes, series_names, along) -> str:
    numerator, denominator = claim["numerator"], claim["denominator"]
    if "numerator_metric" in claim or "denominator_metric" in claim:   # two metrics, e.g. of one series
        top = table.on(claim.get("numerator_metric", table.metric))
        bottom = table.on(claim.get("denominator_metric", table.metric))

        def quotient(context: dict) -> np.ndarray:
            return _quotient(top.value(numerator, context), bottom.value(denominator, context),
                             f"{numerator} {top.metric} / {denominator} {bottom.metric}", context)
        values = [(context, quotient(context)) for context in _contexts(axes, claim.get("at", {}))]
        return _compared(values, claim, f"{numerator} {top.metric} / {denominator} {bottom.metric}", table)
    values = [(context, table.ratio(numerator, denominator, context)) for context in _contexts(axes, claim.get("at", {}))]
    return _compared(values, claim, f"{numerator}/{denominator} {table.metric}", table)


def _value(claim, table, axes, series_names, along) -> str:
    series = claim["series"]
    values = [(context, table.value(series, context)) for context in _contexts(axes, claim.get("at", {}))]
    return _compared(values, claim, f"{series} {table.metric}", table)


def _margin(a: np.ndarray, b: np.ndarray, higher_is_better: bool, tolerance: float) -> np.ndarray:
    """How far a is at least as good as b, allowing b to win by a relative `tolerance` (>= 0: it is)."""
    slack = tolerance * np.abs(b)
    return a - (b - slack) if higher_is_better else (b + slack) - a


def _order(claim, table, axes, series_names, along) -> str:
    descending = claim.get("direction", "descending") == "descending"
    tolerance = claim.get("tolerance", 0.0)
    parts = []
    for context in _contexts(axes, claim.get("at", {})):
        values = [(name, table.value(name, context)) for name in claim["series"]]
        verdicts = [table.check(f"{_where(context)}: {a} − {b}", _margin(x, y, descending, tolerance), ">=", 0)
                    for (a, x), (b, y) in zip(values, values[1:])]
        sign = " > " if descending else " < "
        parts.append(f"{_where(context)}: " + sign.join(f"{name} {_shown(v)}" for name, v in values)
                     + _mark(verdicts, "out of order"))
    return "; ".join(parts)


def _strongest(rivals: dict[str, np.ndarray], highest: bool) -> tuple[str, np.ndarray]:
    """The rival named by the medians, and the strongest rival's value in each resample."""
    name = (max if highest else min)(rivals, key=lambda rival: rivals[rival][0])
    stacked = np.vstack(list(rivals.values()))
    return name, (np.max if highest else np.min)(stacked, axis=0)


def _best(claim, table, axes, series_names, along) -> str:
    best, highest = claim["series"], claim.get("direction", "max") == "max"
    rivals = [name for name in claim.get("among", series_names) if name != best]
    tolerance = claim.get("tolerance", 0.0)
    parts = []
    for context in _contexts(axes, claim.get("at", {})):
        mine = table.value(best, context)
        name, strongest = _strongest({rival: table.value(rival, context) for rival in rivals}, highest)
        verdict = table.check(f"{_where(context)}: {best} − strongest rival", _margin(mine, strongest, highest, tolerance),
                              ">=", 0)
        parts.append(f"{_where(context)}: {best} {_shown(mine)} vs strongest rival {name} "
                     f"{_format(strongest[0])}" + _mark([verdict], "beaten"))
    return "; ".join(parts)


def _sorted_steps(steps: list) -> list:
    return sorted(steps) if all(isinstance(step, (int, float)) for step in steps) else list(steps)


def _monotone(claim, table, axes, series_names, along) -> str:
    increasing = claim["direction"] == "increasing"
    tolerance, abs_tolerance = claim.get("tolerance", 0.0), claim.get("abs_tolerance", 0.0)
    along = claim.get("along", along)
    steps = _sorted_steps(axes[along])
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
    parts = []
    for context in _contexts(axes, claim.get("at", {}), skip_axis=along):
        for name, lookup in targets.items():
            sequence = [lookup({axis: step if axis == along else context[axis] for axis in axes}) for step in steps]
            where = f" at {_where(context)}" if context else ""
            verdicts = []
            for (step_a, a), (step_b, b) in zip(zip(steps, sequence), zip(steps[1:], sequence[1:])):
                slack = np.maximum(tolerance * np.abs(a), abs_tolerance)
                margin = b - (a - slack) if increasing else (a + slack) - b
                verdicts.append(table.check(f"{name}{where} {along} {step_a}→{step_b}", margin, ">=", 0))
            mark = _mark(verdicts, "not monotone")
            net = ""
            if "margin" in claim:   # growth: the last value beats the first by the margin, so a flat series fails
                first, last = sequence[0], sequence[-1]
                needed = claim["margin"] * np.abs(first)
                change = last - (first + needed) if increasing else (first - needed) - last
                verdict = table.check(f"{name}{where} {along} {steps[0]}→{steps[-1]}: net change beyond "
                                      f"{claim['margin']:.0%}", change, ">=", 0)
                net = f" (needs the last {'above' if increasing else 'below'} the first by {claim['margin']:.0%})"
                if FAILED not in verdicts:
                    mark = _mark([*verdicts, verdict], "no net change of the margin")
            parts.append(f"{name}{where} along {along}: " + " → ".join(_shown(v) for v in sequence) + net + mark)
    return "; ".join(parts)


def _similar(claim, table, axes, series_names, along) -> str:
    factor = claim["factor"]
    parts = []
    for context in _contexts(axes, claim.get("at", {})):
        values = {name: table.value(name, context) for name in claim["series"]}
        lowest = min(values, key=lambda name: values[name][0])
        highest = max(values, key=lambda name: values[name][0])
        stacked = np.vstack(list(values.values()))
        high, low = stacked.max(axis=0), stacked.min(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            spread = np.where(low > 0, high / np.where(low > 0, low, 1.0), np.where(high == low, 1.0, np.inf))
        verdict = table.check(f"{_where(context)}: highest / lowest", spread, "<=", factor)
        parts.append(f"{_where(context)}: highest {highest} {_format(high[0])} / lowest {lowest} {_format(low[0])} = "
                     f"{_shown(spread)}" + _mark([verdict], f"more than {factor}x apart"))
    return "; ".join(parts)


def _matches(claim, table, axes, series_names, along) -> str:
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
    parts = []
    for context in contexts:
        for name, fixed, number in expected:
            where = {axis: {**context, **fixed}[axis] for axis in axes}
            value = table.value(name, where)
            slack = max(tolerance * abs(number), abs_tolerance)
            verdict = table.check(f"{name} at {_where(where)}", value, "between", [number - slack, number + slack])
            parts.append(f"{name} at {_where(where)}: {_shown(value)} (expected {_format(number)})"
                         + _mark([verdict], "off"))
    return "; ".join(parts)


def _top_metric(claim, table, axes, series_names, along) -> str:
    highest = claim.get("direction", "max") == "max"
    tolerance = claim.get("tolerance", 0.0)
    others = [table.on(metric) for metric in claim["others"]]
    parts = []
    for context in _contexts(axes, claim.get("at", {})):
        for name in _series_list(claim, series_names):
            mine = table.value(name, context)
            strongest, values = _strongest({other.metric: other.value(name, context) for other in others}, highest)
            verdict = table.check(f"{name} at {_where(context)}: {table.metric} − strongest other",
                                  _margin(mine, values, highest, tolerance), ">=", 0)
            parts.append(f"{name} at {_where(context)}: {table.metric} {_shown(mine)} vs {strongest} "
                         f"{_format(values[0])}" + _mark([verdict], "beaten"))
    return "; ".join(parts)


def _scaling(claim, table, axes, series_names, along) -> str:
    """Parallel efficiency (y(v) / y(v0)) / (v / v0) against v0 = `from` (default the lowest swept value), at
    every swept v > v0 up to `up_to`, or only at v = `to`."""
    along = claim.get("along", along)
    swept = sorted(axes[along])
    start = claim.get("from", swept[0])
    if start not in swept:
        raise MissingData(f"{along}={start} (the claim's `from`) is not swept at this profile (swept: "
                          f"{', '.join(str(value) for value in swept)})")
    if "to" in claim:
        end = swept[-1] if claim["to"] == "max" else claim["to"]
        if end not in swept or end <= start:
            raise MissingData(f"{along}={end} (the claim's `to`) is not swept above {along}={start} at this profile "
                              f"(swept: {', '.join(str(value) for value in swept)})")
        steps = [end]
    else:
        up_to = claim.get("up_to", math.inf)
        steps = [value for value in swept if start < value <= up_to]
    if not steps:
        raise MissingData(f"no {along} above {start} is swept" + (f" up to {claim['up_to']}" if "up_to" in claim else ""))
    values = []
    for context in _contexts(axes, claim.get("at", {}), skip_axis=along):
        for name in _series_list(claim, series_names):
            reference = table.value(name, {**context, along: start})
            if reference[0] <= 0:
                raise MissingData(f"{name} has {table.metric} {_format(reference[0])} at {along}={start}")
            reference = np.where(reference > 0, reference, np.nan)
            for step in steps:
                speedup = table.value(name, {**context, along: step}) / reference
                values.append(({"series": name, **context, along: step}, speedup / (step / start)))
    return _compared(values, claim, f"parallel efficiency of {table.metric} relative to {along}={start}", table)


def _interior_optimum(claim, table, axes, series_names, along) -> str:
    """The best value along the axis lies strictly inside the swept range (a "sweet spot")."""
    highest = claim.get("direction", "max") == "max"
    along = claim.get("along", along)
    steps = _sorted_steps(axes[along])
    if len(steps) < 3:
        raise MissingData(f"only {len(steps)} values of {along} are swept; an interior optimum needs 3")
    best_of = np.max if highest else np.min
    parts = []
    for context in _contexts(axes, claim.get("at", {}), skip_axis=along):
        for name in _series_list(claim, series_names):
            sequence = np.vstack([table.value(name, {axis: step if axis == along else context[axis] for axis in axes})
                                  for step in steps])
            inside, edges = best_of(sequence[1:-1], axis=0), best_of(sequence[[0, -1]], axis=0)
            where = f" at {_where(context)}" if context else ""
            verdict = table.check(f"{name}{where}: best inside − best at the edges",
                                  inside - edges if highest else edges - inside, ">", 0)
            best = int((np.argmax if highest else np.argmin)(sequence[:, 0]))
            parts.append(f"{name}{where}: {'highest' if highest else 'lowest'} at {along}={steps[best]}"
                         + _mark([verdict], "at the edge of the sweep"))
    return "; ".join(parts)


def _peak(claim, table, axes, series_names, along) -> str:
    """The series at along = peak_at is at least as high (low) as at every other swept value (or, with a
    margin, higher (lower) by that relative margin, so that a flat curve fails)."""
    along, peak, series = claim.get("along", along), claim["peak_at"], claim["series"]
    highest, tolerance = claim.get("direction", "max") == "max", claim.get("tolerance", 0.0)
    margin = claim.get("margin", 0.0)   # the peak must beat every other value by this relative margin
    slack = -margin if margin else tolerance
    parts = []
    for context in _contexts(axes, claim.get("at", {}), skip_axis=along):
        at_peak = table.value(series, {**context, along: peak})
        rival, others = _strongest({step: table.value(series, {**context, along: step})
                                    for step in axes[along] if step != peak}, highest)
        where = f" at {_where(context)}" if context else ""
        verdict = table.check(f"{series}{where}: {along}={peak} − best other", _margin(at_peak, others, highest, slack),
                              ">=", 0)
        parts.append(f"{series}{where}: {along}={peak}: {_shown(at_peak)} vs best other {along}={rival}: "
                     f"{_format(others[0])}" + (f" (needs a {margin:.0%} lead)" if margin else "")
                     + _mark([verdict], "not the peak"))
    return "; ".join(parts)


def _superadditive(claim, table, axes, series_names, along) -> str:
    """The combination gains more over the baseline than its parts together: combined - baseline >
    sum(part - baseline) at every selected point (TSKD: "even better than the sum of the improvement by
    the two separately")."""
    combined, parts, baseline = claim["combined"], claim["parts"], claim["baseline"]
    details = []
    for context in _contexts(axes, claim.get("at", {})):
        base = table.value(baseline, context)
        gain = table.value(combined, context) - base
        part_gains = {name: table.value(name, context) - base for name in parts}
        excess = gain - sum(part_gains.values())
        verdict = table.check(f"{_where(context)}: {combined}'s gain − its parts' gains", excess, ">", 0)
        details.append(f"{_where(context)}: {combined} gains {_shown(gain)} over {baseline} vs "
                       + " + ".join(f"{name} {_shown(g)}" for name, g in part_gains.items())
                       + f" = {_format(sum(g[0] for g in part_gains.values()))}"
                       + _mark([verdict], "not more than the sum"))
    return "; ".join(details)


def _agrees(claim, table, axes, series_names, along) -> str:
    """The series within a relative `tolerance` of the reference's value, or within `abs_tolerance` of it, at
    every selected point: margin = max(tolerance x |reference|, abs_tolerance) - |series - reference| >= 0
    (sim-validation: simulated against native, docs/sim.md)."""
    series, reference = claim["series"], claim["reference"]
    tolerance, abs_tolerance = claim.get("tolerance", 0.0), claim.get("abs_tolerance", 0.0)
    parts = []
    for context in _contexts(axes, claim.get("at", {})):
        mine, theirs = table.value(series, context), table.value(reference, context)
        margin = np.maximum(tolerance * np.abs(theirs), abs_tolerance) - np.abs(mine - theirs)
        verdict = table.check(f"{_where(context)}: {series} vs {reference}", margin, ">=", 0)
        parts.append(f"{_where(context)}: {series} {_shown(mine)} vs {reference} {_shown(theirs)}"
                     + _mark([verdict], "apart"))
    return "; ".join(parts)


EVALUATORS: dict[str, Callable[..., str]] = {
    "ratio": _ratio, "value": _value, "order": _order, "best": _best, "monotone": _monotone,
    "similar": _similar, "matches": _matches, "top_metric": _top_metric, "scaling": _scaling,
    "interior_optimum": _interior_optimum, "peak": _peak, "superadditive": _superadditive,
    "agrees": _agrees}


def _assertion(claim: dict, hw_threads: int, max_threads: int | None, simulated: bool = False) -> tuple[bool, str]:
    """(asserted, note). Simulated (every series the claim uses runs on virtual cores, docs/sim.md): the
    virtual cores count as the hardware threads, so hw_threads is the sweep's largest virtual core count."""
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
        where = f" (simulated: {hw_threads} virtual cores)" if simulated else ""
        return True, f"condition met{where}: {condition}"
    machine = f"the simulation has {hw_threads} virtual cores" if simulated else f"this machine has {hw_threads}"
    return False, (f"condition not met: {condition} (needs {needed} hardware threads; {machine}, the sweep "
                   f"reaches {reached} threads)")


def _outcome(checks: list[Check]) -> str:
    verdicts = {check.verdict for check in checks}
    return FAILED if FAILED in verdicts else INCONCLUSIVE if INCONCLUSIVE in verdicts else HELD


def _intervals(checks: list[Check]) -> str:
    """The intervals behind a verdict, for the checks that have one."""
    shown = [check for check in checks  # an unbounded interval is explained by the note on repetitions
             if not check.collapsed and not (math.isinf(check.low) and math.isinf(check.high))]
    if not shown:
        return ""
    return (f" | {CONFIDENCE:.0%} intervals: "
            + "; ".join(f"{check.label}: {_format(check.estimate)} [{_format(check.low)}, {_format(check.high)}]"
                        + ("" if check.verdict == HELD else f" ({check.verdict})") for check in shown))


def evaluate_claim(claim: dict, runs: pd.DataFrame | Samples, axes: dict[str, list], *, series_names: list[str],
                   default_metric: str | None, default_along: str | None = None, hw_threads: int = 1,
                   max_threads: int | None = None, deterministic_metrics: Collection[str] = (),
                   simulated: bool = False) -> ClaimResult:
    """One claim on a figure's runs (a tidy table with one row per run: series, axes, status, metrics;
    rows without a status are successful runs) or on Samples made of them. `simulated`: the claim's series
    run on virtual cores, and hw_threads is their largest count (_assertion)."""
    samples = runs if isinstance(runs, Samples) else Samples(runs, list(axes), deterministic_metrics)
    samples.looked_at, samples.short = set(), set()
    asserted, note = _assertion(claim, hw_threads, max_threads, simulated)
    if claim.get("expected_here") == "fail":
        note = "; ".join(filter(None, [note, f"expected to fail here: {claim['reason']}"]))
    checks: list[Check] = []
    try:
        metric = claim.get("metric", default_metric)
        if metric is None and claim["kind"] == "ratio":   # both metrics named by the claim itself
            metric = claim.get("numerator_metric", claim.get("denominator_metric"))
        detail = EVALUATORS[claim["kind"]](claim, _Table(samples, metric, checks), axes, series_names, default_along)
        outcome = _outcome(checks)
    except MissingData as missing:
        outcome, detail, checks = NO_DATA, str(missing), []
    counts = [samples.count(key) for key in samples.looked_at]
    if outcome == INCONCLUSIVE and samples.short:
        fewest = min(samples.count(key) for key in samples.short)
        detail += (f" | only {fewest} repetition(s) at some points: a noisy metric needs {MIN_REPETITIONS} for an "
                   f"interval")
    return ClaimResult(claim, outcome, asserted, detail + _intervals(checks), note,
                       (min(counts), max(counts)) if counts else None, sorted(samples.looked_at, key=repr), checks,
                       detail)


def claim_machine(figure, claim: dict, hw_threads: int) -> tuple[int, int, bool]:
    """(hardware threads, threads the sweep reaches, simulated) for a claim of a resolved figure: when every
    series it uses (the ones it names, else all) is simulated, the virtual cores count as hardware threads
    (the issue's "claims marked requires_hw_threads are checked under sim"); else this machine's."""
    names = {name for _, listed in series_references(claim) for name in listed} or \
        {series.name for series in figure.config.series}
    if names <= set(figure.simulated_series()):
        cores = max(figure.virtual_cores(names), default=0)
        return cores, cores, True
    return hw_threads, figure.max_threads(), False


def evaluate_figure_claims(figure, runs: pd.DataFrame, hw_threads: int) -> list[ClaimResult]:
    """All claims of a resolved figure (config.ResolvedFigure) on its runs (tables.runs_table)."""
    plot = figure.config.plot
    samples = Samples(runs, list(figure.axes), figure.config.deterministic_metrics, figure.config.breakdown)
    results = []
    for claim in figure.config.claims:
        threads, reached, simulated = claim_machine(figure, claim, hw_threads)
        results.append(evaluate_claim(claim, samples, figure.axes,
                                      series_names=[series.name for series in figure.config.series],
                                      default_metric=plot["y"] if isinstance(plot["y"], str) else None,
                                      default_along=plot["x"], hw_threads=threads, max_threads=reached,
                                      simulated=simulated))
    return results
