"""Claims on hand-made tables: true, false, missing data, and when they are asserted."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from ccbench.analysis.claims import FAILED, HELD, NO_DATA, evaluate_claim

AXES = {"theta": [0.0, 0.5, 0.9], "threads": [1, 2]}
SERIES = ["a", "b", "c"]
# throughput: a > b > c everywhere; a falls with theta; all rise with threads.
THROUGHPUT = {
    ("a", 0.0): 100, ("a", 0.5): 80, ("a", 0.9): 50,
    ("b", 0.0): 60, ("b", 0.5): 50, ("b", 0.9): 40,
    ("c", 0.0): 30, ("c", 0.5): 31, ("c", 0.9): 20,
}


def make_table(drop: tuple | None = None) -> pd.DataFrame:
    rows = []
    for (series, theta), value in THROUGHPUT.items():
        for threads in AXES["threads"]:
            missing = drop == (series, theta, threads)
            rows.append({"series": series, "theta": theta, "threads": threads,
                         "throughput": math.nan if missing else value * threads,
                         "abort_rate": theta * threads / 10})
    return pd.DataFrame(rows)


def check(claim: dict, table: pd.DataFrame | None = None, **options):
    """The claim on a table of one run per point whose metrics are all deterministic: decided on the values,
    as the claim kinds' logic is tested here (test_verdicts.py tests the verdicts on noisy repetitions)."""
    claim = {"id": "c", "text": "t", "check": "trend", **claim}
    table = make_table() if table is None else table
    options.setdefault("deterministic_metrics", set(table.columns))
    return evaluate_claim(claim, table, AXES, series_names=SERIES,
                          default_metric="throughput", default_along="theta", **options)


@pytest.mark.parametrize("claim, outcome", [
    # a/b is 1.67, 1.6 and 1.25 at theta 0, 0.5, 0.9 (for both thread counts): mean 1.506, max c/a 0.4.
    ({"kind": "ratio", "numerator": "a", "denominator": "b", "op": ">=", "bound": 1.25}, HELD),
    ({"kind": "ratio", "numerator": "a", "denominator": "b", "op": ">=", "bound": 1.3}, FAILED),
    ({"kind": "ratio", "numerator": "a", "denominator": "b", "op": ">=", "bound": 1.6, "at": {"theta": "min"}}, HELD),
    ({"kind": "ratio", "numerator": "a", "denominator": "b", "op": ">", "bound": 1.6, "at": {"theta": 0.5}}, FAILED),
    ({"kind": "ratio", "numerator": "a", "denominator": "b", "op": ">=", "bound": 1.5, "reduce": "mean"}, HELD),
    ({"kind": "ratio", "numerator": "a", "denominator": "b", "op": ">=", "bound": 1.51, "reduce": "mean"}, FAILED),
    ({"kind": "ratio", "numerator": "c", "denominator": "a", "op": "<", "bound": 0.41, "reduce": "max"}, HELD),
    ({"kind": "ratio", "numerator": "c", "denominator": "a", "op": "<", "bound": 0.4, "reduce": "max"}, FAILED),
    ({"kind": "order", "series": ["a", "b", "c"]}, HELD),
    ({"kind": "order", "series": ["b", "a"]}, FAILED),
    ({"kind": "order", "series": ["c", "b", "a"], "direction": "ascending"}, HELD),
    ({"kind": "best", "series": "a"}, HELD),
    ({"kind": "best", "series": "b"}, FAILED),
    ({"kind": "best", "series": "b", "among": ["c"]}, HELD),
    ({"kind": "best", "series": "c", "direction": "min"}, HELD),
    ({"kind": "best", "series": "b", "at": {"theta": 0.9}, "tolerance": 0.2}, HELD),    # 40 vs 50: within 20%
    ({"kind": "best", "series": "b", "at": {"theta": 0.9}, "tolerance": 0.1}, FAILED),
    ({"kind": "monotone", "series": "a", "direction": "decreasing"}, HELD),
    ({"kind": "monotone", "direction": "decreasing"}, FAILED),                        # c rises 30 -> 31
    ({"kind": "monotone", "direction": "decreasing", "tolerance": 0.05}, HELD),        # ... within 5%
    ({"kind": "monotone", "direction": "increasing", "along": "threads"}, HELD),
    ({"kind": "monotone", "direction": "increasing", "metric": "abort_rate"}, HELD),
    ({"kind": "monotone", "ratio": ["a", "b"], "direction": "decreasing"}, HELD),     # 1.67, 1.6, 1.25
    ({"kind": "monotone", "ratio": ["a", "b"], "direction": "increasing"}, FAILED),
    ({"kind": "value", "series": "a", "op": ">=", "bound": 200, "at": {"theta": "min", "threads": "max"}}, HELD),
    ({"kind": "value", "series": "a", "op": ">", "bound": 200, "at": {"theta": "min", "threads": "max"}}, FAILED),
])
def test_claims_evaluate_on_hand_made_tables(claim, outcome):
    result = check(claim)
    assert result.outcome == outcome, result.detail
    assert result.asserted


@pytest.mark.parametrize("claim", [
    {"kind": "ratio", "numerator": "a", "denominator": "b", "op": ">=", "bound": 1},
    {"kind": "order", "series": ["a", "b"]},
    {"kind": "best", "series": "a"},
    {"kind": "monotone", "series": "b", "direction": "decreasing"},
    {"kind": "value", "series": "b", "op": ">", "bound": 0},
])
def test_one_missing_point_makes_any_claim_no_data(claim):
    result = check(claim, make_table(drop=("b", 0.5, 2)))
    assert result.outcome == NO_DATA
    assert "b at theta=0.5, threads=2" in result.detail


def test_missing_data_outside_the_selected_points_does_not_matter():
    claim = {"kind": "ratio", "numerator": "a", "denominator": "b", "op": ">=", "bound": 1, "at": {"threads": 1}}
    assert check(claim, make_table(drop=("b", 0.5, 2))).outcome == HELD


def test_missing_metric_and_zero_over_zero_are_no_data():
    assert check({"kind": "best", "series": "a", "metric": "latency_us.p99"}).outcome == NO_DATA
    table = make_table()
    table["abort_rate"] = 0.0
    result = check({"kind": "ratio", "numerator": "a", "denominator": "b", "op": ">=", "bound": 1,
                    "metric": "abort_rate"}, table)
    assert result.outcome == NO_DATA and "0/0" in result.detail


def test_absolute_claims_are_reported_never_asserted():
    result = check({"kind": "value", "series": "a", "op": ">=", "bound": 1e6, "check": "absolute"})
    assert result.outcome == FAILED and not result.asserted
    assert result.label == "failed (not asserted)"
    assert "never asserted" in result.note


def test_conditional_claims_are_asserted_only_where_the_condition_holds():
    claim = {"kind": "best", "series": "b", "check": "conditional", "condition": "needs 28 cores",
             "requires_hw_threads": 28}
    small = check(claim, hw_threads=2, max_threads=2)
    assert small.outcome == FAILED and not small.asserted and "condition not met" in small.note
    big = check(claim, hw_threads=32, max_threads=32)
    assert big.outcome == FAILED and big.asserted and big.label == "failed"
    # Enough hardware but a sweep that stops short of the condition: not asserted either.
    assert not check(claim, hw_threads=32, max_threads=8).asserted
    without_requirement = {key: value for key, value in claim.items() if key != "requires_hw_threads"}
    unchecked = check(without_requirement, hw_threads=64, max_threads=64)
    assert not unchecked.asserted and "not checked automatically" in unchecked.note


def test_details_show_the_numbers_behind_the_outcome():
    result = check({"kind": "ratio", "numerator": "a", "denominator": "b", "op": ">=", "bound": 1.5,
                    "at": {"theta": 0.9, "threads": 1}})
    assert result.outcome == FAILED
    assert result.detail == "a/b throughput: theta=0.9, threads=1: 1.25 (each needs >= 1.5)"


def test_a_ratio_over_zero_is_no_data_not_infinite():
    # x/0 would let "a/b >= 1" (or a monotone ratio) hold vacuously where series b counted nothing.
    table = make_table()
    table.loc[table["series"] == "b", "throughput"] = 0.0
    result = check({"kind": "ratio", "numerator": "a", "denominator": "b", "op": ">=", "bound": 1}, table)
    assert result.outcome == NO_DATA and "/0" in result.detail
