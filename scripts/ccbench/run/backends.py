"""Where points run: one at a time on this machine, or as Ray tasks on a cluster of machines.

A backend calls on_record(task, record) as each run ends; the runner stores
the record at once, on this machine, so both backends fill the same store.
on_skip(task, reason) reports a point that cannot run here at all.
"""
from __future__ import annotations

import os
import sys
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Callable, Sequence

from ccbench import load
from ccbench.run.cluster import RayBackend
from ccbench.run.engine import STATUS_ERROR, Task, execute_task, kill_running
from ccbench.run.workspace import Workspace
from ccbench.sim import workscale

OnRecord = Callable[[Task, dict], None]
OnSkip = Callable[[Task, str], None]


def default_sim_workers() -> int:
    """Simulated points at a time: one per core (each runs its virtual cores on one OS thread)."""
    return os.cpu_count() or 1


# A point's expected peak memory: the largest peak RSS of a finished point of its configuration, times this
# (a point at more threads holds more per-thread state than the one measured).
MEMORY_HEADROOM = 1.25
# The share of the memory available when the simulated points start that they may hold together.
MEMORY_BUDGET_SHARE = 0.9


def available_memory_bytes() -> int | None:
    """MemAvailable of /proc/meminfo, or None where there is none (not Linux)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def memory_key(task: Task) -> tuple[str, ...]:
    """The configuration whose points hold about the same memory: the binary and the flags a work-scale fit
    keys on (its thread count, seed, lengths and the simulation's own flags aside: the tables stay)."""
    return (task.command[0], *workscale.keyed_flags(task.command[1:]))


class MemoryGate:
    """Which simulated point may start now, so that the points in flight fit in memory together (a point at
    the papers' table sizes holds up to 14 GB: two at once were killed on a 24 GiB machine). A point's
    expected memory is the largest peak RSS of its configuration's work-scale fit (Task.expected_memory_bytes)
    and of its configuration's finished points (memory_key), times MEMORY_HEADROOM. A point whose expected memory is not known yet starts only on an idle
    machine, and nothing starts beside it; a known one starts while the expected memories in flight and its
    own stay within `budget_bytes` (None: no limit). The first point in line always starts on an idle
    machine, however large, so a point is never refused for its size alone."""

    def __init__(self, budget_bytes: float | None):
        self.budget_bytes = budget_bytes
        self.peak: dict[tuple[str, ...], int] = {}

    def expected(self, task: Task) -> float | None:
        known = [peak for peak in (self.peak.get(memory_key(task)), task.expected_memory_bytes) if peak]
        return max(known) * MEMORY_HEADROOM if known else None

    def may_start(self, task: Task, in_flight: Sequence[float | None]) -> bool:
        if not in_flight:
            return True
        if self.budget_bytes is None:
            return True
        expected = self.expected(task)
        if expected is None or any(other is None for other in in_flight):
            return False
        return sum(in_flight) + expected <= self.budget_bytes

    def learn(self, task: Task, record: dict) -> None:
        peak = ((record.get("result") or {}).get("memory") or {}).get("peak_rss_bytes")
        if isinstance(peak, int) and peak > 0:
            key = memory_key(task)
            self.peak[key] = max(peak, self.peak.get(key, 0))


def run_in_parallel(tasks: Sequence[Task], workers: int, on_record: OnRecord,
                  memory_budget_bytes: float | None = None, gate_memory: bool = True) -> None:
    """Points side by side (the simulated ones; native ones only at a profile that measures nothing,
    LocalBackend), at most `workers` at a time and as many as fit in memory together (MemoryGate; the
    budget: MEMORY_BUDGET_SHARE of the memory available now, unless given; none with gate_memory=False),
    in the given order: a simulation's result depends on its flags, seed and cost table, not on what else
    the machine runs (sim.py). Records reach on_record on this thread, one at a time, as the runs end;
    Ctrl-C kills the runs in flight (they are not stored) and starts no others."""

    if not tasks:
        return
    if memory_budget_bytes is None and gate_memory:
        available = available_memory_bytes()
        memory_budget_bytes = available * MEMORY_BUDGET_SHARE if available else None
    gate = MemoryGate(memory_budget_bytes)
    waiting = list(tasks)
    in_flight: dict = {}   # future -> (task, its expected memory when it started)
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="ccbench-sim") as pool:
        try:
            while waiting or in_flight:
                while waiting and len(in_flight) < max(1, workers) and \
                        gate.may_start(waiting[0], [expected for _, expected in in_flight.values()]):
                    task = waiting.pop(0)
                    in_flight[pool.submit(execute_task, task)] = (task, gate.expected(task))
                done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in done:
                    task, _ = in_flight.pop(future)
                    record = future.result()
                    gate.learn(task, record)
                    on_record(task, record)
        except BaseException:
            for future in in_flight:
                future.cancel()
            kill_running()
            raise


class LocalBackend:
    """Runs native points sequentially (measurements do not compete for cores), then the simulated ones
    in parallel, `sim_workers` at a time. `native_workers` > 1 runs native points side by side too, that
    many at a time and with no memory gate: for a profile whose numbers nothing reads (the smoke
    profile's tiny tables: it checks the pipeline; its runs' load records say they were noisy)."""
    name = "local"

    def __init__(self, sim_workers: int | None = None, native_workers: int = 1):
        self.sim_workers = sim_workers or default_sim_workers()
        self.native_workers = native_workers

    def run(self, tasks: Sequence[Task], on_record: OnRecord, on_skip: OnSkip) -> None:
        native = [task for task in tasks if not task.simulated]
        if self.native_workers > 1:
            run_in_parallel(native, self.native_workers, on_record, gate_memory=False)
        else:
            for task in native:
                on_record(task, execute_task(task))
        run_in_parallel([task for task in tasks if task.simulated], self.sim_workers, on_record)


class QuietBackend:
    """--require-quiet: one point at a time on this machine, each started once the machine is quiet
    (other processes below the threshold; waiting at most max_wait_s, with a message), and a run measured
    noisy all the same is run again, at most `retries` times; the last run is stored either way (its
    load record says whether it was noisy) with `quiet_attempts`, the runs it took. Simulated points
    then run as LocalBackend runs them: in parallel, with no wait (their result does not depend on the load)."""
    name = "local"

    def __init__(self, threshold_cores: float = load.DEFAULT_THRESHOLD_CORES, max_wait_s: float = 300,
                 retries: int = 2, log: Callable[[str], None] = lambda message: print(message, file=sys.stderr),
                 sim_workers: int | None = None):
        self.threshold_cores, self.max_wait_s, self.retries, self.log = threshold_cores, max_wait_s, retries, log
        self.sim_workers = sim_workers or default_sim_workers()

    def run(self, tasks: Sequence[Task], on_record: OnRecord, on_skip: OnSkip) -> None:
        """Native points as above; simulated ones need no quiet machine: in parallel, as LocalBackend's."""
        for task in (task for task in tasks if not task.simulated):
            for attempt in range(1, self.retries + 2):
                load.wait_until_quiet(self.threshold_cores, self.max_wait_s, self.log)
                record = execute_task(task)
                if not load.is_noisy(record) or attempt > self.retries:
                    break
                self.log(f"ccbench: run measured noisy ({load.describe(record['load'])}); running it again "
                         f"({attempt} of {self.retries} retries): {' '.join(task.command)}")
            if record["status"] != STATUS_ERROR:
                record["quiet_attempts"] = attempt
            on_record(task, record)
        run_in_parallel([task for task in tasks if task.simulated], self.sim_workers, on_record)


def make_backend(name: str, ray_address: str | None = None, workspace: Workspace | None = None,
                 sim_workers: int | None = None, native_workers: int = 1):
    if name == "local":
        return LocalBackend(sim_workers, native_workers)

    if name == "ray":
        return RayBackend(ray_address, workspace)
    raise ValueError(f"unknown backend {name!r}")
