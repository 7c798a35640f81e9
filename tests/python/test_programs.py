"""Figures run by programs other than the engine (`program: bench_fvs`, `program: bench_strife`):
config validation, both output contracts end to end with fake programs, failures, building."""
from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pandas as pd
import pytest

from ccbench.cli import main
from ccbench.errors import ConfigError
from ccbench.report.pipeline import load_catalog
from ccbench.run.backends import LocalBackend
from ccbench.run.runner import run_sweep
from ccbench.run.workspace import Workspace
from ccbench.specification.config import FigureConfig, load_profiles

FAKE_BENCH = Path(__file__).with_name("fake_bench.py")
FVS_COMMAND = f"{sys.executable} {FAKE_BENCH} fvs"
STRIFE_COMMAND = f"{sys.executable} {FAKE_BENCH} strife"

FVS_FIGURE = {
    "title": "FVS size vs skew",
    "program": "bench_fvs",
    "base": {"graphs": 5},
    "axes": {"theta": [0.5, 0.7, 0.9]},
    "series": [{"name": "search", "params": {"algorithm": "search"}},
               {"name": "greedy", "params": {"algorithm": "greedy_prod"}},
               {"name": "random", "params": {"algorithm": "random"}}],
    "plot": {"kind": "line", "x": "theta", "y": "avg_fvs_size"},
    "deterministic_metrics": ["avg_fvs_size", "capped_graphs"],   # decided from one repetition
    "claims": [
        {"id": "random-twice-greedy", "kind": "ratio", "numerator": "random", "denominator": "greedy",
         "op": "between", "bound": [1.9, 2.1], "check": "trend", "text": "random's FVS is twice greedy's"},
        {"id": "search-gives-up", "kind": "value", "series": "search", "metric": "capped_graphs",
         "at": {"theta": [0.9]}, "op": ">=", "bound": 1, "check": "trend", "text": "search gives up beyond 0.7"},
        {"id": "search-finishes", "kind": "value", "series": "search", "metric": "capped_graphs",
         "at": {"theta": [0.5, 0.7]}, "op": "<=", "bound": 0, "check": "trend", "text": "search finishes up to 0.7"},
    ],
}

STRIFE_FIGURE = {
    "title": "CF clusters vs alpha",
    "program": "bench_strife",
    "base": {"experiments": "fig10", "batch": 500},
    "axes": {"alphas": [0.1, 0.5]},
    "series": [{"name": "w4", "params": {"fig10_points": "tpcc:4"}},
               {"name": "w30", "params": {"fig10_points": "tpcc:30"}}],
    "plot": {"kind": "line", "x": "alphas", "y": "cf_clusters"},
    "deterministic_metrics": ["cf_clusters", "residual_fraction"],
    "claims": [
        {"id": "settles-at-warehouses", "kind": "matches", "by": "series", "expected": {"w4": 4, "w30": 30},
         "at": {"alphas": "max"}, "check": "trend", "text": "settles at the number of warehouses"},
        {"id": "residuals-a-tenth", "kind": "value", "series": "w4", "metric": "residual_fraction",
         "op": "between", "bound": [0.1, 0.1], "check": "trend", "text": "a tenth of the batch is residual"},
    ],
}


def document(figure: dict, change=None) -> dict:
    copied = copy.deepcopy(figure)
    if change:
        change(copied)
    return copied


def arguments(sandbox, *words: str) -> list[str]:
    return [*sandbox.cli_arguments(*words), "--program", f"bench_fvs={FVS_COMMAND}",
            "--program", f"bench_strife={STRIFE_COMMAND}"]


def load(sandbox, figure: dict, figure_id: str = "prog-fig") -> FigureConfig:
    path = sandbox.add_figure(figure_id, figure, paper="programs")
    return FigureConfig.load(path, load_profiles(sandbox.workspace.profiles_dir))


def records(sandbox) -> list[dict]:
    return [json.loads(path.read_text()) for path in sandbox.records().values()]


def scaling_on_a_text_axis(figure: dict) -> None:
    figure["axes"]["fig10_points"] = ["tpcc:4", "tpcc:30"]
    figure["series"] = [{"name": "strife", "params": {"alphas": 0.2}}]
    figure["axes"].pop("alphas")
    figure["plot"]["x"] = "fig10_points"
    figure["claims"] = [{"id": "s", "kind": "scaling", "op": ">=", "bound": 0.5, "check": "trend", "text": "t"}]


BAD_PROGRAM_CONFIGS = [
    ("unknown program", FVS_FIGURE, lambda d: d.update(program="bench_xyz"),
     "program", "'bench_xyz' is not allowed; allowed values: rundb, bench_fvs, bench_strife"),
    ("a required parameter of the program is missing", FVS_FIGURE, lambda d: d["series"][0]["params"].pop("algorithm"),
     "series[0]", "no value for algorithm (bench_fvs needs theta, algorithm;"),
    ("rows of an experiment the program does not have", STRIFE_FIGURE,
     lambda d: d["base"].update(experiments="fig11"),
     "base.experiments", "'fig11' is not allowed: a point of bench_strife takes the rows of one of fig05, fig09, fig10"),
    ("a list of thread counts in one point", STRIFE_FIGURE, lambda d: d["base"].update(threads="1,2"),
     "base.threads", "'1,2' is not allowed: threads must be a positive integer"),
    ("between without a range", FVS_FIGURE, lambda d: d["claims"][0].update(bound=2),
     "claims[0].bound", "op between needs bound: [low, high]"),
    ("an empty range", FVS_FIGURE, lambda d: d["claims"][0].update(bound=[2.1, 1.9]),
     "claims[0].bound", "[2.1, 1.9] is empty: low must be <= high"),
    ("a range with a one-sided comparison", FVS_FIGURE, lambda d: d["claims"][1].update(bound=[1, 2]),
     "claims[1].bound", "a [low, high] bound needs op between; op >= takes one number"),
    ("a listed at value that is not swept", FVS_FIGURE, lambda d: d["claims"][1]["at"].update(theta=[0.9, 0.8]),
     "claims[1].at.theta", "0.8 is not swept under profile"),
    ("matches a value that is not swept", FVS_FIGURE,
     lambda d: d["claims"].append({"id": "m", "kind": "matches", "series": "greedy", "expected": {0.6: 1},
                                   "check": "trend", "text": "t"}),
     "claims[3].expected.0.6", "0.6 is not a value of theta swept under profile"),
    ("matches by series names an unknown series", STRIFE_FIGURE,
     lambda d: d["claims"][0]["expected"].update(w99=99),
     "claims[0].expected.w99", "'w99' is not a series of this figure; series: w4, w30"),
    ("matches by something that is neither series nor an axis", STRIFE_FIGURE,
     lambda d: d["claims"][0].update(by="warehouses"),
     "claims[0].by", "'warehouses' is not allowed; allowed: series, alphas"),
    ("scaling along a text axis", STRIFE_FIGURE, scaling_on_a_text_axis,
     "claims[0].along", "'fig10_points' is not an axis of positive numbers"),
    ("a list of metrics on a bar plot", FVS_FIGURE,
     lambda d: d["plot"].update(kind="bar", y=["avg_fvs_size", "us_per_graph"]),
     "plot.y", "a list of metrics needs kind line or grouped_bar or stacked_bar or table"),
]


@pytest.mark.parametrize("figure, change, field_path, message", [case[1:] for case in BAD_PROGRAM_CONFIGS],
                         ids=[case[0] for case in BAD_PROGRAM_CONFIGS])
def test_each_bad_program_figure_field_is_reported_with_its_path(sandbox, figure, change, field_path, message):
    with pytest.raises(ConfigError) as raised:
        load(sandbox, document(figure, change))
    problems = raised.value.problems
    assert [p for p in problems if p[1] == field_path and message in p[2]], problems
    assert all(p[0].endswith("programs/prog-fig.yaml") for p in problems)


def test_a_bad_program_config_exits_2_and_writes_nothing(sandbox, capsys):
    sandbox.add_figure("prog-fig", document(FVS_FIGURE, lambda d: d.update(program="bench_xyz")), paper="programs")
    assert main(arguments(sandbox, "run", "prog-fig", "--profile", "quick")) == 2
    assert "prog-fig.yaml: program: 'bench_xyz' is not allowed" in capsys.readouterr().err
    assert not sandbox.workspace.results_dir.exists()


def test_program_command_options_are_checked(sandbox, capsys):
    sandbox.add_figure("prog-fig", document(FVS_FIGURE), paper="programs")
    assert main([*sandbox.cli_arguments("run", "prog-fig", "--profile", "quick"), "--program", "bench_zz=x"]) == 2
    assert "--program bench_zz=...: unknown program; programs: bench_fvs, bench_strife" in capsys.readouterr().err
    assert main([*sandbox.cli_arguments("run", "prog-fig", "--profile", "quick"), "--program", "bench_fvs"]) == 2
    assert "--program bench_fvs: expected NAME=COMMAND" in capsys.readouterr().err


def test_program_points_get_no_run_length_and_the_program_s_threads(sandbox):
    fvs = load(sandbox, document(FVS_FIGURE, lambda d: d["base"].update(duration=5))).resolve("repeated")
    # The profile files' base (duration, warmup) is the engine's run length: not passed to programs,
    # and a program figure may use those names for its own flags.
    assert {dict(point.flags).get("duration") for point in fvs.points()} == {5}
    assert not any("warmup" in dict(point.flags) for point in fvs.points())
    assert {point.cc for point in fvs.points()} == {None} and fvs.max_threads() == 1
    assert sorted(dict(p.flags)["seed"] for p in fvs.points() if p.series == "greedy" and p.coords == (("theta", 0.5),)) \
        == [1, 2, 3]
    strife = load(sandbox, document(STRIFE_FIGURE, lambda d: d["base"].update(threads=4)), "strife").resolve("quick")
    assert strife.max_threads() == 4 and {point.row_list for point in strife.points()} == {"fig10"}


def test_a_file_writing_program_runs_end_to_end(sandbox, tmp_path, monkeypatch, capsys):
    log = tmp_path / "bench.log"
    monkeypatch.setenv("FAKE_ENGINE_LOG", str(log))
    sandbox.add_figure("fvs-fig", document(FVS_FIGURE), paper="ding")
    assert main(arguments(sandbox, "figures", "fvs-fig", "--profile", "quick", "--quiet")) == 0, capsys.readouterr()
    stored = records(sandbox)
    assert len(stored) == 9 and {record["status"] for record in stored} == {"ok"}
    assert {record["program"] for record in stored} == {"bench_fvs"}
    invocations = log.read_text().splitlines()
    assert len(invocations) == 9 and all("--out=" in line and "--duration" not in line for line in invocations)

    workspace = sandbox.workspace
    table = pd.read_csv(workspace.tables_dir("quick") / "fvs-fig.csv").set_index(["series", "theta"])
    assert table.loc[("random", 0.9), "avg_fvs_size"] == 18 and table.loc[("greedy", 0.9), "avg_fvs_size"] == 9
    assert pd.isna(table.loc[("search", 0.9), "avg_fvs_size"])          # capped: no point, as in the paper
    assert "throughput" not in table.columns                             # the engine's default metrics are not
    claims = json.loads((workspace.tables_dir("quick") / "fvs-fig.claims.json").read_text())
    assert {claim["id"]: claim["outcome"] for claim in claims} == {
        "random-twice-greedy": "held", "search-gives-up": "held", "search-finishes": "held"}
    assert (workspace.images_dir("quick") / "fvs-fig.png").stat().st_size > 5000
    report = (workspace.images_dir("quick") / "REPORT.md").read_text()
    assert "Program: `bench_fvs`" in report and "| `fvs-fig` | ding | 9 / 9 | 0 | 3 held, 0 failed" in report

    assert main(arguments(sandbox, "run", "fvs-fig", "--profile", "quick", "--quiet")) == 0
    assert len(log.read_text().splitlines()) == 9                        # resumed: nothing run again


def test_a_stdout_program_s_point_is_its_one_row(sandbox, capsys):
    sandbox.add_figure("strife-fig", document(STRIFE_FIGURE), paper="strife")
    assert main(arguments(sandbox, "run", "strife-fig", "--profile", "quick", "--quiet")) == 0, capsys.readouterr()
    stored = records(sandbox)
    assert len(stored) == 4 and {record["status"] for record in stored} == {"ok"}
    for record in stored:
        assert record["command"][-1].startswith("--")
        assert "--format=json" in record["command"] and not any(p.startswith("--out=") for p in record["command"])
        result = record["result"]
        assert result["config"] == {"batch": 500, "seed": 1} and result["workload"] == "tpcc"
        assert "fig10" not in result and "fig05" not in result            # the row lists are not carried over
    table = pd.read_csv(sandbox.workspace.tables_dir("quick") / "strife-fig.csv").set_index(["series", "alphas"])
    assert table.loc[("w30", 0.5), "cf_clusters"] == 30 and table.loc[("w4", 0.1), "residual_fraction"] == 0.1
    claims = json.loads((sandbox.workspace.tables_dir("quick") / "strife-fig.claims.json").read_text())
    assert [claim["outcome"] for claim in claims] == ["held", "held"]


FVS_FAILURES = {
    "broken": "bench_fvs rejected the configuration (exit 2)",
    "silent": "bench_fvs wrote no result JSON",
    "partial": "the result JSON lacks us_per_graph",
}
STRIFE_FAILURES = {
    "garbled": "the JSON on stdout is invalid",
    "two-rows": "the JSON on stdout has 2 rows in 'fig10'; a point must select exactly one",
}


def test_program_failures_are_recorded_with_their_reason_and_the_sweep_goes_on(sandbox, capsys):
    fvs = document(FVS_FIGURE, lambda d: d.update(
        base={"theta": 0.5}, axes={"algorithm": [*FVS_FAILURES, "greedy_prod"]},
        series=[{"name": "fvs", "params": {}}], plot={"kind": "bar", "x": "algorithm", "y": "avg_fvs_size"},
        claims=[], deterministic_metrics=["avg_fvs_size"]))
    strife = document(STRIFE_FIGURE, lambda d: d.update(
        axes={"fig10_points": ["garbled", "tpcc:4"]}, series=[{"name": "two-rows", "params": {"alphas": "0.1,0.2"}},
                                                             {"name": "one-row", "params": {"alphas": "0.2"}}],
        plot={"kind": "bar", "x": "fig10_points", "y": "cf_clusters"}, claims=[], deterministic_metrics=["cf_clusters"]))
    sandbox.add_figure("fvs-failing", fvs, paper="programs")
    sandbox.add_figure("strife-failing", strife, paper="programs")
    assert main(arguments(sandbox, "run", "fvs-failing", "strife-failing", "--profile", "quick", "--quiet")) == 1
    failures = {}
    for record in records(sandbox):
        flags = " ".join(record["command"])
        label = next((name for name in FVS_FAILURES if f"--algorithm={name}" in flags), None) \
            or ("garbled" if "--fig10_points=garbled" in flags else "two-rows" if "--alphas=0.1,0.2" in flags else "ok")
        failures.setdefault(label, []).append(record)
    for label, reason in {**FVS_FAILURES, **STRIFE_FAILURES}.items():
        assert all(r["status"] == "failed" and r["failure"].startswith(reason) for r in failures[label]), label
    assert [r["status"] for r in failures["ok"]] == ["ok", "ok"]       # greedy_prod, and one-row at tpcc:4
    assert "unknown value 'broken'" in failures["broken"][0]["stderr_tail"]


def test_programs_are_built_with_make_tools_once(sandbox):
    # A repository whose `make tools` makes bin/bench_fvs and bin/bench_strife (wrappers of the fakes).
    wrapper = "\t@printf '#!/bin/sh\\nexec {python} {fake} {mode} \"$$@\"\\n' > bin/{name} && chmod +x bin/{name}\n"
    (sandbox.root / "Makefile").write_text(
        "tools:\n\t@mkdir -p bin\n"
        + wrapper.format(python=sys.executable, fake=FAKE_BENCH, mode="fvs", name="bench_fvs")
        + wrapper.format(python=sys.executable, fake=FAKE_BENCH, mode="strife", name="bench_strife"))
    sandbox.add_figure("fvs-fig", document(FVS_FIGURE), paper="programs")
    sandbox.add_figure("strife-fig", document(STRIFE_FIGURE), paper="programs")
    workspace = Workspace.create(root=sandbox.root)
    assert workspace.builds("bench_fvs") and workspace.builds("bench_strife")
    catalog = load_catalog(workspace)
    figures = [catalog.figures[name].resolve("quick") for name in ("fvs-fig", "strife-fig")]
    messages = []
    summary = run_sweep(figures, workspace, LocalBackend(), progress=False, log=messages.append)
    assert messages == ["ccbench: make tools"]
    assert summary.ran == 9 + 4 and summary.failed == 0 and not summary.skipped
    assert {record["command"][0] for record in records(sandbox)} == \
        {str(sandbox.root / "bin" / "bench_fvs"), str(sandbox.root / "bin" / "bench_strife")}


def test_program_runs_are_keyed_by_program_and_command(sandbox):
    fvs = load(sandbox, document(FVS_FIGURE)).resolve("quick").points()[0]
    assert fvs.key("bin/bench_fvs") == fvs.key("bin/bench_fvs")
    assert fvs.key("bin/bench_fvs") != fvs.key("other/bench_fvs")
    engine_point = type(fvs)(fvs.figure, fvs.series, fvs.coords, 0, "silo", fvs.flags, fvs.timeout_s)
    assert engine_point.key("bin/bench_fvs") != fvs.key("bin/bench_fvs")


def test_ding_fig05_and_fig06_share_every_run():
    """Their configs must resolve to the same runs, so that one sweep serves both figures."""
    workspace = Workspace.create()
    catalog = load_catalog(workspace)
    template = workspace.command_template("bench_fvs")
    for profile in catalog.figures["ding-fig05"].profiles:
        sizes, times = (catalog.figures[name].resolve(profile) for name in ("ding-fig05", "ding-fig06"))
        assert [p.key(template) for p in sizes.points()] == [p.key(template) for p in times.points()], profile
