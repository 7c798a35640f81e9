"""Plots (every kind, PNG and PDF) and the reproduction report."""
from __future__ import annotations

import itertools

import matplotlib.image
import pandas as pd
import pytest

from ccbench.cli import main
from ccbench.report.plots import _readable_tick_labels, plot_figure
from ccbench.specification.config import FigureConfig, load_profiles
from conftest import figure_document

METRICS = ["throughput", "latency_us.p50", "phases.measured_s", "phases.warmup_s"]


def resolved(sandbox, document, figure_id="plotted"):
    path = sandbox.add_figure(figure_id, document)
    return FigureConfig.load(path, load_profiles(sandbox.workspace.profiles_dir)).resolve("quick")


def hand_made_table(figure) -> pd.DataFrame:
    """An aggregated table with made-up values for every series and axis point."""
    rows = []
    axes = figure.axes
    for index, (series, values) in enumerate(itertools.product(figure.config.series,
                                                               itertools.product(*axes.values()))):
        row = {"series": series.name, "series_label": series.label, **dict(zip(axes, values)), "runs_ok": 3}
        for offset, metric in enumerate(METRICS):
            value = 10.0 + index + offset
            row.update({metric: value, f"{metric}_min": value * 0.9, f"{metric}_max": value * 1.1})
        rows.append(row)
    return pd.DataFrame(rows)


PLOTS = {
    "line": {"kind": "line", "x": "theta", "y": "throughput", "xlabel": "Zipf θ", "yscale": "log"},
    "bar": {"kind": "bar", "x": "theta", "y": "throughput"},
    "bar-per-series": {"kind": "bar", "x": "series", "y": "throughput", "legend": "none"},
    "stacked": {"kind": "stacked_bar", "x": "series", "y": ["phases.measured_s", "phases.warmup_s"],
                "y_labels": ["Execute", "Abort"], "legend": "right"},
    "stacked-grouped": {"kind": "stacked_bar", "x": "theta", "y": ["phases.measured_s", "phases.warmup_s"]},
    "scatter": {"kind": "scatter", "x": "latency_us.p50", "y": "throughput", "xscale": "log"},
}


def width_of(png) -> int:
    return matplotlib.image.imread(png).shape[1]


@pytest.mark.parametrize("name", PLOTS)
def test_every_plot_kind_writes_a_non_empty_png_and_pdf(sandbox, name):
    figure = resolved(sandbox, figure_document(plot=PLOTS[name], claims=None))
    png, pdf = plot_figure(figure, hand_made_table(figure), sandbox.root / "out" / name)
    assert png.read_bytes().startswith(b"\x89PNG") and png.stat().st_size > 5000
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 1000
    assert not list(png.parent.glob(".tmp-*"))


def test_each_value_of_another_swept_axis_gets_its_own_panel(sandbox):
    one = resolved(sandbox, figure_document(claims=None), "one-panel")
    two = resolved(sandbox, figure_document(axes={"theta": [0.0, 0.9], "table_size": [10, 20]},
                                            base={"workload": "ycsb", "threads": 1}, claims=None), "two-panels")
    one_png, _ = plot_figure(one, hand_made_table(one), sandbox.root / "out" / "one")
    two_png, _ = plot_figure(two, hand_made_table(two), sandbox.root / "out" / "two")
    assert width_of(two_png) > 1.6 * width_of(one_png)


@pytest.mark.parametrize("legend", ["top", "right"])
def test_a_long_title_wraps_to_the_figure_instead_of_widening_it(sandbox, legend):
    # sim-reference-tpcc's caption (110 characters) once made the saved image 2.5x as wide as its plot
    plot = {"kind": "line", "x": "theta", "y": "throughput", "legend": legend}
    short = resolved(sandbox, figure_document(plot={**plot, "title": "YCSB"}, claims=None), f"short-{legend}")
    long_title = "simulated, 1-28 virtual cores; beside measured data from reference/1000-cores/tpcc-4wh-optimised-hpe.csv"
    wrapped = resolved(sandbox, figure_document(plot={**plot, "title": long_title}, claims=None), f"long-{legend}")
    short_png, _ = plot_figure(short, hand_made_table(short), sandbox.root / "out" / f"short-{legend}")
    long_png, _ = plot_figure(wrapped, hand_made_table(wrapped), sandbox.root / "out" / f"long-{legend}")
    assert width_of(long_png) <= 1.05 * width_of(short_png)
    # the wrapped lines add height above the plot (the title is not drawn over the legend or the axes)
    assert matplotlib.image.imread(long_png).shape[0] > matplotlib.image.imread(short_png).shape[0]


def test_close_ticks_are_all_labelled_the_second_one_line_lower():
    # ycsb-theta's skew axis at the small profile: 0.9 and 0.99 would overlap on one line
    thetas = [0.0, 0.6, 0.8, 0.9, 0.99]
    assert _readable_tick_labels(thetas, thetas, log=False) == ["0.0", "0.6", "0.8", "0.9", "\n0.99"]
    # a third value crowding both lines is left blank (its tick mark stays); far-apart values stay on one line
    assert _readable_tick_labels([0, 0.98, 0.99, 1.0], [0, 0.98, 0.99, 1.0], log=False) == ["0", "0.98", "\n0.99", ""]
    assert _readable_tick_labels([1, 2, 4, 8, 16, 32], [1, 2, 4, 8, 16, 32], log=True) == ["1", "2", "4", "8", "16", "32"]


def test_figures_command_writes_tables_plots_and_a_report_of_every_figure(sandbox, capsys):
    sandbox.add_figure("test-fig")
    never_run = figure_document(title="A figure nobody ran")
    never_run["base"]["table_size"] = 2000          # otherwise it would share test-fig's runs
    sandbox.add_figure("never-run", never_run, paper="other")
    status = main(sandbox.cli_arguments("figures", "test-fig", "--profile", "quick", "--quiet"))
    assert status == 0, capsys.readouterr().err
    workspace = sandbox.workspace
    table = pd.read_csv(workspace.tables_dir("quick") / "test-fig.csv")
    assert set(table["series"]) == {"silo", "occ"} and len(table) == 6
    assert (table["runs_ok"] == 1).all() and {"throughput", "throughput_min", "throughput_max"} <= set(table.columns)
    assert (workspace.images_dir("quick") / "test-fig.png").stat().st_size > 5000
    assert (workspace.images_dir("quick") / "test-fig.pdf").stat().st_size > 1000

    report = (workspace.images_dir("quick") / "REPORT.md").read_text()
    assert "Profile **quick**" in report
    assert "![test-fig](test-fig.png)" in report
    assert "Runs: 6 ok, 0 failed, 0 not run, of 6; no noisy runs." in report
    # The fake engine gives Silo 1.3/0.8 = 1.6x OCC's throughput, falling with theta; but one repetition
    # of a measured (noisy) metric cannot tell a difference from noise: inconclusive, saying why
    # (test_quiet_and_decided.py runs the same figure with three repetitions: held).
    assert "| Silo beats OCC by 20% | trend ✔ | **inconclusive** | 1 | silo/occ throughput: theta=0.0: 1.625;" in report
    assert "| throughput falls with skew | trend ✔ | **inconclusive** |" in report
    assert "only 1 repetition(s) at some points: a noisy metric needs 3 for an interval" in report
    assert "| 1G txn/s on the authors' machine | absolute ✘ | **inconclusive (not asserted)**" in report
    assert "[INF] `table_size`: chosen for the test" in report and "`table_size=1000` [INF]" in report
    # A figure without a run at the profile is named in one line with how to run it, not listed in full.
    assert "Not listed: 1 figure(s) not run at profile quick: never-run. " in report
    assert "`make figures PROFILE=quick FIGS=<id>` runs one" in report
    assert "A figure nobody ran" not in report and "`never-run` |" not in report
    assert "| `test-fig` | testbed | 6 / 6 | 0 | 0 held, 0 failed, 2 inconclusive, 0 no data, 1 not asserted |" in report
    page = (workspace.images_dir("quick") / "REPORT.html").read_text()
    assert "<img src='test-fig.png'" in page and "not run at profile quick: never-run" in page
    assert "A figure nobody ran" not in page


def test_report_lists_a_broken_config_and_exits_2(sandbox, capsys):
    sandbox.add_figure("test-fig")
    broken = figure_document()
    broken["plot"]["kind"] = "pie"
    sandbox.add_figure("broken-fig", broken)
    assert main(sandbox.cli_arguments("report", "--profile", "quick")) == 2
    assert "broken-fig.yaml: plot.kind: 'pie' is not allowed" in capsys.readouterr().err
    report = (sandbox.workspace.images_dir("quick") / "REPORT.md").read_text()
    assert "**Not processed:** invalid config:" in report and "not run at profile quick: test-fig." in report
