"""What the BCC paper's figures added to the harness: a ratio of two metrics, monotone
`within` a stretch of the axis, line and grouped_bar plots of several metrics, a table of
some series (`shown_series`) also written into the report, the slowdown breakdown of
bcc-tab1, and the derived metrics BCC's runs need. The bcc configs themselves must load."""
from __future__ import annotations

import copy
import math

import pandas as pd
import pytest

from ccbench.analysis.claims import FAILED, HELD, NO_DATA
from ccbench.analysis.tables import add_breakdown, breakdown_columns
from ccbench.errors import ConfigError
from ccbench.report.pipeline import load_catalog
from ccbench.report.plots import _FigureDrawer, plot_figure, table_markdown
from ccbench.run.interface import check_metrics_reported
from ccbench.run.workspace import Workspace
from ccbench.specification.config import FigureConfig, load_profiles
from ccbench.specification.metrics import metric_value
from conftest import figure_document
from test_claims import check
from test_outputs import hand_made_table, resolved, width_of

# test_claims' table: throughput a = 100, 80, 50; c = 30, 31, 20 at theta 0, 0.5, 0.9, times threads (1, 2);
# abort_rate = theta * threads / 10.


@pytest.mark.parametrize("claim, outcome", [
    # a's abort rate / a's throughput at theta 0.9, 2 threads: 0.18 / 100 = 0.0018
    ({"kind": "ratio", "numerator": "a", "denominator": "a", "numerator_metric": "abort_rate",
      "denominator_metric": "throughput", "at": {"theta": 0.9, "threads": 2}, "op": "between",
      "bound": [0.0017, 0.0019]}, HELD),
    ({"kind": "ratio", "numerator": "a", "denominator": "a", "numerator_metric": "abort_rate",
      "denominator_metric": "throughput", "at": {"theta": 0.9, "threads": 2}, "op": ">", "bound": 0.002}, FAILED),
    # c's throughput over a's abort rate (the claim's metric, throughput, on the numerator side)
    ({"kind": "ratio", "numerator": "c", "denominator": "a", "denominator_metric": "abort_rate",
      "at": {"theta": 0.5, "threads": 1}, "op": "between", "bound": [619, 621]}, HELD),
    ({"kind": "monotone", "series": "c", "direction": "decreasing"}, FAILED),          # 30 -> 31 -> 20
    ({"kind": "monotone", "series": "c", "direction": "decreasing", "within": [0.5, 0.9]}, HELD),
    ({"kind": "monotone", "series": "c", "direction": "increasing", "within": [0.0, 0.5]}, HELD),
])
def test_ratio_of_two_metrics_and_monotone_within(claim, outcome):
    result = check(claim)
    assert result.outcome == outcome, result.detail


def test_two_metric_ratio_names_both_and_0_over_0_is_no_data():
    result = check({"kind": "ratio", "numerator": "a", "denominator": "a", "numerator_metric": "abort_rate",
                    "denominator_metric": "throughput", "at": {"theta": 0.9, "threads": 2}, "op": ">", "bound": 0})
    assert result.detail.startswith("a abort_rate / a throughput: theta=0.9, threads=2: 0.0018")
    zero = check({"kind": "ratio", "numerator": "a", "denominator": "b", "metric": "abort_rate",
                  "numerator_metric": "abort_rate", "at": {"theta": 0.0}, "op": ">", "bound": 0})
    assert zero.outcome == NO_DATA and "is 0/0" in zero.detail


def test_monotone_within_needs_two_swept_values():
    result = check({"kind": "monotone", "series": "a", "direction": "decreasing", "within": [0.6, 1.0]})
    assert result.outcome == NO_DATA and "fewer than two swept theta values within [0.6, 1]" in result.detail


LINE_OF_TWO = {"kind": "line", "x": "theta", "y": ["throughput", "latency_us.p50"], "y_labels": ["avg", "max"]}
GROUPED = {"kind": "grouped_bar", "x": "theta", "y": ["throughput", "latency_us.p50"], "y_labels": ["avg", "p50"]}


@pytest.mark.parametrize("plot", [LINE_OF_TWO, GROUPED, {**GROUPED, "x": "series"}])
def test_several_metric_plots_write_png_and_pdf(sandbox, plot):
    figure = resolved(sandbox, figure_document(plot=plot, claims=None))
    png, pdf = plot_figure(figure, hand_made_table(figure), sandbox.root / "out" / plot["kind"])
    assert png.stat().st_size > 5000 and pdf.read_bytes().startswith(b"%PDF")


def test_grouped_bars_have_one_bar_per_series_and_metric_in_each_group(sandbox):
    figure = resolved(sandbox, figure_document(plot=GROUPED, claims=None))
    slots, ticks, tick_labels = _FigureDrawer(figure, hand_made_table(figure)).grouped_bar_slots()
    assert tick_labels == ["0.0", "0.5", "0.9"] and ticks == [0, 1, 2]
    assert len(slots) == 3 * 2 * 2                                  # groups x series x metrics
    first_group = [(series.name, metric, label) for position, x, series, metric, label in slots if x == 0.0]
    assert first_group == [("silo", "throughput", "Silo: avg"), ("silo", "latency_us.p50", "Silo: p50"),
                           ("occ", "throughput", "OCC: avg"), ("occ", "latency_us.p50", "OCC: p50")]
    positions = [position for position, x, *_ in slots if x == 0.0]
    assert positions == sorted(positions) and -0.4 < positions[0] and positions[-1] < 0.4   # inside the group
    per_series = resolved(sandbox, figure_document(plot={**GROUPED, "x": "series"}, claims=None), "per-series")
    slots, _, tick_labels = _FigureDrawer(per_series, hand_made_table(per_series)).grouped_bar_slots()
    assert tick_labels == ["Silo", "OCC"] and [label for *_, label in slots] == ["avg", "p50", "avg", "p50"]


def test_a_table_of_some_series_and_its_markdown(sandbox):
    plot = {"kind": "table", "x": "theta", "y": ["throughput", "latency_us.p50"], "y_labels": ["T", "L"],
            "shown_series": ["occ"]}
    figure = resolved(sandbox, figure_document(plot=plot, claims=None), "some")
    table = hand_made_table(figure)
    rows, columns, cells = _FigureDrawer(figure, table).table_cells(table)
    assert rows == ["T", "L"] and columns == ["0.0", "0.5", "0.9"]
    assert cells[0] == ["13", "14", "15"]                        # OCC's points come after Silo's three
    lines = table_markdown(figure, table)
    assert "| | 0.0 | 0.5 | 0.9 |" in lines and "| T | 13 | 14 | 15 |" in lines
    every_series = {k: v for k, v in plot.items() if k != "shown_series"}
    everything = resolved(sandbox, figure_document(plot=every_series, claims=None), "all")
    rows, _, _ = _FigureDrawer(everything, table).table_cells(table)
    assert rows == ["Silo: T", "Silo: L", "OCC: T", "OCC: L"]
    one_png, _ = plot_figure(figure, table, sandbox.root / "one")
    all_png, _ = plot_figure(everything, table, sandbox.root / "all")
    assert width_of(one_png) > 0 and width_of(all_png) > 0


BREAKDOWN_FIGURE = figure_document(
    series=[{"name": "occ", "params": {"cc": "silo"}}, {"name": "bcc", "params": {"cc": "bcc"}},
            {"name": "timed", "params": {"cc": "bcc", "bcc_breakdown": True}}],
    breakdown={"baseline": "occ", "subject": "bcc",
               "parts": [{"name": "mm", "series": "timed", "metric": "bcc_mm_share"},
                         {"name": "clock", "series": "timed", "metric": "bcc_clock_share"}]},
    plot={"kind": "table", "x": "theta", "y": ["slowdown_pct.mm", "slowdown_pct.others", "slowdown_pct"],
          "shown_series": ["bcc"]},
    claims=None)


def breakdown_table(figure, occ=100.0, bcc=90.0, mm=0.04, clock=0.02) -> pd.DataFrame:
    rows = []
    for theta in figure.axes["theta"]:
        rows += [{"series": "occ", "theta": theta, "throughput": occ, "bcc_mm_share": math.nan, "bcc_clock_share": math.nan},
                 {"series": "bcc", "theta": theta, "throughput": bcc, "bcc_mm_share": math.nan, "bcc_clock_share": math.nan},
                 {"series": "timed", "theta": theta, "throughput": 80.0, "bcc_mm_share": mm, "bcc_clock_share": clock}]
    return pd.DataFrame(rows)


def test_the_breakdown_sums_to_the_measured_gap(sandbox):
    figure = resolved(sandbox, BREAKDOWN_FIGURE, "tab")
    assert breakdown_columns(figure.config.breakdown) == ["slowdown_pct", "slowdown_pct.mm", "slowdown_pct.clock",
                                                          "slowdown_pct.others"]
    assert {"bcc_mm_share", "bcc_clock_share"} <= set(figure.metrics())      # the parts' metrics are collected
    table = add_breakdown(breakdown_table(figure), figure)
    bcc = table[table["series"] == "bcc"].iloc[0]
    assert bcc["slowdown_pct"] == pytest.approx(10.0)                 # 100 * (1 - 90 / 100)
    assert bcc["slowdown_pct.mm"] == pytest.approx(4.0) and bcc["slowdown_pct.clock"] == pytest.approx(2.0)
    assert bcc["slowdown_pct.others"] == pytest.approx(4.0)
    assert bcc["slowdown_pct.mm"] + bcc["slowdown_pct.clock"] + bcc["slowdown_pct.others"] == \
        pytest.approx(bcc["slowdown_pct"])
    assert table[table["series"] != "bcc"]["slowdown_pct"].isna().all()   # only the subject's rows
    faster = add_breakdown(breakdown_table(figure, bcc=105.0), figure)
    row = faster[faster["series"] == "bcc"].iloc[0]
    assert row["slowdown_pct"] == pytest.approx(-5.0) and row["slowdown_pct.others"] == pytest.approx(-11.0)
    missing = add_breakdown(breakdown_table(figure, mm=math.nan), figure)
    assert math.isnan(missing[missing["series"] == "bcc"].iloc[0]["slowdown_pct.others"])   # no data, not a guess


@pytest.mark.parametrize("change, where, message", [
    (lambda b: b.update(subject="nope"), "breakdown.subject", "'nope' is not a series of this figure"),
    (lambda b: b["parts"][1].update(series="x"), "breakdown.parts[1].series", "'x' is not a series"),
    (lambda b: b.update(subject="occ"), "breakdown.subject", "must differ from breakdown.baseline"),
    (lambda b: b["parts"][1].update(name="mm"), "breakdown.parts", "part names and rest must differ"),
])
def test_bad_breakdowns_are_rejected_naming_the_field(sandbox, change, where, message):
    document = copy.deepcopy(BREAKDOWN_FIGURE)
    change(document["breakdown"])
    path = sandbox.add_figure("bad", document)
    with pytest.raises(ConfigError) as raised:
        FigureConfig.load(path, load_profiles(sandbox.workspace.profiles_dir))
    assert any(p[1] == where and message in p[2] for p in raised.value.problems), raised.value.problems


def test_shown_series_only_on_tables_and_only_known_series(sandbox):
    for plot, message in [({"kind": "line", "x": "theta", "y": "throughput", "shown_series": ["silo"]},
                           "only a table shows a subset"),
                          ({"kind": "table", "x": "theta", "y": ["throughput"], "shown_series": ["x"]},
                           "'x' is not a series")]:
        path = sandbox.add_figure("bad", figure_document(plot=plot, claims=None))
        with pytest.raises(ConfigError) as raised:
            FigureConfig.load(path, load_profiles(sandbox.workspace.profiles_dir))
        assert any(p[1] == "plot.shown_series" and message in p[2] for p in raised.value.problems)


def test_bcc_derived_metrics_and_per_type_throughput():
    result = {"config": {"threads": 2}, "phases": {"measured_s": 2.0}, "commits": 10, "aborts": 0,
              "throughput": 5.0, "cc_stats": {"breakdown": {"mm_s": 0.2, "clock_s": 0.04}},
              "per_txn_type": {"new_order": {"throughput": 3.0}}}
    assert metric_value(result, "bcc_mm_share") == pytest.approx(0.05)        # 0.2 s of 2 x 2 worker seconds
    assert metric_value(result, "bcc_clock_share") == pytest.approx(0.01)
    assert metric_value(result, "per_txn_type.new_order.throughput") == 3.0
    without = {**result, "cc_stats": {}}
    assert math.isnan(metric_value(without, "bcc_mm_share"))                  # a run without --bcc_breakdown


def test_every_bcc_figure_config_loads():
    catalog = load_catalog(Workspace.create())
    assert not [figure_id for figure_id in catalog.broken if figure_id.startswith("bcc-")], catalog.broken
    ids = {figure_id for figure_id in catalog.figures if figure_id.startswith("bcc-")}
    assert ids == {"bcc-fig04", "bcc-fig04-ycsb", "bcc-tab1", *(f"bcc-fig{n:02d}" for n in range(5, 13))}


def test_the_breakdown_columns_are_not_asked_of_the_runs(sandbox):
    # The breakdown's columns are computed by the harness: a run that reports only the parts'
    # metrics passes the reported-metrics check; without them excluded it would not.
    figure = resolved(sandbox, BREAKDOWN_FIGURE, "tab")
    result = {"throughput": 1.0, "abort_rate": 0.0, "latency_us": {"p99": 1.0}, "bcc_mm_share": 0.1, "bcc_clock_share": 0.1}
    check_metrics_reported(figure, [result], computed=breakdown_columns(figure.config.breakdown))
    with pytest.raises(ConfigError, match=r"plot.y\[0\]: no run of the engine reports metric 'slowdown_pct.mm'"):
        check_metrics_reported(figure, [result])
