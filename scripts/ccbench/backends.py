"""Where points run: one at a time on this machine, or as Ray tasks.

A backend calls on_record(task, record) as each run ends; the runner stores
the record at once, on this machine, so both backends fill the same store.
on_skip(task, reason) reports a point that cannot run here at all.
"""
from __future__ import annotations

import os
import sys
from typing import Callable, Sequence

from ccbench import load
from ccbench.engine import STATUS_ERROR, Task, execute_task
from ccbench.workspace import SCRIPTS_DIR

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


class RayBackend:
    """Each point is a Ray task that reserves as many CPUs as it has threads.

    Connects to `address` (e.g. "auto" or "ray://head:10001"), or uses the Ray
    instance this process already started, or starts a local one. On a
    multi-machine cluster, the repository (and bin/) must be at the same path
    on every node, as for any Ray job that runs local binaries.
    """
    name = "ray"

    def __init__(self, address: str | None = None):
        self.address = address

    def run(self, tasks: Sequence[Task], on_record: OnRecord, on_skip: OnSkip) -> None:
        import ray

        started_here = not ray.is_initialized()
        if started_here:
            ray.init(address=self.address, include_dashboard=False, log_to_driver=False)
        try:
            self._run_on_cluster(ray, tasks, on_record, on_skip)
        finally:
            if started_here:
                ray.shutdown()

    @staticmethod
    def _run_on_cluster(ray, tasks: Sequence[Task], on_record: OnRecord, on_skip: OnSkip) -> None:
        cluster_cpus = ray.cluster_resources().get("CPU", 0)
        # Workers import ccbench by reference; make the package importable there.
        python_path = os.pathsep.join(filter(None, [str(SCRIPTS_DIR), os.environ.get("PYTHONPATH")]))
        remote_execute = ray.remote(execute_task)
        runtime_env = {"env_vars": {"PYTHONPATH": python_path}}
        in_flight = {}
        for task in tasks:
            if task.threads > cluster_cpus:
                on_skip(task, f"needs {task.threads} CPUs; the Ray cluster has {cluster_cpus:g}")
                continue
            # max_retries=0: a crashed run is a result to record, not something to hide by retrying.
            options = remote_execute.options(num_cpus=task.threads, runtime_env=runtime_env, max_retries=0)
            in_flight[options.remote(task)] = task
        while in_flight:
            done, _ = ray.wait(list(in_flight), num_returns=1)
            for reference in done:
                task = in_flight.pop(reference)
                try:
                    record = ray.get(reference)
                except ray.exceptions.RayError as error:
                    record = {"key": task.key, "status": STATUS_ERROR, "failure": f"Ray task failed: {error}"}
                on_record(task, record)


def make_backend(name: str, ray_address: str | None = None):
    if name == "local":
        return LocalBackend()
    if name == "ray":
        return RayBackend(ray_address)
    raise ValueError(f"unknown backend {name!r}")
