"""Where points run: one at a time on this machine, or as Ray tasks on a cluster of machines.

A backend calls on_record(task, record) as each run ends; the runner stores
the record at once, on this machine, so both backends fill the same store.
on_skip(task, reason) reports a point that cannot run here at all.
"""
from __future__ import annotations

from typing import Callable, Sequence

from ccbench.cluster import RayBackend
from ccbench.engine import Task, execute_task
from ccbench.workspace import Workspace

OnRecord = Callable[[Task, dict], None]
OnSkip = Callable[[Task, str], None]


class LocalBackend:
    """Runs points sequentially: measurements do not compete for cores."""
    name = "local"

    def run(self, tasks: Sequence[Task], on_record: OnRecord, on_skip: OnSkip) -> None:
        for task in tasks:
            on_record(task, execute_task(task))


def make_backend(name: str, ray_address: str | None = None, workspace: Workspace | None = None):
    if name == "local":
        return LocalBackend()
    if name == "ray":
        return RayBackend(ray_address, workspace)
    raise ValueError(f"unknown backend {name!r}")
