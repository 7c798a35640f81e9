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

OnRecord = Callable[[Task, dict], None]
OnSkip = Callable[[Task, str], None]


def default_sim_workers() -> int:
    """Simulated points at a time: one per core (each runs its virtual cores on one OS thread)."""
    return os.cpu_count() or 1


def run_simulated(tasks: Sequence[Task], workers: int, on_record: OnRecord) -> None:
    """Simulated points, `workers` at a time: a simulation's result depends on its flags, seed and cost table,
    not on what else the machine runs (sim.py). Records reach on_record on this thread, one at a time, as
    the runs end; Ctrl-C kills the runs in flight (they are not stored) and starts no others."""
    if not tasks:
        return
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="ccbench-sim") as pool:
        pending = {pool.submit(execute_task, task): task for task in tasks}
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    on_record(pending.pop(future), future.result())
        except BaseException:
            for future in pending:
                future.cancel()
            kill_running()
            raise


class LocalBackend:
    """Runs native points sequentially (measurements do not compete for cores), then the simulated ones
    in parallel, `sim_workers` at a time."""
    name = "local"

    def __init__(self, sim_workers: int | None = None):
        self.sim_workers = sim_workers or default_sim_workers()

    def run(self, tasks: Sequence[Task], on_record: OnRecord, on_skip: OnSkip) -> None:
        for task in tasks:
            if not task.simulated:
                on_record(task, execute_task(task))
        run_simulated([task for task in tasks if task.simulated], self.sim_workers, on_record)


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
        run_simulated([task for task in tasks if task.simulated], self.sim_workers, on_record)


def make_backend(name: str, ray_address: str | None = None, workspace: Workspace | None = None,
                 sim_workers: int | None = None):
    if name == "local":
        return LocalBackend(sim_workers)
    if name == "ray":
        return RayBackend(ray_address, workspace)
    raise ValueError(f"unknown backend {name!r}")
