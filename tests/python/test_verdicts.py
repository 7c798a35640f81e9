"""Verdicts on synthetic repetitions: held only when the whole 95% bootstrap interval satisfies the claim,
failed when none of it does, inconclusive otherwise; for every claim kind, per step and per pair; decided
from one repetition only for deterministic metrics; seeded, so the same runs give the same verdict."""
from __future__ import annotations

import itertools
import zlib

import pandas as pd
import pytest

from ccbench.analysis.claims import FAILED, HELD, INCONCLUSIVE, NO_DATA, Samples, evaluate_claim
from test_claims import AXES, SERIES, THROUGHPUT

PATTERN = [-1.0, -0.5, 0.0, 0.5, 1.0]     # five repetitions around the point's value; their median is the value


def noisy_runs(spread: float) -> pd.DataFrame:
    """test_claims' table (a > b > c; a falls with theta; all double with threads) as five repetitions per
    point, value x (1 + spread x p) for p in PATTERN, in an order that differs per point (so that series are
    not perfectly correlated), plus `other` = 0.95 x throughput with its own order."""
    rows = []
    for (series, theta), value in THROUGHPUT.items():
        for threads in AXES["threads"]:
            orders = itertools.permutations(PATTERN)
            salt = zlib.crc32(f"{series}{theta}{threads}".encode())
            order = list(itertools.islice(orders, salt % 120, None))[0]
            other_order = order[::-1]
            for repetition, (p, q) in enumerate(zip(order, other_order)):
                rows.append({"series": series, "theta": theta, "threads": threads, "repetition": repetition,
                             "status": "ok", "throughput": value * threads * (1 + spread * p),
                             "other": 0.95 * value * threads * (1 + spread * q),
                             "abort_rate": theta * threads / 10})
    return pd.DataFrame(rows)


def judge(claim: dict, runs: pd.DataFrame, **options):
    claim = {"id": "c", "text": "t", "check": "trend", **claim}
    return evaluate_claim(claim, runs, AXES, series_names=SERIES, default_metric="throughput",
                          default_along="theta", **options)


# One claim per kind that holds on the values with a margin above 2% (so ±1% noise keeps it held), and one
# that the values contradict by more than that.
HOLDS_AND_REVERSED = {
    "ratio": ({"kind": "ratio", "numerator": "a", "denominator": "b", "op": ">=", "bound": 1.2},
              {"kind": "ratio", "numerator": "a", "denominator": "b", "op": "<=", "bound": 1.0}),
    "ratio-mean": ({"kind": "ratio", "numerator": "a", "denominator": "b", "op": ">=", "bound": 1.45, "reduce": "mean"},
                   {"kind": "ratio", "numerator": "a", "denominator": "b", "op": ">=", "bound": 1.6, "reduce": "mean"}),
    "value": ({"kind": "value", "series": "a", "op": ">=", "bound": 45, "at": {"theta": 0.9}},
              {"kind": "value", "series": "a", "op": "<=", "bound": 45, "at": {"theta": 0.9}}),
    "order": ({"kind": "order", "series": ["a", "b", "c"]}, {"kind": "order", "series": ["c", "b", "a"]}),
    "best": ({"kind": "best", "series": "a"}, {"kind": "best", "series": "c"}),
    "monotone": ({"kind": "monotone", "series": "a", "direction": "decreasing"},
                 {"kind": "monotone", "series": "a", "direction": "increasing"}),
    "similar": ({"kind": "similar", "series": ["a", "b"], "factor": 1.8},
                {"kind": "similar", "series": ["a", "b"], "factor": 1.1}),
    "matches": ({"kind": "matches", "series": "a", "expected": {0.0: 100, 0.9: 50}, "tolerance": 0.05,
                 "at": {"threads": 1}},
                {"kind": "matches", "series": "a", "expected": {0.0: 150}, "tolerance": 0.05, "at": {"threads": 1}}),
    "top_metric": ({"kind": "top_metric", "metric": "throughput", "others": ["other"]},
                   {"kind": "top_metric", "metric": "throughput", "others": ["other"], "direction": "min"}),
    "scaling": ({"kind": "scaling", "along": "threads", "op": ">=", "bound": 0.9},
                {"kind": "scaling", "along": "threads", "op": "<=", "bound": 0.8}),
    "interior_optimum": ({"kind": "interior_optimum", "series": "c", "along": "theta", "at": {"threads": 2}},
                         {"kind": "interior_optimum", "series": "a", "along": "theta"}),
    "peak": ({"kind": "peak", "series": "c", "along": "theta", "peak_at": 0.5, "at": {"threads": 2}},
             {"kind": "peak", "series": "a", "along": "theta", "peak_at": 0.5}),
    "superadditive": ({"kind": "superadditive", "combined": "a", "parts": ["b"], "baseline": "c"},   # a - c > b - c
                      {"kind": "superadditive", "combined": "c", "parts": ["b"], "baseline": "a"}),
    # b is 40%, 37.5% and 20% below a at theta 0, 0.5, 0.9: within 45% of a, never within 10%
    "agrees": ({"kind": "agrees", "series": "b", "reference": "a", "tolerance": 0.45},
               {"kind": "agrees", "series": "b", "reference": "a", "tolerance": 0.1}),
}


def test_every_claim_kind_is_covered():
    from ccbench.analysis.claims import EVALUATORS
    assert {claim["kind"] for pair in HOLDS_AND_REVERSED.values() for claim in pair} == set(EVALUATORS)


@pytest.mark.parametrize("name", sorted(HOLDS_AND_REVERSED))
def test_every_kind_is_held_failed_or_inconclusive(name):
    holds, reversed_claim = HOLDS_AND_REVERSED[name]
    quiet, noisy = noisy_runs(0.01), noisy_runs(0.6)
    held = judge(holds, quiet)
    assert held.outcome == HELD, held.detail
    assert judge(reversed_claim, quiet).outcome == FAILED, judge(reversed_claim, quiet).detail
    undecided = judge(holds, noisy)
    assert undecided.outcome == INCONCLUSIVE, undecided.detail
    assert "95% intervals" in undecided.detail and "(inconclusive)" in undecided.detail
    assert held.repetitions == (5, 5) and undecided.repetitions == (5, 5)


def runs_of(a: list[float], b: list[float]) -> pd.DataFrame:
    return pd.DataFrame([{"series": series, "theta": 0.0, "status": "ok", "throughput": value}
                         for series, values in (("a", a), ("b", b)) for value in values])


def ratio(runs: pd.DataFrame, op: str = ">=", bound: float = 1.0, **options):
    claim = {"id": "c", "text": "t", "check": "trend", "kind": "ratio", "numerator": "a", "denominator": "b",
             "op": op, "bound": bound}
    return evaluate_claim(claim, runs, {"theta": [0.0]}, series_names=["a", "b"], default_metric="throughput",
                          **options)


def test_a_clear_difference_is_held_an_equal_pair_inconclusive_a_reversed_one_failed():
    clear = runs_of([100, 103, 97, 101, 99], [50, 52, 49, 51, 48])
    result = ratio(clear, bound=1.5)
    assert result.outcome == HELD
    check, = result.checks
    assert 97 / 52 <= check.low and check.low >= 1.5 and check.high <= 103 / 48 and check.low <= check.estimate <= check.high
    assert "95% intervals: theta=0.0: 2 [" in result.detail
    equal = runs_of([100, 90, 110, 105, 95], [98, 108, 92, 103, 97])
    assert ratio(equal).outcome == INCONCLUSIVE and ratio(equal, "<=").outcome == INCONCLUSIVE
    assert ratio(equal, "between", [0.8, 1.25]).outcome == HELD     # ... but surely within 25% of each other
    reversed_pair = runs_of([50, 52, 49, 51, 48], [100, 103, 97, 101, 99])
    assert ratio(reversed_pair).outcome == FAILED
    assert ratio(reversed_pair, "between", [0.9, 1.1]).outcome == FAILED
    assert ratio(runs_of([100, 103, 97], [90, 96, 120]), "between", [0.99, 1.01]).outcome == INCONCLUSIVE


def test_three_against_three_needs_every_repetition_of_one_side_beyond_the_other():
    # As an exact one-sided Mann-Whitney test at p = 0.05: only complete separation (1 of 20 orderings).
    assert ratio(runs_of([10, 11, 12], [7, 8, 9.9])).outcome == HELD
    assert ratio(runs_of([10, 11, 12], [7, 8, 10.1])).outcome == INCONCLUSIVE
    assert ratio(runs_of([7, 8, 9.9], [10, 11, 12])).outcome == FAILED


def test_one_or_two_repetitions_of_a_noisy_metric_are_inconclusive_unless_it_is_deterministic():
    for count in (1, 2):
        few = runs_of([100] * count, [50] * count)
        result = ratio(few)
        assert result.outcome == INCONCLUSIVE and result.repetitions == (count, count)
        assert f"only {count} repetition(s) at some points: a noisy metric needs 3" in result.detail
        assert ratio(few, deterministic_metrics=["throughput"]).outcome == HELD
        assert ratio(few, "<", deterministic_metrics=["throughput"]).outcome == FAILED
    # Three repetitions that agree exactly leave no doubt: decided without the deterministic mark.
    assert ratio(runs_of([100] * 3, [50] * 3)).outcome == HELD


def test_a_deterministic_metric_is_decided_on_the_median_of_its_repetitions():
    spread = runs_of([100, 40, 160], [90, 95, 99])      # medians 100 vs 95
    assert ratio(spread).outcome == INCONCLUSIVE
    decided = ratio(spread, deterministic_metrics=["throughput"])
    assert decided.outcome == HELD and decided.detail == "a/b throughput: theta=0.0: 1.053 (each needs >= 1)"


def test_failed_and_missing_runs_are_not_repetitions():
    runs = runs_of([100, 103, 97, 101, 99], [50, 52, 49, 51, 48])
    runs.loc[0, "status"] = "failed"
    runs.loc[5, "status"] = "missing"
    result = ratio(runs, bound=1.5)
    assert result.outcome == HELD and result.repetitions == (4, 4)
    runs.loc[runs["series"] == "b", "status"] = "failed"
    assert ratio(runs).outcome == NO_DATA


def test_monotone_and_order_are_judged_per_step():
    runs = pd.DataFrame([{"series": "a", "theta": theta, "status": "ok", "throughput": value}
                         for theta, values in ((0.0, [100, 101, 99]), (0.5, [80, 81, 79]), (0.9, [79, 95, 60]))
                         for value in values])
    claim = {"id": "c", "text": "t", "check": "trend", "kind": "monotone", "series": "a", "direction": "decreasing"}
    result = evaluate_claim(claim, runs, {"theta": [0.0, 0.5, 0.9]}, series_names=["a"], default_metric="throughput",
                            default_along="theta")
    assert result.outcome == INCONCLUSIVE
    first, second = result.checks
    assert first.verdict == HELD and first.label == "a theta 0.0→0.5"
    assert second.verdict == INCONCLUSIVE and "a theta 0.5→0.9: 1 [" in result.detail
    assert "[undecided]" in result.detail


def test_the_bootstrap_is_seeded_per_point():
    runs = runs_of([100, 90, 110, 105, 95, 120], [98, 108, 92, 103, 97, 70])
    first, again = ratio(runs, bound=0.95), ratio(runs, bound=0.95)
    assert first.detail == again.detail and first.checks == again.checks
    # The same point's draws whatever else the samples were asked first.
    samples = Samples(runs, ["theta"])
    samples.values("throughput", "b", {"theta": 0.0})
    assert ratio(samples, bound=0.95).checks == first.checks


def test_the_breakdown_columns_get_intervals_from_their_parts():
    breakdown = {"baseline": "a", "subject": "b", "parts": [{"name": "mm", "series": "b", "metric": "share"}]}
    runs = pd.DataFrame([{"series": series, "theta": 0.0, "status": "ok", "throughput": value, "share": share}
                         for series, values, share in (("a", [100, 101, 99], 0.1), ("b", [50, 52, 48], 0.2))
                         for value in values])
    samples = Samples(runs, ["theta"], breakdown=breakdown)
    gap = samples.values("slowdown_pct", "b", {"theta": 0.0})
    assert gap[0] == pytest.approx(50.0) and 47 < gap[1:].min() <= gap[1:].max() < 53
    rest = samples.values("slowdown_pct.others", "b", {"theta": 0.0})
    assert rest[0] == pytest.approx(30.0)


def test_expected_failures_say_why():
    claim = {"id": "c", "text": "t", "check": "trend", "kind": "ratio", "numerator": "a", "denominator": "b",
             "op": ">=", "bound": 1.0, "expected_here": "fail", "reason": "needs 16 cores"}
    result = evaluate_claim(claim, runs_of([50, 51, 49], [100, 101, 99]), {"theta": [0.0]},
                            series_names=["a", "b"], default_metric="throughput")
    assert result.outcome == FAILED and result.expected_to_fail
    assert result.note == "expected to fail here: needs 16 cores"
