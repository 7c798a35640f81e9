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

Simulated points (docs/sim.md) are left out, and the budget names the
figures they come from: they run on the local backend only, in parallel, and
their wall time is not their virtual duration, so a cluster's budget has no
place for them (`--all` includes sim-validation and sim-validation-tpcc,
whose native series are budgeted).

The estimates below were measured with scripts/measure-load-times.sh (the
engine's `phases.load_s`) and by timing the paper profile's own runs of the
front-end benchmarks, on the development machine (AMD EPYC, 2 vCPUs, shared
with compile jobs), at commit 7f6e1d1; docs/cluster.md says more.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Sequence

from ccbench.run.workspace import Workspace
from ccbench.specification.config import ResolvedFigure
from ccbench.specification.programs import PROGRAMS
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
    """A run's table load (LOAD_RATES); 0 for a workload without an entry."""
    rate = LOAD_RATES.get(str(flags.get("workload")))
    if rate is None:
        return 0.0
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
class Budget:
    figures: list[Line]
    total: Line
    costs: list[RunCost]          # every distinct run once
    simulated: dict[str, int] = field(default_factory=dict)   # figure id -> its simulated runs, left out

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
        if self.simulated:
            left_out = ", ".join(f"{figure_id} ({runs} run{'s' if runs != 1 else ''})"
                                 for figure_id, runs in self.simulated.items())
            rows.append(f"left out, simulated points: {left_out}; they run on the local backend only, and their "
                        f"wall time is not their virtual duration (docs/sim.md)")
        return "\n".join(rows)


def _row(line: Line) -> str:
    return (f"{line.name:28} {line.runs:>6} {line.measured_s / 3600:>11.2f} {line.overhead_s / 3600:>15.2f} "
            f"{line.machine_s / 3600:>10.2f}")


def budget(figures: Sequence[ResolvedFigure], workspace: Workspace, keys: set[str]) -> Budget:
    """The cost of the runs with these keys (the sweep's runs still to do), per figure and in total; simulated
    runs are counted apart, per figure, and left out."""
    lines, distinct, simulated = [], {}, {}
    for figure in figures:
        line = Line(figure.figure_id)
        for point in figure.points():
            key = point.key(workspace.command_template(point.program))
            if key in keys and point.simulated:
                simulated[figure.figure_id] = simulated.get(figure.figure_id, 0) + 1
            elif key in keys:
                cost = run_cost(point.program, dict(point.flags), point.threads, figure.placement, point.timeout_s)
                line.add(cost)
                if key not in distinct or cost.machine_share > distinct[key].machine_share:
                    distinct[key] = cost     # a run two figures share is shared only if both say so
        lines.append(line)
    total = Line("total (distinct runs)")
    for cost in distinct.values():
        total.add(cost)
    return Budget(lines, total, list(distinct.values()), simulated)
