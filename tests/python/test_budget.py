"""The dry-run budget (`--dry-run --budget --machines N`) and the placement of runs that figures share."""
from __future__ import annotations

import itertools
import random

import pytest

from ccbench.cli import main
from ccbench.run.budget import LOAD_RATES, MACHINE_THREADS, PROCESS_S, Budget, Line, RunCost, budget
from ccbench.run.runner import tasks_for
from ccbench.specification.config import FigureConfig, load_profiles
from conftest import figure_document

PAPERLIKE = {"description": "tests: a paper-like run length", "base": {"duration": 10, "warmup": 2},
             "repetitions": 2, "timeout_s": 60}


def _resolved(sandbox, figure_id: str, profile: str = "paperlike", **changes):
    sandbox.write(sandbox.workspace.profiles_dir / "paperlike.yaml", PAPERLIKE)
    path = sandbox.add_figure(figure_id, figure_document(claims=None, **changes))
    return FigureConfig.load(path, load_profiles(sandbox.workspace.profiles_dir)).resolve(profile)


def _all_keys(figures, sandbox) -> set[str]:
    return set(tasks_for(figures, sandbox.workspace))


def test_the_budget_adds_up_from_durations_repetitions_and_load_times(sandbox):
    # 2 series x 3 thetas x 2 repetitions, 10 s measured after 2 s warm-up, 1M YCSB rows each
    figure = _resolved(sandbox, "fig-a", base={"workload": "ycsb", "threads": 1, "table_size": 1000000})
    twin = _resolved(sandbox, "fig-b", base={"workload": "ycsb", "threads": 1, "table_size": 1000000})
    result = budget([figure, twin], sandbox.workspace, _all_keys([figure, twin], sandbox))

    load = 1000000 * LOAD_RATES["ycsb"].seconds_per_unit
    run_s = 10 + 2 + load + PROCESS_S
    for line in result.figures:
        assert line.runs == 12 and line.measured_s == pytest.approx(120)
        assert line.overhead_s == pytest.approx(12 * (2 + load + PROCESS_S))
        assert line.machine_s == pytest.approx(12 * run_s)
    # the twin figure needs the same 12 runs: the total counts them once
    assert result.total.runs == 12 and result.total.machine_s == pytest.approx(12 * run_s)
    # 12 equal runs: 3 rounds on 4 or 5 machines, 12 on one
    assert result.wall_s(4) == pytest.approx(3 * run_s) and result.wall_s(5) == pytest.approx(3 * run_s)
    assert result.wall_s(1) == pytest.approx(12 * run_s)
    text = result.describe(4)
    assert f"on 4 machines of {MACHINE_THREADS} threads: {3 * run_s / 3600:.1f} h wall" in text
    assert text.splitlines()[-2].split()[-4:] == ["12", f"{120 / 3600:.2f}", f"{12 * (2 + load + PROCESS_S) / 3600:.2f}",
                                                 f"{12 * run_s / 3600:.2f}"]


def test_shared_runs_take_their_threads_share_of_a_machine_and_tpcc_loads_a_warehouse_per_thread(sandbox):
    shared = _resolved(sandbox, "fig-s", placement="shared",
                       base={"workload": "tpcc", "threads": 8, "warehouses": 0}, axes={"theta": [0.5]})
    result = budget([shared], sandbox.workspace, _all_keys([shared], sandbox))
    run_s = 10 + 2 + 8 * LOAD_RATES["tpcc"].seconds_per_unit + PROCESS_S
    assert result.total.runs == 4 and result.total.machine_s == pytest.approx(4 * run_s * 8 / MACHINE_THREADS)


def test_stored_runs_are_left_out_and_bad_option_combinations_exit_2(sandbox, capsys):
    sandbox.add_figure("fig-a", figure_document(claims=None))
    assert main(sandbox.cli_arguments("run", "fig-a", "--profile", "quick", "--quiet")) == 0
    sandbox.add_figure("fig-b", figure_document(claims=None, axes={"theta": [0.0, 0.5, 0.9, 0.99]}))
    capsys.readouterr()
    assert main(sandbox.cli_arguments("figures", "fig-a,fig-b", "--profile", "quick", "--dry-run", "--budget",
                                      "--machines", "2")) == 0
    rows = {line[:28].strip(): line.split()[-4] for line in capsys.readouterr().out.splitlines()[1:-1]}
    assert rows == {"fig-a": "0", "fig-b": "2", "total (distinct runs)": "2"}   # only theta 0.99 is new, 2 series
    for arguments, message in ((["--budget"], "--budget needs --dry-run"),
                               (["--dry-run", "--machines", "3"], "--machines needs --budget"),
                               (["--dry-run", "--budget", "--machines", "0"],
                                "argument --machines: 0 is too small; it must be at least 1")):
        try:
            status = main(sandbox.cli_arguments("figures", "fig-a", "--profile", "quick", *arguments))
        except SystemExit as exited:     # the parser's own checks
            status = exited.code
        assert status == 2 and message in capsys.readouterr().err


def test_wall_time_is_within_four_thirds_of_the_best_schedule_found_by_brute_force():
    generator = random.Random(11)
    for _ in range(60):
        machines = generator.randint(2, 3)
        lengths = [generator.uniform(1, 100) for _ in range(generator.randint(1, 7))]
        costs = [RunCost(length, 0.0, 1.0, False) for length in lengths]
        best = min(max(sum(length for length, where in zip(lengths, assignment) if where == machine)
                       for machine in range(machines))
                   for assignment in itertools.product(range(machines), repeat=len(lengths)))
        wall = Budget([], Line("total"), costs).wall_s(machines)
        assert best - 1e-9 <= wall <= 4 / 3 * best + 1e-9


def test_the_middle_tiers_runs_add_to_the_wall_time_one_after_another():
    costs = [RunCost(10, 0, 1, False)] * 4 + [RunCost(7, 1, 1, True)] * 2
    assert Budget([], Line("total"), costs).wall_s(2) == pytest.approx(20 + 16)


def test_a_run_two_figures_share_is_shared_only_if_both_say_so(sandbox):
    shared = _resolved(sandbox, "fig-s", profile="quick", placement="shared")
    exclusive = _resolved(sandbox, "fig-e", profile="quick")
    assert {task.placement for task in tasks_for([shared], sandbox.workspace).values()} == {"shared"}
    assert {task.placement for task in tasks_for([shared, exclusive], sandbox.workspace).values()} == {"exclusive"}
    assert {task.placement for task in tasks_for([exclusive, shared], sandbox.workspace).values()} == {"exclusive"}


def test_every_registered_workload_has_a_load_rate_and_an_unknown_one_is_refused():
    # A workload added to workloads/workloads.txt without a measured load rate was costed at 0 s silently.
    from ccbench.errors import ConfigError
    from ccbench.run.budget import load_seconds
    from ccbench.specification import registry
    assert set(LOAD_RATES) == set(registry.workloads())
    assert load_seconds({"workload": "tpcc", "warehouses": 2}, 1) == pytest.approx(2 * LOAD_RATES["tpcc"].seconds_per_unit)
    assert load_seconds({}, 1) == 0.0  # a program that loads no workload
    with pytest.raises(ConfigError, match="no table-load rate for workload 'newbench'.*allowed: hot, micro"):
        load_seconds({"workload": "newbench"}, 1)
