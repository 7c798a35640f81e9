"""Where points run: one at a time on this machine, or as Ray tasks on a cluster of machines.

A backend calls on_record(task, record) as each run ends; the runner stores
the record at once, on this machine, so both backends fill the same store.
on_skip(task, reason) reports a point that cannot run here at all.
"""
from __future__ import annotations

import sys
from typing import Callable, Sequence

from ccbench import load
from ccbench.cluster import RayBackend
from ccbench.engine import STATUS_ERROR, Task, execute_task
from ccbench.workspace import Workspace

OnRecord = Callable[[Task, dict], None]
OnSkip = Callable[[Task, str], None]


class LocalBackend:
    """Runs points sequentially: measurements do not compete for cores."""
    name = "local"

    def run(self, tasks: Sequence[Task], on_record: OnRecord, on_skip: OnSkip) -> None:
        for task in tasks:
            on_record(task, execute_task(task))


class QuietBackend:
    """--require-quiet: one point at a time on this machine, each started once the machine is quiet
    (other processes below the threshold; waiting at most max_wait_s, with a message), and a run measured
    noisy all the same is run again, at most `retries` times; the last run is stored either way (its
    load record says whether it was noisy) with `quiet_attempts`, the runs it took."""
    name = "local"

    def __init__(self, threshold_cores: float = load.DEFAULT_THRESHOLD_CORES, max_wait_s: float = 300,
                 retries: int = 2, log: Callable[[str], None] = lambda message: print(message, file=sys.stderr)):
        self.threshold_cores, self.max_wait_s, self.retries, self.log = threshold_cores, max_wait_s, retries, log

    def run(self, tasks: Sequence[Task], on_record: OnRecord, on_skip: OnSkip) -> None:
        for task in tasks:
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


def make_backend(name: str, ray_address: str | None = None, workspace: Workspace | None = None):
    if name == "local":
        return LocalBackend()
    if name == "ray":
        return RayBackend(ray_address, workspace)
    raise ValueError(f"unknown backend {name!r}")
