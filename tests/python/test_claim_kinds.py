"""The claim kinds and options for the papers' algorithm figures (similar, matches, top_metric,
scaling, `between` bounds, lists in `at`) on the hand-made table of test_claims, and the table plot."""
from __future__ import annotations

import pytest

from ccbench.analysis.claims import FAILED, HELD, NO_DATA
from ccbench.report.plots import _FigureDrawer, plot_figure
from ccbench.specification.config import FigureConfig, load_profiles
from ccbench.specification.metrics import metric_value
from ccbench.specification.programs import PROGRAMS
from conftest import figure_document
from test_claims import check, make_table
from test_outputs import hand_made_table, width_of

# The table of test_claims: throughput a = 100, 80, 50; b = 60, 50, 40; c = 30, 31, 20 at theta 0, 0.5, 0.9,
# times the thread count (1 or 2); abort_rate = theta * threads / 10. a/b is 1.67, 1.6, 1.25.


@pytest.mark.parametrize("claim, outcome", [
    ({"kind": "ratio", "numerator": "a", "denominator": "b", "op": "between", "bound": [1.25, 1.66]}, FAILED),
    ({"kind": "ratio", "numerator": "a", "denominator": "b", "op": "between", "bound": [1.25, 1.7]}, HELD),
    ({"kind": "ratio", "numerator": "a", "denominator": "b", "op": "between", "bound": [1.3, 1.7]}, FAILED),
    ({"kind": "ratio", "numerator": "a", "denominator": "b", "op": ">=", "bound": 1.6, "at": {"theta": [0.0, 0.5]}},
     HELD),
    ({"kind": "ratio", "numerator": "a", "denominator": "b", "op": ">=", "bound": 1.6, "at": {"theta": [0.5, 0.9]}},
     FAILED),
    ({"kind": "ratio", "numerator": "a", "denominator": "b", "op": ">=", "bound": 1.6, "at": {"theta": ["min", 0.5]}},
     HELD),
    ({"kind": "value", "series": "c", "op": "between", "bound": [20, 31], "at": {"threads": 1}}, HELD),
    ({"kind": "similar", "series": ["a", "b"], "factor": 1.7}, HELD),
    ({"kind": "similar", "series": ["a", "b"], "factor": 1.6}, FAILED),                 # 1.67 at theta 0
    ({"kind": "similar", "series": ["a", "b"], "factor": 1.6, "at": {"theta": [0.5, 0.9]}}, HELD),
    ({"kind": "matches", "series": "a", "expected": {0.0: 100, 0.9: 50}, "at": {"threads": 1}}, HELD),
    ({"kind": "matches", "series": "a", "expected": {0.0: 110}, "tolerance": 0.1, "at": {"threads": 1}}, HELD),
    ({"kind": "matches", "series": "a", "expected": {0.0: 110}, "tolerance": 0.05, "at": {"threads": 1}}, FAILED),
    ({"kind": "matches", "series": "a", "expected": {0.0: 101}, "abs_tolerance": 1, "at": {"threads": 1}}, HELD),
    ({"kind": "matches", "series": ["a", "b"], "expected": {0.0: 100}, "at": {"threads": 1}}, FAILED),
    ({"kind": "matches", "by": "series", "expected": {"a": 100, "b": 60}, "at": {"theta": 0.0, "threads": 1}}, HELD),
    ({"kind": "matches", "by": "series", "expected": {"a": 100, "b": 60}, "at": {"threads": 1}}, FAILED),
    ({"kind": "top_metric", "metric": "throughput", "others": ["abort_rate"]}, HELD),
    ({"kind": "top_metric", "metric": "throughput", "others": ["abort_rate"], "direction": "min"}, FAILED),
    ({"kind": "top_metric", "metric": "abort_rate", "others": ["throughput"], "series": "c", "direction": "min"},
     HELD),
    ({"kind": "scaling", "along": "threads", "op": ">=", "bound": 1.0}, HELD),          # throughput doubles
    ({"kind": "scaling", "along": "threads", "op": ">", "bound": 1.0}, FAILED),
    ({"kind": "scaling", "along": "threads", "series": "a", "op": "between", "bound": [0.9, 1.1]}, HELD),
])
def test_claim_kinds_evaluate_on_hand_made_tables(claim, outcome):
    result = check(claim)
    assert result.outcome == outcome, result.detail
    assert result.asserted


@pytest.mark.parametrize("claim", [
    {"kind": "similar", "series": ["a", "b"], "factor": 2},
    {"kind": "matches", "series": "b", "expected": {0.5: 50}},
    {"kind": "top_metric", "metric": "throughput", "others": ["abort_rate"], "series": "b"},
    {"kind": "scaling", "along": "threads", "series": "b", "op": ">=", "bound": 0},
])
def test_one_missing_point_makes_the_new_kinds_no_data(claim):
    result = check(claim, make_table(drop=("b", 0.5, 2)))
    assert result.outcome == NO_DATA and "b at theta=0.5, threads=2" in result.detail


def test_scaling_without_a_higher_value_up_to_the_limit_is_no_data():
    result = check({"kind": "scaling", "along": "threads", "up_to": 1, "op": ">=", "bound": 0.7})
    assert result.outcome == NO_DATA and "no threads above 1 is swept up to 1" in result.detail


def test_details_name_the_numbers_of_the_new_kinds():
    assert check({"kind": "matches", "series": "a", "expected": {0.0: 90}, "at": {"threads": 1}}).detail == \
        "a at theta=0.0, threads=1: 100 (expected 90) [off]"
    scaling = check({"kind": "scaling", "along": "threads", "series": "c", "op": ">=", "bound": 0.7,
                     "at": {"theta": 0.9}})
    assert scaling.detail == ("parallel efficiency of throughput relative to threads=1: series=c, theta=0.9, "
                              "threads=2: 1 (each needs >= 0.7)")


def test_strife_derived_metrics():
    derived = PROGRAMS["bench_strife"].derived
    row = {"residuals": 30, "batch_size": 1000, "queue_min": 90, "queue_max": 100, "cf_clusters": 28,
           "spot_clusters": 30}
    assert metric_value(row, "residual_fraction", derived) == 0.03
    assert metric_value(row, "queue_balance", derived) == 0.9
    assert metric_value(row, "cf_per_spot", derived) == pytest.approx(28 / 30)
    assert metric_value({**row, "batch_size": 0}, "residual_fraction", derived) != \
        metric_value({**row, "batch_size": 0}, "residual_fraction", derived)       # NaN, not a crash
    assert metric_value(row, "abort_rate", derived) != metric_value(row, "abort_rate", derived)  # no engine metrics


def test_a_table_plot_shows_the_medians_of_each_metric_per_column(sandbox):
    plot = {"kind": "table", "x": "theta", "y": ["throughput", "latency_us.p50"], "y_labels": ["T", "L"]}
    path = sandbox.add_figure("tab", figure_document(plot=plot, claims=None))
    figure = FigureConfig.load(path, load_profiles(sandbox.workspace.profiles_dir)).resolve("quick")
    table = hand_made_table(figure)
    rows, columns, cells = _FigureDrawer(figure, table).table_cells(table)
    assert rows == ["Silo: T", "Silo: L", "OCC: T", "OCC: L"] and columns == ["0.0", "0.5", "0.9"]
    # hand_made_table: 10 + point index (+1 for the second metric); silo's points come first.
    assert cells[0] == ["10", "11", "12"] and cells[1] == ["11", "12", "13"] and cells[2] == ["13", "14", "15"]
    png, pdf = plot_figure(figure, table, sandbox.root / "out" / "tab")
    assert png.stat().st_size > 5000 and pdf.stat().st_size > 1000

    wide = figure_document(plot=plot, claims=None, axes={"theta": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]})
    wide_path = sandbox.add_figure("wide", wide)
    wide_figure = FigureConfig.load(wide_path, load_profiles(sandbox.workspace.profiles_dir)).resolve("quick")
    wide_png, _ = plot_figure(wide_figure, hand_made_table(wide_figure), sandbox.root / "out" / "wide")
    assert width_of(wide_png) > 1.5 * width_of(png)
