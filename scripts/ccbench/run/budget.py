"""What a sweep will cost, before it starts: `ccbench figures ... --dry-run --budget --machines N`.

Per figure: the runs still to do, their measured seconds (the `duration`
flag), their load, warm-up and process overhead, and the machine-hours they
occupy; in total (runs that figures share counted once): the wall time on N
machines and the machine-hours that buys (N machines for that long).

A run's time on its machine = measured + warm-up + table load + process
overhead. Measured and warm-up come from the run's own flags (the profile's
`duration` and `warmup`, or the figure's); a program without them (the
front-end benchmarks) takes its measured seconds per run. An exclusive run
occupies a whole machine; a shared one (`placement: shared`) its threads'
share of MACHINE_THREADS. The wall time is a greedy schedule of the runs,
longest first, onto N machines (within 4/3 of the best possible); the
middle tier's runs add to it: they run on the driver, after the cluster's.

Simulated points (docs/sim.md) are left out of the cluster's table: they run
on the local backend only (`--all` includes sim-validation and
sim-validation-tpcc, whose native series are budgeted). They are estimated
apart, in minutes on this machine (SimulatedCost): each point's wall time from
the stored simulated runs (a stored record of the same point, else the wall
seconds per virtual core-second of the stored runs of its protocol and
workload, of its workload, of any; else SIM_WALL_PER_CORE_SECOND), run
`--sim-workers` at a time (default one per core), after what they need first:
the simulation binaries not built yet, the cost table's calibration when it
is missing, and the work-scale fit of each configuration without a stored fit
(workscale.py: native single-thread runs and a few short simulated ones).

The estimates below were measured with scripts/measure-load-times.sh (the
engine's `phases.load_s`) and by timing the paper profile's own runs of the
front-end benchmarks, on the development machine (AMD EPYC, 2 vCPUs, shared
with compile jobs), at commit 7f6e1d1; docs/cluster.md says more.
"""
from __future__ import annotations

import heapq
import json
import os
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ccbench.errors import ConfigError
from ccbench.run.store import ResultStore
from ccbench.run.workspace import Workspace
from ccbench.sim import calibration, workscale
from ccbench.specification.config import ResolvedFigure
from ccbench.specification.points import Point
from ccbench.specification.programs import ENGINE, PROGRAMS
from ccbench.specification.schema import PLACEMENT_SHARED

MACHINE_THREADS = 32      # AWS m5.8xlarge: 32 vCPUs (16 cores x 2), the paper profile's machine


@dataclass(frozen=True)
class LoadRate:
    """A workload's table load: seconds per unit of its size flag with one load thread."""
    flag: str                    # the flag that sizes the tables
    default: float               # its value when a run does not set it (the engine's default)
    seconds_per_unit: float


# The engine's load per workload with one load thread (scripts/measure-load-times.sh: the median of
# three loads at the largest size it measures, over that size). bin/pipeline loads the same workloads'
# tables (micro, smallbank) and is counted alike. Loads are counted as one-threaded: the development
# machine has 2 cores and cannot measure how they scale, so a run that loads with many threads
# (TPC-C with one warehouse per thread) is counted long: an upper bound.
LOAD_RATES = {
    "ycsb": LoadRate("table_size", 1 << 20, 5.15e-8),          # 16M rows: 0.82 s
    "tpcc": LoadRate("warehouses", 1, 0.231),                   # 16 warehouses: 3.7 s
    "smallbank": LoadRate("smallbank_customers", 100000, 3.94e-7),   # 1M customers: 0.39 s
    "tpcw": LoadRate("tpcw_items", 10000, 9.1e-8),              # 100K items: 0.009 s
    "hot": LoadRate("hot_table_size", 1000000, 6.91e-8),        # 4M rows: 0.28 s
    "micro": LoadRate("micro_objects", 100000, 4.81e-8),        # 1M objects: 0.048 s
}
PROCESS_S = 0.068         # an engine run's start and exit around load and run (same script: the median)
# Programs without a duration: seconds per run, process included: the mean over the paper profile's
# first repetition of every run of their figures (bench_fvs: ding-fig05/06, 100 runs; bench_strife:
# strife-fig05/09a/09b/10a/10b, 80 runs), timed on the same machine.
SECONDS_PER_RUN = {"bench_fvs": 0.077, "bench_strife": 0.106}


# Simulated points on this machine, when nothing stored says better. Measured on the development machine
# (2 vCPUs, shared with another session's builds and tests): bin/sim/rundb-silo, YCSB theta 0.9 at 32 virtual
# cores for 0.12 virtual seconds, 3.6-5.4 s of simulation (the result's sim.wall_seconds, the load apart):
# 0.94-1.40 wall seconds per virtual core-second; the larger is taken.
SIM_WALL_PER_CORE_SECOND = 1.4
# `make build VARIANT=sim CC=silo` in a fresh checkout (the libraries and one binary, JOBS=2): 255 s; each
# further protocol's binary (`make build VARIANT=sim CC=tictoc` after it): 60 s.
SIM_BUILD_FIRST_S = 255.0
SIM_BUILD_EACH_S = 60.0
NATIVE_BUILD_EACH_S = 60.0       # a native binary a work-scale fit compares with, libraries built: as a sim one
# `bin/sim/rundb-silo --sim_calibrate=...`: 12 s here (the wait for a quiet machine not counted); a stored
# calibration record's own wall time is taken instead.
CALIBRATION_S = 12.0
FIT_SIM_RUNS = 5                 # a fit's simulated runs: factors 1 and 2, d and 2d, the check (workscale.py)


@dataclass(frozen=True)
class RunCost:
    measured_s: float
    overhead_s: float            # load, warm-up and process start/exit
    machine_share: float         # 1: a whole machine; a shared run: its threads / MACHINE_THREADS
    on_driver: bool              # the middle tier's runs: on the driver, one at a time

    @property
    def machine_s(self) -> float:
        return (self.measured_s + self.overhead_s) * self.machine_share


def load_seconds(flags: dict, threads: int) -> float:
    """A run's table load (LOAD_RATES); 0 for a program that loads no workload. A workload without an entry
    (one registered in workloads/workloads.txt after the table was measured) is refused, not costed at 0 s."""
    if "workload" not in flags:
        return 0.0
    rate = LOAD_RATES.get(str(flags["workload"]))
    if rate is None:
        raise ConfigError("scripts/ccbench/run/budget.py", "LOAD_RATES",
                          f"no table-load rate for workload '{flags['workload']}' (measure it with "
                          f"scripts/measure-load-times.sh and add it); allowed: {', '.join(sorted(LOAD_RATES))}")
    units = float(flags.get(rate.flag, rate.default))
    if rate.flag == "warehouses" and units == 0:       # 0 = one warehouse per thread
        units = threads
    return units * rate.seconds_per_unit


def run_cost(program_name: str, flags: dict, threads: int, placement: str, timeout_s: float) -> RunCost:
    program = PROGRAMS[program_name]
    share = min(1.0, threads / MACHINE_THREADS) if placement == PLACEMENT_SHARED else 1.0
    if not program.takes_profile_base:
        return RunCost(SECONDS_PER_RUN.get(program_name, 0.0), 0.0, share, False)
    # A run that measures a number of transactions has no duration: its timeout bounds it.
    measured = float(timeout_s if flags.get("measure_txns") else flags.get("duration", 0))
    overhead = float(flags.get("warmup", 0)) + load_seconds(flags, threads) + PROCESS_S
    return RunCost(measured, overhead, share, program.needs_postgres)


@dataclass
class Line:
    name: str
    runs: int = 0
    measured_s: float = 0.0
    overhead_s: float = 0.0
    machine_s: float = 0.0

    def add(self, cost: RunCost) -> None:
        self.runs += 1
        self.measured_s += cost.measured_s
        self.overhead_s += cost.overhead_s
        self.machine_s += cost.machine_s


@dataclass
class SimulatedCost:
    """The simulated points still to do, on this machine: seconds per figure, the points' seconds (distinct
    points once), and what runs before them (builds, calibration, fits), each (what, seconds)."""
    runs: dict[str, int] = field(default_factory=dict)          # figure id -> its simulated runs
    figure_s: dict[str, float] = field(default_factory=dict)    # figure id -> their wall seconds, one at a time
    point_s: list[float] = field(default_factory=list)          # every distinct point once
    before: list[tuple[str, float]] = field(default_factory=list)
    workers: int = 1
    basis: str = ""

    def wall_s(self) -> float:
        """What runs first (one at a time), then the points `workers` at a time, longest first."""
        loads = [0.0] * self.workers
        for seconds in sorted(self.point_s, reverse=True):
            heapq.heapreplace(loads, loads[0] + seconds)
        return sum(seconds for _, seconds in self.before) + max(loads)

    def describe(self) -> list[str]:
        rows = [f"simulated points, on this machine ({os.cpu_count() or 1} cores; {self.workers} at a time, "
                f"fewer when memory is short):", f"{'figure':28} {'runs':>6} {'minutes':>9}"]
        rows += [f"{figure_id:28} {runs:>6} {self.figure_s[figure_id] / 60:>9.1f}"
                 for figure_id, runs in self.runs.items()]
        rows.append(f"{'total (distinct runs)':28} {len(self.point_s):>6} {sum(self.point_s) / 60:>9.1f}")
        if self.before:
            rows.append("before them: " + "; ".join(f"{what} (about {seconds / 60:.1f} min)"
                                                    for what, seconds in self.before))
        rows.append(f"about {self.wall_s() / 60:.0f} min wall here in all ({self.basis})")
        return rows


@dataclass
class Budget:
    figures: list[Line]
    total: Line
    costs: list[RunCost]          # every distinct run once
    simulated: SimulatedCost = field(default_factory=SimulatedCost)

    def wall_s(self, machines: int) -> float:
        """Longest-first greedy schedule of the cluster's runs on `machines`, then the driver's runs."""
        loads = [0.0] * machines
        for cost in sorted((c for c in self.costs if not c.on_driver), key=lambda c: -c.machine_s):
            heapq.heapreplace(loads, loads[0] + cost.machine_s)
        return max(loads) + sum(cost.machine_s for cost in self.costs if cost.on_driver)

    def describe(self, machines: int) -> str:
        header = f"{'figure':28} {'runs':>6} {'measured h':>11} {'load+warm-up h':>15} {'machine-h':>10}"
        rows = [header] + [_row(line) for line in [*self.figures, self.total]]
        wall = self.wall_s(machines) / 3600
        driver_h = sum(cost.machine_s for cost in self.costs if cost.on_driver) / 3600
        rows.append(f"on {machines} machine{'s' if machines != 1 else ''} of {MACHINE_THREADS} threads: "
                    f"{wall:.1f} h wall, {machines * wall:.1f} machine-hours (plus the head for {wall:.1f} h)"
                    + (f"; {driver_h:.1f} h of it on the driver (the middle tier's PostgreSQL runs)" if driver_h else ""))
        if self.simulated.runs:
            left_out = ", ".join(f"{figure_id} ({runs} run{'s' if runs != 1 else ''})"
                                 for figure_id, runs in self.simulated.runs.items())
            rows.append(f"left out, simulated points: {left_out}; they run on the local backend only, and their "
                        f"wall time is not their virtual duration (docs/sim.md): estimated below")
            rows += self.simulated.describe()
        return "\n".join(rows)


def _row(line: Line) -> str:
    return (f"{line.name:28} {line.runs:>6} {line.measured_s / 3600:>11.2f} {line.overhead_s / 3600:>15.2f} "
            f"{line.machine_s / 3600:>10.2f}")


class SimulationRates:
    """Wall seconds per virtual core-second of the stored simulated runs, by (protocol, workload), by
    workload and over all (their medians), read from the result store once."""

    def __init__(self, runs_dir: Path):
        by_pair: dict[tuple[str, str], list[float]] = {}
        for path in sorted(runs_dir.glob("*.json")) if runs_dir.is_dir() else []:
            try:
                result = json.loads(path.read_text(encoding="utf-8")).get("result") or {}
            except (OSError, ValueError):
                continue
            sim, config = result.get("sim") or {}, result.get("config") or {}
            cores, seconds = sim.get("virtual_cores"), sim.get("virtual_seconds")
            if cores and seconds and sim.get("wall_seconds"):
                by_pair.setdefault((str(config.get("cc")), str(config.get("workload"))), []).append(
                    sim["wall_seconds"] / (cores * seconds))
        self.runs = sum(len(rates) for rates in by_pair.values())
        self.by_pair = {pair: statistics.median(rates) for pair, rates in by_pair.items()}
        by_workload: dict[str, list[float]] = {}
        for (_, workload), rates in by_pair.items():
            by_workload.setdefault(workload, []).extend(rates)
        self.by_workload = {workload: statistics.median(rates) for workload, rates in by_workload.items()}
        every = [rate for rates in by_pair.values() for rate in rates]
        self.overall = statistics.median(every) if every else SIM_WALL_PER_CORE_SECOND

    def rate(self, cc: str | None, workload: str) -> float:
        return self.by_pair.get((str(cc), workload)) or self.by_workload.get(workload) or self.overall


def simulated_point_s(point: Point, rates: SimulationRates, store: ResultStore, key: str) -> float:
    """A simulated point's wall time: its stored record's (one from another build), else its virtual
    core-seconds at the stored rate, plus its table load and process."""
    record = store.get(key)
    if record is not None and record.get("wall_s"):
        return float(record["wall_s"])
    flags = dict(point.flags)
    virtual_s = float(flags.get("duration", 0)) + float(flags.get("warmup", 0))
    return (rates.rate(point.cc, str(flags.get("workload"))) * point.threads * virtual_s
            + load_seconds(flags, point.threads) + PROCESS_S)


def _before_simulated(points: list[Point], workspace: Workspace, rates: SimulationRates) -> list[tuple[str, float]]:
    """What the simulated points need before they run: the simulation binaries not built, the cost tables
    not calibrated, the work-scale fits not stored (and the native binaries those fits compare with)."""
    before = []
    if workspace.builds_engine:
        missing = sorted({point.cc for point in points
                          if not (workspace.root / workspace.binary(ENGINE, point.cc, point.variant)).is_file()})
        if missing:
            first = not (workspace.root / "build" / "sim").is_dir()
            seconds = SIM_BUILD_EACH_S * len(missing) + (SIM_BUILD_FIRST_S - SIM_BUILD_EACH_S if first else 0)
            before.append((f"build {', '.join(f'bin/sim/rundb-{cc}' for cc in missing)}", seconds))
    tables = sorted({point.cost_table_path(workspace.results_dir) for point in points} - {None})
    for table in tables:
        if not table.is_file():
            try:
                recorded = json.loads(calibration.record_path(table).read_text(encoding="utf-8")).get("wall_s")
            except (OSError, ValueError):
                recorded = None
            before.append((f"calibrate {table} (after waiting for a quiet machine)", float(recorded or CALIBRATION_S)))
    fits: dict[str, Point] = {}
    for point in points:
        table = point.cost_table_path(workspace.results_dir)
        if point.fit_work_scale and table is not None and point.program == ENGINE:
            key = workscale.fit_key(point.cc, point.flag_arguments())
            if workscale.stored(key, table, calibration.file_digest(table)) is None:
                fits.setdefault(key, point)
    if fits:
        seconds = 0.0
        for point in fits.values():
            flags = dict(point.flags)
            native = sum(float(word.split("=")[1]) for word in workscale.NATIVE_LENGTH)
            sim_s = sum(float(word.split("=")[1]) for word in workscale.SIM_LENGTH)
            load = load_seconds(flags, 1) + PROCESS_S
            seconds += (workscale.NATIVE_RUNS * (native + load)
                        + FIT_SIM_RUNS * (rates.rate(point.cc, str(flags.get("workload"))) * sim_s + load))
        unbuilt = sorted({point.cc for point in fits.values() if workspace.builds_engine
                          and not (workspace.root / workspace.binary(ENGINE, point.cc)).is_file()})
        if unbuilt:
            before.append((f"build {', '.join(f'bin/rundb-{cc}' for cc in unbuilt)} for the fits",
                           NATIVE_BUILD_EACH_S * len(unbuilt)))
        before.append((f"fit the work scale of {len(fits)} configuration{'s' if len(fits) != 1 else ''} "
                       f"(native runs on a quiet machine)", seconds))
    return before


def budget(figures: Sequence[ResolvedFigure], workspace: Workspace, keys: set[str],
           sim_workers: int | None = None) -> Budget:
    """The cost of the runs with these keys (the sweep's runs still to do), per figure and in total; simulated
    runs are counted apart, in minutes on this machine (SimulatedCost), `sim_workers` at a time (default one
    per core)."""
    lines, distinct = [], {}
    simulated = SimulatedCost(workers=sim_workers or os.cpu_count() or 1)
    rates, store, simulated_points = None, ResultStore(workspace.runs_dir), {}
    for figure in figures:
        line = Line(figure.figure_id)
        for point in figure.points():
            key = point.key(workspace.command_template(point.program))
            if key in keys and point.simulated:
                rates = rates or SimulationRates(workspace.runs_dir)
                seconds = simulated_point_s(point, rates, store, key)
                simulated.runs[figure.figure_id] = simulated.runs.get(figure.figure_id, 0) + 1
                simulated.figure_s[figure.figure_id] = simulated.figure_s.get(figure.figure_id, 0.0) + seconds
                simulated_points.setdefault(key, (point, seconds))
            elif key in keys:
                cost = run_cost(point.program, dict(point.flags), point.threads, figure.placement, point.timeout_s)
                line.add(cost)
                if key not in distinct or cost.machine_share > distinct[key].machine_share:
                    distinct[key] = cost     # a run two figures share is shared only if both say so
        lines.append(line)
    total = Line("total (distinct runs)")
    for cost in distinct.values():
        total.add(cost)
    if simulated_points:
        simulated.point_s = [seconds for _, seconds in simulated_points.values()]
        simulated.before = _before_simulated([point for point, _ in simulated_points.values()], workspace, rates)
        simulated.basis = (f"wall seconds per virtual core-second from {rates.runs} stored simulated run(s)"
                           if rates.runs else f"no simulated run stored: {SIM_WALL_PER_CORE_SECOND:g} wall seconds "
                           f"per virtual core-second, measured on the development machine")
    return Budget(lines, total, list(distinct.values()), simulated)
