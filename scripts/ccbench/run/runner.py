"""Runs the points of figures, benchmarks and the soak that the result store lacks (run_tasks)."""
from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from tqdm import tqdm

from ccbench.load import DEFAULT_QUIET_WAIT_S, DEFAULT_THRESHOLD_CORES
from ccbench.run.backends import LocalBackend
from ccbench.run.engine import (STATUS_ERROR, STATUS_FAILED, STATUS_OK, Task, build_arguments, build_binaries,
                               build_plan, build_together, command_files, program_digest)
from ccbench.run.interface import check_flags, check_protocols, refusal
from ccbench.run.pgserver import PostgresUnavailable, private_server
from ccbench.run.store import ResultStore
from ccbench.run.workspace import Workspace
from ccbench.sim import calibration, workscale
from ccbench.specification.config import ResolvedFigure
from ccbench.specification.points import Point
from ccbench.specification.programs import ENGINE, PROGRAMS
from ccbench.specification.schema import PLACEMENT_EXCLUSIVE


@dataclass
class SweepSummary:
    total: int = 0                 # distinct runs the figures need
    cached: int = 0                # found in the store, ok
    cached_failed: int = 0         # found in the store as failed, not retried
    stale: int = 0                 # found in the store, but run with another build: run again
    ran: int = 0
    failed: int = 0                # of the runs done now
    pending_commands: list[str] = field(default_factory=list)    # dry run only
    pending_keys: list[str] = field(default_factory=list)        # dry run only: the runs still to do
    skipped: dict[str, str] = field(default_factory=dict)         # key -> why it could not run here

    @property
    def problems(self) -> bool:
        return bool(self.failed or self.cached_failed or self.skipped)

    def describe(self) -> str:
        text = (f"{self.total} runs: {self.cached} already stored, {self.ran} run now "
                f"({self.failed} failed)")
        if self.stale:
            text += f", {self.stale} stored from another build (run again)"
        if self.cached_failed:
            text += f", {self.cached_failed} stored as failed (not retried; use --retry-failed)"
        if self.skipped:
            text += f", {len(self.skipped)} could not run here"
        return text


def tasks_for(figures: Sequence[ResolvedFigure], workspace: Workspace,
              points: Sequence[Point] | None = None) -> dict[str, Task]:
    """Distinct runs of all figures (or of the given points of theirs), by key (figures may share runs).

    Ordered repetition by repetition (every point once, then every point
    again, ...): a burst of load on the machine then disturbs one repetition
    of many points instead of all repetitions of one, and an interrupted
    sweep already has a first measurement of every point.
    """
    if points is None:
        points = [point for figure in figures for point in figure.points()]
    placement_of = {figure.figure_id: figure.placement for figure in figures}
    points = sorted(((point, placement_of.get(point.figure, PLACEMENT_EXCLUSIVE)) for point in points),
                    key=lambda pair: pair[0].repetition)
    tasks: dict[str, Task] = {}
    for point, placement in points:
        template = workspace.command_template(point.program)
        key = point.key(template)
        if key not in tasks:
            cost_table = point.cost_table_path(workspace.results_dir)
            tasks[key] = Task(key, point.program, point.cc, workspace.command(point), point.timeout_s,
                              point.os_threads, template, point.row_list, variant=point.variant, placement=placement,
                              simulated=point.simulated, cost_table=str(cost_table) if cost_table else None,
                              fit_work_scale=point.fit_work_scale, unrunnable=point.unrunnable)
        elif placement == PLACEMENT_EXCLUSIVE:   # a run two figures share is shared only if both say so
            tasks[key] = dataclasses.replace(tasks[key], placement=placement)
    return tasks


def run_sweep(figures: Sequence[ResolvedFigure], workspace: Workspace, backend, *,
              retry_failed: bool = False, dry_run: bool = False, progress: bool = True,
              log: Callable[[str], None] = lambda message: print(message, file=sys.stderr),
              points: Sequence[Point] | None = None,
              quiet_threshold_cores: float = DEFAULT_THRESHOLD_CORES,
              quiet_wait_s: float = DEFAULT_QUIET_WAIT_S) -> SweepSummary:
    """Run what the store lacks of the figures' points (or of `points`, e.g. the further repetitions
    of --until-decided); a run whose other-process CPU exceeds quiet_threshold_cores is marked noisy; a
    calibration or work-scale fit waits up to quiet_wait_s for a quiet machine first."""
    check_protocols(figures, workspace)   # before any build: a misspelt protocol is a config error
    tasks = tasks_for(figures, workspace, points)
    return run_tasks(list(tasks.values()), workspace, backend, retry_failed=retry_failed, dry_run=dry_run,
                     progress=progress, log=log, quiet_threshold_cores=quiet_threshold_cores,
                     quiet_wait_s=quiet_wait_s, description=", ".join(f.figure_id for f in figures),
                     before_running=lambda: check_flags(figures, workspace))


def run_tasks(tasks: Sequence[Task], workspace: Workspace, backend, *, description: str,
              retry_failed: bool = False, rerun: bool = False, dry_run: bool = False, progress: bool = True,
              log: Callable[[str], None] = lambda message: print(message, file=sys.stderr),
              quiet_threshold_cores: float = DEFAULT_THRESHOLD_CORES,
              quiet_wait_s: float = DEFAULT_QUIET_WAIT_S,
              before_running: Callable[[], None] = lambda: None) -> SweepSummary:
    """The one runner of the figures, the benchmarks and the soak: build the tasks' binaries, run (in the
    given order, under one progress bar) those the store lacks or holds from another build, and store each
    record as it ends. `rerun`: run every task again (a benchmark measured now). `before_running`: a check
    once the binaries are up to date and before anything runs. The records are in the store, by task key."""
    store = ResultStore(workspace.runs_dir)
    store.clean()
    summary = SweepSummary(total=len(tasks))
    for task in tasks:
        if task.unrunnable:
            summary.skipped[task.key] = task.unrunnable
    runnable = [task for task in tasks if not task.unrunnable]
    # Every binary is brought up to date first (a no-op when it is), so that a
    # stored result measured with an older build is recognised and run again;
    # a simulation's missing cost table is calibrated then.
    if not dry_run:
        runnable = _build_what_is_needed(runnable, workspace, summary, log)
        runnable = _calibrate_what_is_needed(runnable, workspace, summary, log, quiet_threshold_cores, quiet_wait_s)
        runnable = _fit_work_scales(runnable, workspace, summary, log, quiet_threshold_cores, quiet_wait_s)
        before_running()
    digests: dict[tuple[str, ...], str | None] = {}
    pending = []
    for task in runnable:
        words = command_files(task.command)
        if words not in digests:
            digests[words] = program_digest(words)
        cost_table_digest = calibration.file_digest(Path(task.cost_table)) if task.cost_table else None
        # The fitted work scale is an input of the run like its cost table (a refit runs it again).
        inputs_digest = f"{cost_table_digest}:{task.work_scale}" if task.work_scale else cost_table_digest
        task = dataclasses.replace(task, binary_digest=calibration.combined_digest(digests[words], inputs_digest),
                                   cost_table_digest=cost_table_digest, quiet_threshold_cores=quiet_threshold_cores)
        record = store.get(task.key)
        if record is not None and record.get("binary_digest") != task.binary_digest:
            summary.stale += 1
            pending.append(task)
        elif rerun or record is None or (record["status"] == STATUS_FAILED
                                         and (retry_failed or record.get("unavailable"))):
            pending.append(task)
        elif record["status"] == STATUS_OK:
            summary.cached += 1
        else:
            summary.cached_failed += 1
    if dry_run:
        summary.pending_commands = [" ".join(task.command) for task in pending]
        summary.pending_keys = [task.key for task in pending]
        return summary

    bar = tqdm(total=len(pending), unit="run", desc=description[:40],
               disable=not progress or not pending, file=sys.stderr, dynamic_ncols=True,
               mininterval=0.5 if sys.stderr.isatty() else 10)  # a log file gets a line every 10 s

    def on_record(task: Task, record: dict) -> None:
        if record["status"] == STATUS_ERROR:
            summary.skipped[task.key] = record["failure"]
        else:
            store.put(record)
            summary.ran += 1
            if record["status"] == STATUS_FAILED:
                summary.failed += 1
                bar.write(f"ccbench: run failed ({record['failure']}): {' '.join(task.command)}", file=sys.stderr)
        bar.set_postfix(failed=summary.failed, refresh=False)
        bar.update(1)

    def on_skip(task: Task, reason: str) -> None:
        summary.skipped[task.key] = reason
        bar.update(1)

    try:
        backend.run([task for task in pending if not PROGRAMS[task.program].needs_postgres], on_record, on_skip)
        _run_with_postgres([task for task in pending if PROGRAMS[task.program].needs_postgres], workspace,
                           one_at_a_time(backend), on_record, on_skip, log)
    finally:
        bar.close()
    for reason in sorted(set(summary.skipped.values())):
        log(f"ccbench: not run: {reason}")
    return summary


def one_at_a_time(backend):
    """The backend for the middle tier's points: they share one server and one database (each loads the
    same tables), so they never run side by side, whatever the profile's native_workers; the quiet
    backend as it is, any other (Ray) replaced by a local one (the server lives on this machine)."""
    if isinstance(backend, LocalBackend):
        return LocalBackend(backend.sim_workers)
    return backend if backend.name == "local" else LocalBackend()


def _run_with_postgres(tasks: list[Task], workspace: Workspace, local_backend, on_record, on_skip,
                       log: Callable[[str], None]) -> None:
    """Runs the middle tier's points against one private PostgreSQL server,
    started here and stopped (and removed) when they are done, also after a
    failure or Ctrl-C. Locally, one at a time: the server lives on this
    machine. Where no server can be started, each point is stored as failed
    with the reason (so the figure's report says it) and marked `unavailable`:
    the next sweep tries again without --retry-failed."""
    if not tasks:
        return
    try:
        with private_server(workspace.results_dir / "pg") as server:
            log(f"ccbench: private PostgreSQL server at {server.host}, port {server.port}")
            local_backend.run([dataclasses.replace(task, command=(*task.command, *server.flags()))
                                for task in tasks], on_record, on_skip)
    except PostgresUnavailable as error:
        log(f"ccbench: PostgreSQL server could not be started: {error}")
        for task in tasks:
            on_record(task, {"key": task.key, "program": task.program, "cc": task.cc, "engine": task.template,
                             "binary_digest": task.binary_digest, "command": list(task.command),
                             "status": STATUS_FAILED, "unavailable": True, "result": None, "returncode": None,
                             "failure": f"PostgreSQL server could not be started here: {error}",
                             "stdout_tail": "", "stderr_tail": ""})


def _calibrate_what_is_needed(tasks: list[Task], workspace: Workspace, summary: SweepSummary,
                              log: Callable[[str], None], quiet_threshold_cores: float,
                              quiet_wait_s: float) -> list[Task]:
    """Calibrate each missing cost table of the simulated runs with the simulation binary of the first run
    that names it (calibration.calibrate), then have that run's binary check each table (--validate_only): a table
    it refuses (one from an older build lacks an op) would fail every run and work-scale fit that reads it,
    so it is said once here. Drop the runs whose table could not be made or is refused."""
    failed: dict[str, str] = {}
    checked: set[str] = set()
    for task in tasks:
        if not task.cost_table or task.cost_table in failed or task.cost_table in checked:
            continue
        if not Path(task.cost_table).is_file():
            problem = calibration.calibrate(workspace.argv(task.program, task.cc, task.variant), Path(task.cost_table),
                                    log=log, threshold_cores=quiet_threshold_cores, max_wait_s=quiet_wait_s)
            if problem:
                log(f"ccbench: {problem}")
                failed[task.cost_table] = f"no cost table: {problem}"
                continue
        checked.add(task.cost_table)
        refused = refusal(task.command) if PROGRAMS[task.program].validates else None
        if refused and refused[0] == calibration.COST_TABLE_FLAG:   # another refusal is the point's own (check_flags)
            log(f"ccbench: {refused[1]}")
            failed[task.cost_table] = f"cost table refused: {refused[1]}"
    for task in tasks:
        if task.cost_table in failed:
            summary.skipped[task.key] = failed[task.cost_table]
    return [task for task in tasks if task.cost_table not in failed]


def _fit_work_scales(tasks: list[Task], workspace: Workspace, summary: SweepSummary,
                     log: Callable[[str], None], quiet_threshold_cores: float, quiet_wait_s: float) -> list[Task]:
    """Give each simulated engine run whose profile fits work scales its --sim_work_scale (workscale.py):
    the stored fit of its configuration, else a new one (which builds the native binary it compares with).
    A run whose fit fails is not run, with the reason."""
    fitted: dict[str, str] = {}
    peak_rss: dict[str, int | None] = {}   # per fitted key: the fit's simulated peak RSS (read once)
    failed: dict[str, str] = {}
    built: dict[str, str | None] = {}
    out = []
    for task in tasks:
        if not (task.simulated and task.fit_work_scale and task.cost_table and task.program == ENGINE):
            out.append(task)
            continue
        sim_argv = workspace.argv(task.program, task.cc, task.variant)
        flags = list(task.command[len(sim_argv):])
        key = workscale.fit_key(task.cc, flags)
        if key not in fitted and key not in failed:
            if task.cc not in built:
                built[task.cc] = build_binaries(workspace.root, list(workspace.make_arguments(task.program, task.cc)),
                                                [workspace.binary(task.program, task.cc)]) \
                    if workspace.builds(task.program) else None
            try:
                if built[task.cc]:
                    raise workscale.FitFailed(built[task.cc].splitlines()[0])
                cost_table = Path(task.cost_table)
                fitted[key] = workscale.ensure(key, workspace.argv(task.program, task.cc), sim_argv, flags,
                                               cost_table, calibration.file_digest(cost_table), log=log,
                                               threshold_cores=quiet_threshold_cores, max_wait_s=quiet_wait_s)
                peak_rss[key] = workscale.stored_peak_rss(key, cost_table)
            except workscale.FitFailed as error:
                log(f"ccbench: no work scale for {key}: {error}")
                failed[key] = f"no work scale: {error}"
        if key in failed:
            summary.skipped[task.key] = failed[key]
            continue
        source = f"--{workscale.SOURCE_FLAG}={workscale.source_label(Path(task.cost_table), key)}"
        out.append(dataclasses.replace(task, command=(*task.command, f"--{workscale.FLAG}={fitted[key]}", source),
                                       work_scale=fitted[key],
                                       expected_memory_bytes=peak_rss[key]))
    return out


def _build_what_is_needed(tasks: list[Task], workspace: Workspace, summary: SweepSummary,
                          log: Callable[[str], None]) -> list[Task]:
    """Build (or bring up to date) the binaries of the runs (engine.build_plan); drop the runs whose
    build failed."""
    failed_builds = {}
    for arguments, problem in build_together(workspace.root, build_plan(tasks, workspace), log).items():
        if problem:
            log(f"ccbench: {problem}")
            failed_builds[arguments] = problem.splitlines()[0]

    runnable = []
    for task in tasks:
        problem = failed_builds.get(build_arguments(task, workspace))
        if problem:
            summary.skipped[task.key] = problem
        else:
            runnable.append(task)
    return runnable
