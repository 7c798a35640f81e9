"""Figure views (further drawings of the same runs, e.g. a scatter labelled
with the swept value) and included fragments (a paper's table of defaults)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from ccbench.cli import main
from ccbench.errors import ConfigError
from ccbench.report.plots import _FigureDrawer
from ccbench.specification.config import FigureConfig, load_profiles
from conftest import figure_document
from test_outputs import hand_made_table, resolved

SCATTER_VIEW = {"name": "scatter", "kind": "scatter", "x": "throughput", "y": "latency_us.p50",
                "label_points": "theta"}


def load(sandbox, document, figure_id="test-fig"):
    path = sandbox.add_figure(figure_id, document)
    return FigureConfig.load(path, load_profiles(sandbox.workspace.profiles_dir))


def test_scatter_labels_each_point_with_its_axis_value(sandbox):
    plot = {k: v for k, v in SCATTER_VIEW.items() if k != "name"}
    figure = resolved(sandbox, figure_document(plot=plot, claims=None))
    drawer = _FigureDrawer(figure, hand_made_table(figure))
    fig, ax = plt.subplots()
    drawer.draw_scatter(ax, drawer.table)
    labels = sorted(text.get_text() for text in ax.texts)
    plt.close(fig)
    # Two series x three theta values, each point labelled with its theta.
    assert labels == sorted(["0.0", "0.5", "0.9"] * 2)


def test_scatter_without_label_points_has_no_labels(sandbox):
    figure = resolved(sandbox, figure_document(plot={"kind": "scatter", "x": "throughput", "y": "latency_us.p50"},
                                               claims=None))
    drawer = _FigureDrawer(figure, hand_made_table(figure))
    fig, ax = plt.subplots()
    drawer.draw_scatter(ax, drawer.table)
    assert not ax.texts
    plt.close(fig)


@pytest.mark.parametrize("view, field, message", [
    (SCATTER_VIEW | {"kind": "line", "x": "theta"}, "views[0].label_points", "only for kind scatter"),
    (SCATTER_VIEW | {"label_points": "threads"}, "views[0].label_points", "'threads' is not an axis"),
    (SCATTER_VIEW | {"x": "nonsense axis"}, "views[0].x", "is not allowed"),
])
def test_bad_views_are_rejected_with_their_field(sandbox, view, field, message):
    with pytest.raises(ConfigError) as error:
        load(sandbox, figure_document(views=[view]))
    assert any(p[1] == field and message in p[2] for p in error.value.problems), error.value.problems


def test_duplicate_view_names_are_rejected(sandbox):
    with pytest.raises(ConfigError, match="duplicate view name 'scatter'"):
        load(sandbox, figure_document(views=[SCATTER_VIEW, SCATTER_VIEW]))


def test_run_writes_every_view_and_the_report_shows_them(sandbox, capsys):
    line_view = {"name": "latency", "kind": "line", "x": "theta", "y": "latency_us.p50"}
    sandbox.add_figure("test-fig", figure_document(views=[SCATTER_VIEW, line_view]))
    assert main(sandbox.cli_arguments("figures", "test-fig", "--profile", "quick", "--quiet")) == 0, \
        capsys.readouterr().err
    images = sandbox.workspace.images_dir("quick")
    for name in ("test-fig", "test-fig.scatter", "test-fig.latency"):
        assert (images / f"{name}.png").stat().st_size > 5000
        assert (images / f"{name}.pdf").stat().st_size > 1000
    report = (sandbox.workspace.images_dir("quick") / "REPORT.md").read_text()
    assert "![test-fig](test-fig.scatter.png)" in report and "![test-fig](test-fig.latency.png)" in report
    assert "<img src='test-fig.scatter.png'" in (sandbox.workspace.images_dir("quick") / "REPORT.html").read_text()


FRAGMENT = {
    "description": "a paper's table of defaults",
    "base": {"workload": "ycsb", "threads": 8, "table_size": 5000, "theta": 0.8, "read_ratio": 0.5},
    "profiles": {"quick": {"base": {"threads": 1, "table_size": 100}}},
    "inferences": [{"parameter": "read_ratio", "note": "the fragment's inference"}],
}


def with_fragment(sandbox, fragment=FRAGMENT, name="paper-tab1"):
    sandbox.write(sandbox.workspace.configs_dir / "fragments" / f"{name}.yaml", fragment)


def test_a_fragment_fills_in_what_the_figure_leaves_open(sandbox):
    with_fragment(sandbox)
    document = figure_document(include="paper-tab1", base={"table_size": 777})
    document["series"][1]["params"]["read_ratio"] = 0.9
    config = load(sandbox, document)
    # theta is swept by the figure, table_size set by it, read_ratio fixed by a series: theirs.
    assert config.document["base"] == {"workload": "ycsb", "threads": 8, "table_size": 777}
    assert config.document["profiles"] == {"quick": {"base": {"threads": 1}}}
    quick = config.resolve("quick")
    flags = {p.series: dict(p.flags) for p in quick.points()}
    assert flags["silo"]["threads"] == 1 and flags["silo"]["table_size"] == 777 and "read_ratio" not in flags["silo"]
    assert flags["occ"]["read_ratio"] == 0.9
    assert {dict(p.coords)["theta"] for p in quick.points()} == {0.0, 0.5, 0.9}
    assert config.resolve("repeated").points()[0].threads == 8
    assert [i["parameter"] for i in config.document["inferences"]] == ["read_ratio", "table_size"]


def test_a_figure_profile_value_wins_over_the_fragment_profile(sandbox):
    with_fragment(sandbox)
    config = load(sandbox, figure_document(include="paper-tab1", base={"workload": "ycsb"},
                                           profiles={"quick": {"base": {"threads": 2}}}))
    assert config.document["profiles"]["quick"]["base"] == {"table_size": 100, "threads": 2}


def test_a_missing_or_bad_fragment_is_a_config_error(sandbox):
    with pytest.raises(ConfigError, match="include: no fragment 'nope'"):
        load(sandbox, figure_document(include="nope"))
    with_fragment(sandbox, {"description": "bad", "base": {"threads": 1}, "axes": {"theta": [1]}}, name="bad")
    with pytest.raises(ConfigError, match="bad.yaml"):
        load(sandbox, figure_document(include="bad"))


# The hand-made table of test_claims: throughput a = 100, 80, 50 and c = 30, 31, 20 at theta 0, 0.5, 0.9.
@pytest.mark.parametrize("claim, outcome", [
    ({"kind": "peak", "series": "c", "along": "theta", "peak_at": 0.5}, "held"),
    ({"kind": "peak", "series": "a", "along": "theta", "peak_at": 0.5}, "failed"),
    ({"kind": "peak", "series": "a", "along": "theta", "peak_at": 0.5, "tolerance": 0.25}, "held"),
    ({"kind": "peak", "series": "a", "along": "theta", "peak_at": 0.9, "direction": "min"}, "held"),
    ({"kind": "peak", "series": "c", "along": "theta", "peak_at": 0.0}, "failed"),
])
def test_peak_claim_holds_where_the_series_is_highest_along_the_axis(claim, outcome):
    from test_claims import check
    result = check(claim)
    assert result.outcome == outcome, result.detail


def test_peak_at_must_be_swept_under_every_profile(sandbox):
    claim = {"id": "peak", "kind": "peak", "series": "silo", "peak_at": 0.7, "check": "trend", "text": "t"}
    with pytest.raises(ConfigError, match=r"claims\[0\].peak_at: 0.7 and another value of 'theta' must be swept"):
        load(sandbox, figure_document(claims=[claim]))


def test_hline_draws_the_median_of_its_metric_over_the_panel(sandbox):
    plot = {"kind": "line", "x": "theta", "y": "throughput", "hline": {"metric": "latency_us.p50", "label": "bound"}}
    figure = resolved(sandbox, figure_document(plot=plot, claims=None))
    table = hand_made_table(figure)
    drawer = _FigureDrawer(figure, table)
    fig, ax = plt.subplots()
    drawer.draw_line(ax, drawer.table)
    dotted = [line for line in ax.get_lines() if line.get_label() == "bound"]
    assert len(dotted) == 1
    assert dotted[0].get_ydata()[0] == pytest.approx(table["latency_us.p50"].median())
    plt.close(fig)


def test_hline_only_on_a_line_plot(sandbox):
    view = SCATTER_VIEW | {"hline": {"metric": "throughput", "label": "x"}}
    with pytest.raises(ConfigError) as error:
        load(sandbox, figure_document(views=[view]))
    assert any(p[1] == "views[0].hline" and "only for kind line" in p[2] for p in error.value.problems)
