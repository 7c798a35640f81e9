"""Time series (Strife Fig 8d): per-second samples and phases of a run, the
phase metrics claims use, the `timeseries` plot kind and its config rules."""
from __future__ import annotations

import json
import math

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from ccbench.cli import main
from ccbench.errors import ConfigError
from ccbench.report.plots import RunDocuments, _FigureDrawer, plot_figure
from ccbench.run.store import ResultStore
from ccbench.specification.config import FigureConfig, load_profiles
from ccbench.specification.metrics import metric_value, phase_spans, phase_throughputs, timeline_samples
from conftest import figure_document


def run_document(timeline, measured_s, schedule, throughput=None) -> dict:
    """A result of the engine with --timeline and HOT's logged schedule [(start_s, n), ...]."""
    commits = sum(timeline)
    return {"config": {"threads": 2, "hot_schedule": [{"epoch": i, "start_s": start, "hot_partitions": n}
                                                      for i, (start, n) in enumerate(schedule)]},
            "throughput": throughput if throughput is not None else commits / measured_s,
            "commits": commits, "aborts": 0, "latency_us": {"p99": 1.0},
            "phases": {"measured_s": measured_s}, "timeline": timeline}


def test_samples_are_the_whole_seconds_of_the_measured_interval_zero_filled():
    # the engine stops the array at the last second with a commit; the last partial second is dropped
    assert timeline_samples(run_document([5, 6, 7, 1], 3.4, [(0, 4)])) == [5.0, 6.0, 7.0]
    assert timeline_samples(run_document([5, 6], 4.0, [(0, 4)])) == [5.0, 6.0, 0.0, 0.0]
    assert timeline_samples(run_document([], 0.3, [(0, 4)])) == []
    with pytest.raises(KeyError):
        timeline_samples({"phases": {"measured_s": 2.0}})     # no --timeline


def test_phases_start_inside_the_measured_interval_and_the_last_ends_with_it():
    run = run_document([1] * 10, 10.2, [(0, 4), (4, 1), (8, 3), (12, 2)])
    assert phase_spans(run) == [(0.0, 4.0, 4), (4.0, 8.0, 1), (8.0, 10.2, 3)]
    # phase means over whole seconds inside each phase: [0, 4) -> 0..3, [4, 8) -> 4..7, [8, 10.2) -> 8, 9
    run = run_document([10, 10, 10, 10, 2, 2, 4, 4, 6, 6], 10.2, [(0, 4), (4, 1), (8, 3), (12, 2)])
    assert phase_throughputs(run) == [(4, 10.0), (1, 3.0), (3, 6.0)]


def test_phase_cv_is_zero_for_a_flat_series_and_grows_with_the_spread():
    flat = run_document([100] * 12, 12.0, [(0, 4), (4, 1), (8, 3)])
    assert metric_value(flat, "phase_throughput_cv") == 0.0
    varied = run_document([100] * 4 + [50] * 4 + [150] * 4, 12.0, [(0, 4), (4, 1), (8, 3)])
    assert metric_value(varied, "phase_throughput_cv") == pytest.approx(math.sqrt(2 / 3) * 50 / 100)
    one_phase = run_document([100] * 12, 12.0, [(0, 4), (20, 1)])
    assert math.isnan(metric_value(one_phase, "phase_throughput_cv"))   # nothing to compare


def test_phase_n_correlation_follows_n_and_needs_three_phases_with_different_n():
    suffers = run_document([100] * 4 + [25] * 4 + [75] * 4, 12.0, [(0, 4), (4, 1), (8, 3)])
    assert metric_value(suffers, "phase_throughput_n_corr") == pytest.approx(1.0)
    inverse = run_document([25] * 4 + [100] * 4 + [50] * 4, 12.0, [(0, 4), (4, 1), (8, 3)])
    assert metric_value(inverse, "phase_throughput_n_corr") < -0.9
    for too_little in (run_document([1, 2, 3, 4, 5, 6, 7, 8], 8.0, [(0, 4), (4, 1)]),     # two phases
                       run_document([1, 2, 3, 4, 5, 6], 6.0, [(0, 1), (2, 1), (4, 1)]),     # constant n
                       run_document([5] * 6, 6.0, [(0, 4), (2, 1), (4, 3)])):               # constant throughput
        assert math.isnan(metric_value(too_little, "phase_throughput_n_corr"))
    assert math.isnan(metric_value({"phases": {"measured_s": 2.0}}, "phase_throughput_cv"))   # no timeline


TIMESERIES = {"kind": "timeseries", "x": "time", "y": "timeline", "y_factor": 1.0e-3,
              "phases": {"field": "config.hot_schedule", "label": "hot_partitions", "prefix": "n="},
              "xlabel": "Time (secs)"}
CLAIMS = [
    {"id": "silo-best", "kind": "best", "series": "silo", "metric": "throughput", "check": "trend",
     "text": "Silo has the highest mean throughput"},
    {"id": "silo-stable", "kind": "value", "series": "silo", "metric": "phase_throughput_cv", "op": "<=",
     "bound": 0.1, "check": "trend", "text": "Silo's throughput is stable across phases"},
    {"id": "occ-suffers", "kind": "value", "series": "occ", "metric": "phase_throughput_n_corr", "op": ">=",
     "bound": 0.5, "check": "trend", "text": "OCC suffers with a smaller n"},
]


def timeseries_document(**changes) -> dict:
    document = figure_document(axes={"threads": [2]}, base={"workload": "hot", "timeline": True},
                               plot=TIMESERIES, claims=CLAIMS)
    document.update(changes)
    return document


def resolved(sandbox, document, figure_id="ts-fig"):
    path = sandbox.add_figure(figure_id, document)
    return FigureConfig.load(path, load_profiles(sandbox.workspace.profiles_dir)).resolve("quick")


SCHEDULE = [(0, 4), (4, 1), (8, 3), (12, 2)]   # the last starts in the partial second after 12 s: not drawn
SILO = run_document([100] * 12, 12.3, SCHEDULE)
OCC = run_document([80] * 4 + [20] * 4 + [60] * 4, 12.3, SCHEDULE)


def documents_for(figure, by_series: dict) -> RunDocuments:
    runs = pd.DataFrame([{"series": point.series, **dict(point.coords), "repetition": point.repetition,
                          "status": "ok", "key": f"{point.series}-{point.repetition}"} for point in figure.points()])
    return RunDocuments(runs, lambda key: by_series.get(key.split("-")[0]))


def aggregated(figure) -> pd.DataFrame:
    return pd.DataFrame([{"series": s.name, "series_label": s.label, "threads": 2, "runs_ok": 1}
                         for s in figure.config.series])


def test_timeseries_draws_each_series_run_per_second_and_marks_the_phase_changes(sandbox):
    figure = resolved(sandbox, timeseries_document())
    documents = documents_for(figure, {"silo": SILO, "occ": OCC})
    drawer = _FigureDrawer(figure, aggregated(figure), documents=documents)
    fig, ax = plt.subplots()
    drawer.draw_timeseries(ax, aggregated(figure))
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert list(lines["OCC"].get_ydata()) == pytest.approx([0.08] * 4 + [0.02] * 4 + [0.06] * 4)   # y_factor
    assert list(lines["Silo"].get_xdata()) == [i + 0.5 for i in range(12)]                        # mid-second
    vertical = sorted(line.get_xdata()[0] for line in ax.get_lines() if line.get_label() not in ("OCC", "Silo"))
    assert vertical == [4.0, 8.0]                                  # the changes, not the start
    assert sorted(text.get_text().strip() for text in ax.texts) == ["n=1", "n=3", "n=4"]
    plt.close(fig)
    png, pdf = plot_figure(figure, aggregated(figure), sandbox.root / "out" / "ts", documents=documents)
    assert png.read_bytes().startswith(b"\x89PNG") and pdf.read_bytes().startswith(b"%PDF")
    with pytest.raises(ValueError, match="documents"):
        plot_figure(figure, aggregated(figure), sandbox.root / "out" / "ts2")


def test_the_first_successful_repetition_is_drawn(sandbox):
    runs = pd.DataFrame([{"series": "silo", "threads": 2, "repetition": r, "status": status, "key": f"k{r}"}
                         for r, status in ((2, "ok"), (0, "failed"), (1, "ok"))])
    loaded = RunDocuments(runs, lambda key: {"key": key}).first_ok("silo", {"threads": 2})
    assert loaded == {"key": "k1"}
    assert RunDocuments(runs, lambda key: None).first_ok("silo", {"threads": 2}) is None
    assert RunDocuments(runs, lambda key: {"key": key}).first_ok("occ", {"threads": 2}) is None


def test_plot_command_draws_a_timeseries_and_checks_phase_claims_from_the_store(sandbox, capsys):
    # three repetitions that agree: the verdicts are decided (one repetition of a noisy metric is inconclusive)
    path = sandbox.add_figure("ts-fig", timeseries_document())
    figure = FigureConfig.load(path, load_profiles(sandbox.workspace.profiles_dir)).resolve("repeated")
    store = ResultStore(sandbox.workspace.runs_dir)
    template = sandbox.workspace.command_template("rundb")
    for point in figure.points():
        store.put({"key": point.key(template), "status": "ok", "program": "rundb", "cc": point.cc,
                   "result": {"silo": SILO, "occ": OCC}[point.series]})
    status = main(sandbox.cli_arguments("plot", "ts-fig", "--profile", "repeated"))
    assert status == 0, capsys.readouterr().err
    assert (sandbox.workspace.images_dir("repeated") / "ts-fig.png").stat().st_size > 5000
    outcomes = sandbox.workspace.tables_dir("repeated") / "ts-fig.claims.json"
    claims = {c["id"]: c for c in json.loads(outcomes.read_text())}
    assert claims["silo-best"]["outcome"] == "held"            # 100 vs 53.3 commits/s
    assert claims["silo-stable"]["outcome"] == "held"          # CV 0
    assert claims["occ-suffers"]["outcome"] == "held"          # 80, 20, 60 against n = 4, 1, 3
    table = pd.read_csv(sandbox.workspace.tables_dir("repeated") / "ts-fig.csv")
    occ = table[table["series"] == "occ"].iloc[0]
    assert occ["phase_throughput_cv"] == pytest.approx(metric_value(OCC, "phase_throughput_cv"))


def test_timeseries_config_rules(sandbox):
    def problems(document):
        with pytest.raises(ConfigError) as raised:
            resolved(sandbox, document)
        return [(where, message) for _, where, message in raised.value.problems]

    assert ("plot.x", "'threads' is not allowed; allowed: time") in problems(
        timeseries_document(plot={**TIMESERIES, "x": "threads"}))
    no_metric = [dict(CLAIMS[0])]
    del no_metric[0]["metric"]
    assert any(where == "claims[0].metric" and "timeseries' y is an array" in message
               for where, message in problems(timeseries_document(claims=no_metric)))
    line_with_phases = figure_document(plot={"kind": "line", "x": "theta", "y": "throughput",
                                             "phases": {"field": "config.hot_schedule"}})
    assert ("plot.phases", "only for kind timeseries, not line") in problems(line_with_phases)
    fvs = {"title": "FVS over time", "program": "bench_fvs", "base": {"theta": 0.5}, "axes": {"algorithm": ["search"]},
           "series": [{"name": "a", "params": {}}], "plot": {**TIMESERIES}}
    assert any(where == "plot.kind" and "program bench_fvs writes none" in message for where, message in problems(fvs))
