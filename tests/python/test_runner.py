"""The runner: stores every run, survives failures and kills, resumes without redoing work."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from ccbench.cli import main
from ccbench.errors import ConfigError
from ccbench.fileio import SCRIPTS_DIR
from ccbench.run.backends import LocalBackend
from ccbench.run.engine import build_together
from ccbench.run.runner import run_sweep
from ccbench.run.workspace import Workspace
from ccbench.specification.config import FigureConfig, load_profiles
from conftest import ENGINE_COMMAND, FAKE_ENGINE, figure_document


def engine_log(tmp_path: Path, monkeypatch) -> Path:
    log = tmp_path / "engine.log"
    monkeypatch.setenv("FAKE_ENGINE_LOG", str(log))
    return log


def invocations(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def flags_of(record: dict) -> str:
    """A record's command as the fake engine logs it: its flags, sorted."""
    return " ".join(sorted(part for part in record["command"] if part.startswith("--")))


def test_sweep_stores_every_run_and_a_second_run_recomputes_nothing(sandbox, tmp_path, monkeypatch, capsys):
    log = engine_log(tmp_path, monkeypatch)
    sandbox.add_figure()
    assert main(sandbox.cli_arguments("run", "test-fig", "--profile", "repeated", "--quiet")) == 0
    records = sandbox.records()
    assert len(records) == 2 * 3 * 3 == len(invocations(log))
    # Repetition by repetition: every point's first run comes before any second run.
    assert [line.split("--seed=")[1].split()[0] for line in invocations(log)] == ["1"] * 6 + ["2"] * 6 + ["3"] * 6
    for path in records.values():
        record = json.loads(path.read_text())
        assert record["status"] == "ok" and record["result"]["throughput"] > 0
        assert path.stem == record["key"]
    table = sandbox.workspace.tables_dir("repeated") / "test-fig.csv"
    assert table.is_file()

    assert main(sandbox.cli_arguments("run", "test-fig", "--profile", "repeated", "--quiet")) == 0
    assert len(invocations(log)) == 18                         # nothing was run again
    assert "18 already stored, 0 run now" in capsys.readouterr().err


def failing_figure() -> dict:
    """One run per kind of failure, the good run last: the sweep must reach it."""
    return figure_document(
        axes={"misbehave": ["crash", "exit2", "hang", "exit3", "exit4", "nojson", "badjson", "none"]},
        series=[{"name": "silo", "params": {"cc": "silo"}}],
        timeout_s=2,
        plot={"kind": "bar", "x": "misbehave", "y": "throughput"},
        claims=None)


def test_a_failing_run_is_recorded_with_its_stderr_and_the_sweep_goes_on(sandbox, capsys):
    sandbox.add_figure("failing", failing_figure())
    status = main(sandbox.cli_arguments("run", "failing", "--profile", "quick", "--quiet"))
    assert status == 1                                 # failures are reported in the exit status
    by_behaviour = {}
    for path in sandbox.records().values():
        record = json.loads(path.read_text())
        behaviour = next(p for p in record["command"] if p.startswith("--misbehave=")).split("=")[1]
        by_behaviour[behaviour] = record
    assert set(by_behaviour) == set(failing_figure()["axes"]["misbehave"])
    assert by_behaviour["none"]["status"] == "ok"
    expected_failures = {
        "crash": ("crashed: killed by SIGABRT", "assertion failed, aborting"),
        "exit2": ("the engine rejected the configuration (exit 2)", "ERROR: flag --theta"),
        "hang": ("timed out after 2 s", "fake engine: silo"),
        "exit3": ("a correctness check failed (exit 3)", "invariant violated"),
        "exit4": ("the measured interval committed nothing (exit 4)", "committed nothing"),
        "nojson": ("the engine wrote no result JSON", "fake engine"),
        "badjson": ("the result JSON is invalid", "fake engine"),
    }
    for behaviour, (failure, stderr_text) in expected_failures.items():
        record = by_behaviour[behaviour]
        assert record["status"] == "failed", behaviour
        assert record["failure"].startswith(failure), (behaviour, record["failure"])
        assert stderr_text in record["stderr_tail"], behaviour
    runs = (sandbox.workspace.tables_dir("quick") / "failing.runs.csv").read_text()
    assert "crashed: killed by SIGABRT" in runs
    assert "run failed (crashed: killed by SIGABRT)" in capsys.readouterr().err


def test_retry_failed_reruns_only_the_failed_runs(sandbox, tmp_path, monkeypatch):
    log = engine_log(tmp_path, monkeypatch)
    document = failing_figure()
    document["axes"]["misbehave"] = ["exit3", "none"]
    sandbox.add_figure("failing", document)
    arguments = sandbox.cli_arguments("run", "failing", "--profile", "quick", "--quiet")
    assert main(arguments) == 1
    assert main(arguments) == 1 and len(invocations(log)) == 2   # a stored failure is not redone by default
    assert main([*arguments, "--retry-failed"]) == 1
    counts = Counter("--misbehave=exit3" in line for line in invocations(log))
    assert counts == {True: 2, False: 1}


def test_resume_after_killing_the_runner_recomputes_nothing_and_loses_nothing(sandbox, tmp_path, monkeypatch):
    document = figure_document(axes={"theta": [0.0, 0.2, 0.4, 0.6, 0.8, 0.9]},
                               profiles={"quick": {"base": {"duration": 0.4}}})
    sandbox.add_figure("slow", document)
    log = tmp_path / "engine.log"
    environment = {**os.environ, "PYTHONPATH": str(SCRIPTS_DIR), "FAKE_ENGINE_LOG": str(log)}
    runner = subprocess.Popen([sys.executable, "-m", "ccbench", *sandbox.cli_arguments("run", "slow", "--profile",
                                                                                     "quick", "--quiet")],
                              env=environment, start_new_session=True, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(sandbox.records()) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(runner.pid, signal.SIGKILL)             # the runner and the engine it was running
    runner.wait()
    before_kill = {key: path.read_bytes() for key, path in sandbox.records().items()}
    assert 3 <= len(before_kill) < 12, "the kill should land in the middle of the sweep"

    workspace = Workspace.create(root=sandbox.root, engine=ENGINE_COMMAND)
    figure = FigureConfig.load(workspace.figure_configs_dir / "testbed" / "slow.yaml",
                               load_profiles(workspace.profiles_dir)).resolve("quick")
    monkeypatch.setenv("FAKE_ENGINE_LOG", str(log))
    summary = run_sweep([figure], workspace, LocalBackend(), progress=False)
    after = sandbox.records()
    assert len(after) == 12 and summary.cached == len(before_kill) and summary.ran == 12 - len(before_kill)
    for key, content in before_kill.items():
        assert after[key].read_bytes() == content      # finished runs are kept as they were
    runs = Counter(invocations(log))
    finished_first = {flags_of(json.loads(content)) for content in before_kill.values()}
    assert all(runs[flags] == 1 for flags in finished_first)   # none of them was run again
    assert sum(count - 1 for count in runs.values()) <= 1       # only the run in flight is redone
    assert not list(workspace.runs_dir.glob(".tmp-*"))


def test_dry_run_passes_parameters_as_flags_and_selects_the_binary_by_protocol(tmp_path, capsys):
    from conftest import Sandbox

    sandbox = Sandbox(tmp_path)
    document = figure_document()
    document["series"][0]["params"]["frontend"] = "strife"    # a flag the runner knows nothing about
    sandbox.add_figure("test-fig", document)
    arguments = sandbox.cli_arguments("run", "test-fig", "--profile", "quick", "--dry-run")
    engine_at = arguments.index("--engine")
    del arguments[engine_at:engine_at + 2]                   # the default engine: bin/rundb-<cc>
    assert main(arguments) == 0
    commands = capsys.readouterr().out.splitlines()
    assert len(commands) == 6
    assert commands[0] == (f"{Workspace.create().root}/bin/rundb-silo --duration=0.02 --frontend=strife --seed=1 "
                           "--table_size=1000 --theta=0 --threads=1 --warmup=0 --workload=ycsb")
    assert commands[-1].startswith(f"{Workspace.create().root}/bin/rundb-occ ")
    assert not sandbox.workspace.runs_dir.exists() or not sandbox.records()


def test_runner_builds_binaries_with_make_and_a_failed_build_skips_only_its_runs(sandbox, tmp_path, capsys):
    # A repository whose Makefile builds bin/rundb-<cc> (a wrapper of the fake engine) for each protocol of CC
    # and fails for occ: the runner's one `make CC="occ silo"` fails, then each is built alone.
    (sandbox.root / "Makefile").write_text(
        "all:\n"
        "\t@if echo ' $(CC) ' | grep -q ' occ '; then echo 'occ.cpp:1: error: boom' >&2; exit 1; fi\n"
        "\t@mkdir -p bin\n"
        f"\t@for cc in $(CC); do printf '#!/bin/sh\\nexec {sys.executable} {FAKE_ENGINE} --cc='$$cc' \"$$@\"\\n' "
        "> bin/rundb-$$cc; chmod +x bin/rundb-$$cc; done\n"
        "protocols:\n\t@echo silo occ\n")

    sandbox.add_figure()
    workspace = Workspace.create(root=sandbox.root)
    assert workspace.builds_engine
    figure = _test_figure(workspace)
    messages = []
    summary = run_sweep([figure], workspace, LocalBackend(), progress=False, log=messages.append)
    assert (sandbox.root / "bin" / "rundb-silo").is_file()
    assert summary.ran == 3 and summary.failed == 0 and len(summary.skipped) == 3
    assert set(summary.skipped.values()) == {"`make CC=occ` failed (exit 2):"}
    assert any("occ.cpp:1: error: boom" in message for message in messages)
    stored = [json.loads(path.read_text()) for path in sandbox.records().values()]
    assert {record["cc"] for record in stored} == {"silo"}   # build failures are not stored as results


def test_a_stored_result_of_another_build_is_run_again(sandbox, tmp_path, monkeypatch, capsys):
    # The engine is a copy of the fake engine; changing the copy is a rebuild.
    engine = tmp_path / "engine.py"
    engine.write_bytes(FAKE_ENGINE.read_bytes())
    log = engine_log(tmp_path, monkeypatch)
    sandbox.add_figure()
    arguments = [*sandbox.cli_arguments("run", "test-fig", "--profile", "quick", "--quiet")[:-1],
                 f"{sys.executable} {engine} --cc={{cc}}"]      # our engine instead of the sandbox's
    assert main(arguments) == 0
    assert len(invocations(log)) == 6
    digests = {json.loads(path.read_text())["binary_digest"] for path in sandbox.records().values()}
    assert len(digests) == 1 and None not in digests

    assert main(arguments) == 0                                # same build: nothing runs
    assert len(invocations(log)) == 6
    engine.write_bytes(FAKE_ENGINE.read_bytes() + b"\n# rebuilt\n")
    capsys.readouterr()
    assert main(arguments) == 0                                # another build: everything runs again
    assert len(invocations(log)) == 12
    assert "6 stored from another build (run again)" in capsys.readouterr().err
    new_digests = {json.loads(path.read_text())["binary_digest"] for path in sandbox.records().values()}
    assert len(new_digests) == 1 and new_digests != digests


def _test_figure(workspace: Workspace):
    return FigureConfig.load(workspace.figure_configs_dir / "testbed" / "test-fig.yaml",
                             load_profiles(workspace.profiles_dir)).resolve("quick")


def _engine_repository(sandbox) -> Workspace:
    """A repository whose Makefile knows protocols silo and occ and builds them as the fake engine."""
    (sandbox.root / "Makefile").write_text(
        "all:\n"
        "\t@mkdir -p bin\n"
        f"\t@printf '#!/bin/sh\\nexec {sys.executable} {FAKE_ENGINE} --cc=$(CC) \"$$@\"\\n' > bin/rundb-$(CC)\n"
        "\t@chmod +x bin/rundb-$(CC)\n"
        "protocols:\n\t@echo silo occ\n")
    return Workspace.create(root=sandbox.root)


def test_a_protocol_without_a_binary_is_refused_before_any_build(sandbox):
    document = figure_document()
    document["series"][1]["params"]["cc"] = "mocc"
    sandbox.add_figure(document=document)
    workspace = _engine_repository(sandbox)
    figure = _test_figure(workspace)
    with pytest.raises(ConfigError) as error:
        run_sweep([figure], workspace, LocalBackend(), progress=False)
    assert "series[1].params.cc: no binary for protocol 'mocc'; did you mean occ?; allowed: silo|occ" in str(error.value)
    assert not (sandbox.root / "bin").exists()          # nothing was built
    assert not sandbox.records()                         # nothing was run


def test_a_flag_the_engine_does_not_list_is_refused_before_any_run(sandbox):
    document = figure_document()
    document["base"]["tabel_size"] = 1000
    document["series"][0]["params"]["no_such_knob"] = 3
    sandbox.add_figure(document=document)
    workspace = _engine_repository(sandbox)
    figure = _test_figure(workspace)
    with pytest.raises(ConfigError) as error:
        run_sweep([figure], workspace, LocalBackend(), progress=False)
    assert "base.tabel_size: the engine has no flag --tabel_size" in str(error.value)
    assert "series[0].params.no_such_knob: the engine has no flag --no_such_knob" in str(error.value)
    assert not sandbox.records()                         # nothing was run or stored
    document["base"].pop("tabel_size")
    document["series"][0]["params"].pop("no_such_knob")
    sandbox.add_figure(document=document)
    figure = _test_figure(workspace)
    assert run_sweep([figure], workspace, LocalBackend(), progress=False).failed == 0


def test_a_metric_no_result_can_have_is_refused_before_any_run(sandbox, capsys):
    document = figure_document()
    document["plot"]["y"] = "throughput_typo"
    document["claims"][0]["metric"] = "latency_us.p42"
    sandbox.add_figure(document=document)
    assert main(sandbox.cli_arguments("run", "test-fig", "--profile", "quick", "--quiet")) == 2
    err = capsys.readouterr().err
    assert "plot.y: 'throughput_typo' is not a field of rundb's result document" in err
    assert "claims[0].metric: 'latency_us.p42' is not a field of rundb's result document" in err
    assert not sandbox.records()                         # nothing was run or stored
    assert not list(sandbox.workspace.images_dir("quick").glob("test-fig.*"))   # no figure drawn


def test_a_metric_no_run_reports_is_a_config_error_not_an_empty_figure(sandbox, capsys):
    document = figure_document()
    document["plot"]["y"] = "memory_bound.latency_ns"   # a field of the schema, written only with --memory_bound
    sandbox.add_figure(document=document)
    assert main(sandbox.cli_arguments("run", "test-fig", "--profile", "quick", "--quiet")) == 2
    err = capsys.readouterr().err
    assert "plot.y: no run of the engine reports metric 'memory_bound.latency_ns'" in err
    assert not list(sandbox.workspace.images_dir("quick").glob("test-fig.*"))   # no empty figure drawn

def test_the_protocols_of_a_variant_are_built_by_one_make_and_a_broken_one_alone(tmp_path):
    # A Makefile that makes bin/rundb-<cc> for each word of CC (VARIANT=sim: bin/sim/), fails on `bad`, and
    # logs each call: the protocols of one variant are built together; a failing build is retried one by one.
    (tmp_path / "Makefile").write_text(
        "VARIANT ?= release\nDIR := $(if $(filter sim,$(VARIANT)),bin/sim,bin)\n"
        "all:\n\t@echo '$(CC) $(VARIANT)' >> calls.txt\n\t@mkdir -p $(DIR)\n"
        "\t@if echo ' $(CC) ' | grep -q ' bad '; then exit 1; fi\n"
        "\t@for cc in $(CC); do touch $(DIR)/rundb-$$cc; done\n")
    plan = {("CC=silo",): ["bin/rundb-silo"], ("CC=tictoc",): ["bin/rundb-tictoc"],
            ("CC=silo", "VARIANT=sim"): ["bin/sim/rundb-silo"], ("CC=bad", "VARIANT=sim"): ["bin/sim/rundb-bad"],
            ("CC=occ", "VARIANT=sim"): ["bin/sim/rundb-occ"]}
    problems = build_together(tmp_path, plan)
    assert {arguments for arguments, problem in problems.items() if problem} == {("CC=bad", "VARIANT=sim")}
    assert set(problems) == set(plan)
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    assert calls[0] == "silo tictoc release"                       # one make for the release protocols
    assert calls[1] == "bad occ silo sim"                          # one for the sim ones: it fails,
    assert sorted(calls[2:]) == ["bad sim", "occ sim", "silo sim"]  # so each is built alone
