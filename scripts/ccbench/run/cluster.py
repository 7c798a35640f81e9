"""The Ray backend: a sweep on a cluster of whole machines (docs/cluster.md).

A *machine* is a Ray node that advertises one unit of the custom resource
`ccbench_machine` (`ray start --resources='{"ccbench_machine": 1}'`); the head
node, started without it, takes no points. The driver (this process):

1. prepares every machine with one task pinned to it, which brings the
   binaries the sweep needs up to date in the machine's checkout (the
   driver's path, at the driver's commit) and reports their digests; a
   machine without that checkout, at another commit, whose build fails, or
   whose digests differ from the driver's is refused, by name, and gets no
   point;
2. reports, before anything starts, the points that need more CPUs than the
   largest machine has;
3. places each point itself, pinned to one machine (NodeAffinity): an
   exclusive point on an idle machine, taking the whole unit, so it runs
   alone there; a shared point (a figure's `placement: shared`) on a machine
   that runs no exclusive point and has its threads' CPUs free, taking a
   sliver of the unit, so shared points pack by threads and Ray itself keeps
   an exclusive point off a machine that runs shared ones;
4. treats a node that died, a worker that was killed, or a point with no
   answer by its timeout plus a grace as an infrastructure failure (the
   engine's own failures are records like any other, never retried here):
   the machine takes no more points in this sweep, and the point is re-queued
   on another machine, at most `max_moves` times; its record lists the moves.

Ray is imported only when a sweep runs (the CLI does not pay for it).
"""
from __future__ import annotations

import collections
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from ccbench.errors import UsageError
from ccbench.fileio import SCRIPTS_DIR
from ccbench.run.engine import (STATUS_ERROR, Task, build_binaries, build_plan, command_files, execute_task,
                            program_digest)
from ccbench.run.machine import describe_machine, every_cpu, format_cpu_list
from ccbench.run.workspace import Workspace
from ccbench.specification.schema import PLACEMENT_EXCLUSIVE

MACHINE_RESOURCE = "ccbench_machine"
SHARED_SLIVER = 0.001        # a shared point's share of its machine's unit (Ray counts to 1e-4)
MAX_MOVES = 2                # a point lost on this many machines more is reported, not stored
GRACE_S = 120.0              # beyond a point's own timeout, before its machine counts as unresponsive
PREPARE_TIMEOUT_S = 3 * 3600.0   # a fresh machine builds every protocol the sweep needs
POLL_S = 1.0                 # how often the driver looks for overdue points

Log = Callable[[str], None]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


def git_commit(root: Path) -> str | None:
    """The commit checked out at root; None outside a git checkout."""
    try:
        done = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True)
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@dataclass(frozen=True)
class NodeSetup:
    """What every machine must have before the sweep: the driver's checkout and binaries."""
    root: str                                             # the driver's checkout; the same path on every machine
    commit: str | None                                    # the driver's commit there
    driver_host: str                                      # a machine on this host shares the driver's checkout
    builds: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]   # make arguments -> binaries they produce
    commands: tuple[tuple[str, ...], ...]                 # the programs' files (engine.command_files) to digest


def prepare_node(setup: NodeSetup) -> dict:
    """Runs on a machine: build (or check) the sweep's binaries in its checkout and digest them.

    Returns {"machine": describe_machine(), "problem": why the machine cannot
    take points (None if it can), "digests": {command files: digest}}. A
    machine on the driver's host shares the driver's checkout, which the
    driver has just built: it is only digested (two makes in one build
    directory would race)."""
    report = {"machine": describe_machine(), "problem": None, "digests": {}}
    root = Path(setup.root)
    commit = git_commit(root) if root.is_dir() else None
    if not root.is_dir():
        report["problem"] = f"no checkout at {root}"
    elif commit != setup.commit:
        report["problem"] = (f"its checkout {root} is at commit {commit or '(none)'}, the driver's at "
                             f"{setup.commit or '(none)'}")
    elif report["machine"]["hostname"] != setup.driver_host:
        for arguments, binaries in setup.builds:
            problem = build_binaries(root, list(arguments), list(binaries))
            if problem:
                report["problem"] = f"cannot build its binaries: {problem}"
                break
    if report["problem"] is None:
        report["digests"] = {words: program_digest(words) for words in setup.commands}
    return report


def run_point(task: Task) -> dict:
    """Runs on a machine: one point, on every CPU of the machine (machine.every_cpu)."""
    import ray

    with every_cpu() as inherited:
        record = execute_task(task)
    record["node"].update(ray_node_id=ray.get_runtime_context().get_node_id(),
                          cpu_mask_inherited=format_cpu_list(inherited))
    return record


@dataclass
class Machine:
    node_id: str
    cpus: int                                   # the node's Ray CPUs
    hostname: str = "?"
    running: dict[str, int] = field(default_factory=dict)   # key -> threads of the points it runs
    exclusive: bool = False                     # it runs an exclusive point
    retired: str | None = None                  # why it takes no more points

    @property
    def name(self) -> str:
        return f"{self.hostname} (node {self.node_id[:12]})"

    def has_room(self) -> bool:
        return self.retired is None and not self.exclusive and sum(self.running.values()) < self.cpus

    def fits_now(self, task: Task) -> bool:
        if self.retired is not None or task.threads > self.cpus:
            return False
        if task.placement == PLACEMENT_EXCLUSIVE:
            return not self.running
        return not self.exclusive and sum(self.running.values()) + task.threads <= self.cpus

    def take(self, task: Task) -> None:
        self.running[task.key] = task.threads
        self.exclusive = task.placement == PLACEMENT_EXCLUSIVE

    def release(self, task: Task) -> None:
        del self.running[task.key]
        self.exclusive = self.exclusive and bool(self.running)


@dataclass
class Flight:
    task: Task
    machine: Machine
    deadline: float          # time.monotonic() by which it must have answered


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


class RayBackend:
    """Points as Ray tasks on the machines of a Ray cluster (module docstring).

    Connects to `address` ("auto", "ray://head:10001", ...); with none, uses
    the Ray instance this process already runs, or starts a local one whose
    only node is this machine."""
    name = "ray"

    def __init__(self, address: str | None = None, workspace: Workspace | None = None, *,
                 max_moves: int = MAX_MOVES, grace_s: float = GRACE_S, log: Log = _stderr):
        self.address = address
        self.workspace = workspace or Workspace.create()
        self.max_moves = max_moves
        self.grace_s = grace_s
        self.log = log

    def run(self, tasks: Sequence[Task], on_record, on_skip) -> None:
        import ray

        started_here = not ray.is_initialized()
        if started_here and self.address:
            ray.init(address=self.address, include_dashboard=False, log_to_driver=False)
        elif started_here:
            ray.init(address="local", resources={MACHINE_RESOURCE: 1}, include_dashboard=False, log_to_driver=False)
        try:
            _Sweep(ray, self, tasks, on_record, on_skip).run()
        finally:
            if started_here:
                ray.shutdown()


class _Sweep:
    """One sweep's state on the cluster: machines, points to place, points in flight."""

    def __init__(self, ray, backend: RayBackend, tasks: Sequence[Task], on_record, on_skip):
        self.ray = ray
        self.backend = backend
        self.tasks = list(tasks)
        self.on_record = on_record
        self.on_skip = on_skip
        self.log = backend.log
        # Workers import ccbench by reference: the package is at the driver's path on every machine.
        python_path = os.pathsep.join(filter(None, [str(SCRIPTS_DIR), os.environ.get("PYTHONPATH")]))
        self.runtime_env = {"env_vars": {"PYTHONPATH": python_path}}
        self.pending: collections.deque[Task] = collections.deque()
        self.in_flight: dict[object, Flight] = {}
        self.moves: dict[str, list[dict]] = {}
        self.machines: list[Machine] = []

    def _pinned(self, function, machine: Machine, **options):
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        return self.ray.remote(function).options(
            scheduling_strategy=NodeAffinitySchedulingStrategy(machine.node_id, soft=False),
            runtime_env=self.runtime_env, max_retries=0, **options)

    def run(self) -> None:
        if not self.tasks:
            return
        self.machines = self._find_machines()
        refusals = self._prepare()
        if not self.machines:
            for task in self.tasks:
                self.on_skip(task, "no machine was accepted: " + "; ".join(refusals))
            return
        largest = max(machine.cpus for machine in self.machines)
        for task in self.tasks:
            if task.threads > largest:
                self.on_skip(task, f"needs {task.threads} CPUs; the largest machine has {largest}")
            else:
                self.pending.append(task)
        try:
            self._schedule()
        finally:
            for reference in self.in_flight:     # interrupted: leave nothing running on the cluster
                self.ray.cancel(reference, force=True)

    def _find_machines(self) -> list[Machine]:
        machines = [Machine(node["NodeID"], int(node["Resources"].get("CPU", 0)))
                    for node in self.ray.nodes()
                    if node["Alive"] and node["Resources"].get(MACHINE_RESOURCE, 0) >= 1]
        if not machines:
            raise UsageError(f"no node of the Ray cluster offers the resource {MACHINE_RESOURCE}: start each "
                             f"machine's Ray with --resources='{{\"{MACHINE_RESOURCE}\": 1}}' (docs/cluster.md)")
        return machines

    def _prepare(self) -> list[str]:
        """Prepare every machine (prepare_node); keep those that match the driver. Returns the refusals."""
        workspace = self.backend.workspace
        setup = NodeSetup(root=str(workspace.root), commit=git_commit(workspace.root),
                          driver_host=socket.gethostname(),
                          builds=tuple((arguments, tuple(binaries))
                                       for arguments, binaries in sorted(build_plan(self.tasks, workspace).items())),
                          commands=tuple(sorted({command_files(task.command) for task in self.tasks})))
        expected = {command_files(task.command): task.binary_digest for task in self.tasks}
        self.log(f"ccbench: preparing {len(self.machines)} machines (build and digest the binaries)")
        references = {self._pinned(prepare_node, machine, num_cpus=0).remote(setup): machine
                      for machine in self.machines}
        ready, late = self.ray.wait(list(references), num_returns=len(references), timeout=PREPARE_TIMEOUT_S)
        problems: dict[str, str] = {}
        for reference in late:
            self.ray.cancel(reference, force=True)
            problems[references[reference].node_id] = f"no answer within {PREPARE_TIMEOUT_S:g} s"
        for reference in ready:
            machine = references[reference]
            try:
                report = self.ray.get(reference)
            except self.ray.exceptions.RayError as error:
                problems[machine.node_id] = f"its preparation failed: {_first_line(error)}"
                continue
            machine.hostname = report["machine"]["hostname"]
            problems[machine.node_id] = report["problem"] or _digest_mismatch(report["digests"], expected)
        refusals = []
        for machine in self.machines:
            if problems.get(machine.node_id):
                refusals.append(f"machine {machine.name} refused: {problems[machine.node_id]}")
                self.log(f"ccbench: {refusals[-1]}")
        self.machines = [machine for machine in self.machines if not problems.get(machine.node_id)]
        if self.machines:
            self.log(f"ccbench: {len(self.machines)} machines take points: "
                     + ", ".join(f"{machine.name}, {machine.cpus} CPUs" for machine in self.machines))
        return refusals

    def _schedule(self) -> None:
        while self.pending or self.in_flight:
            self._dispatch()
            if not self.in_flight:     # every machine is idle, and none can take what is left
                lost = "; ".join(f"{m.name}: {m.retired}" for m in self.machines if m.retired) or "none lost"
                for task in self.pending:
                    self.on_skip(task, f"no machine left with {task.threads} CPUs (machines lost: {lost})")
                self.pending.clear()
                return
            done, _ = self.ray.wait(list(self.in_flight), num_returns=1, timeout=POLL_S)
            for reference in done:
                self._collect(reference)
            self._expire_overdue()

    def _dispatch(self) -> None:
        """Start every pending point that fits on a machine now, in order; the others keep their place."""
        waiting: collections.deque[Task] = collections.deque()
        while self.pending and any(machine.has_room() for machine in self.machines):
            task = self.pending.popleft()
            machine = next((m for m in self.machines if m.fits_now(task)), None)
            if machine is None:
                waiting.append(task)
                continue
            share = 1 if task.placement == PLACEMENT_EXCLUSIVE else SHARED_SLIVER
            reference = self._pinned(run_point, machine, num_cpus=task.threads,
                                     resources={MACHINE_RESOURCE: share}).remote(task)
            machine.take(task)
            self.in_flight[reference] = Flight(task, machine,
                                               time.monotonic() + task.timeout_s + self.backend.grace_s)
        waiting.extend(self.pending)
        self.pending = waiting

    def _collect(self, reference) -> None:
        flight = self.in_flight.pop(reference)
        flight.machine.release(flight.task)
        try:
            record = self.ray.get(reference)
        except self.ray.exceptions.RayTaskError as error:   # the harness itself raised on the worker
            self.on_record(flight.task, {"key": flight.task.key, "status": STATUS_ERROR,
                                         "failure": f"the Ray task raised: {_first_line(error)}"})
            return
        except self.ray.exceptions.RayError as error:       # node died, worker killed, not schedulable
            self._lose(flight, _first_line(error))
            return
        if flight.task.key in self.moves:
            record["moved"] = self.moves[flight.task.key]
        self.on_record(flight.task, record)

    def _expire_overdue(self) -> None:
        now = time.monotonic()
        for reference, flight in list(self.in_flight.items()):
            if now > flight.deadline:
                self.ray.cancel(reference, force=True)
                del self.in_flight[reference]
                flight.machine.release(flight.task)
                self._lose(flight, f"no answer {self.backend.grace_s:g} s after the point's "
                                   f"{flight.task.timeout_s:g} s timeout")

    def _lose(self, flight: Flight, reason: str) -> None:
        """An infrastructure failure: retire the machine, re-queue the point (first in line) or give up on it."""
        machine = flight.machine
        if machine.retired is None:
            machine.retired = reason
            self.log(f"ccbench: machine {machine.name} lost ({reason}); it takes no more points in this sweep")
        moves = self.moves.setdefault(flight.task.key, [])
        moves.append({"hostname": machine.hostname, "ray_node_id": machine.node_id, "reason": reason})
        if len(moves) > self.backend.max_moves:
            self.on_skip(flight.task, f"lost on {len(moves)} machines (last: {reason})")
        else:
            self.pending.appendleft(flight.task)


def _digest_mismatch(digests: dict[tuple[str, ...], str | None], expected: dict[tuple[str, ...], str | None]) -> str | None:
    """Which of the programs differs from the driver's build, if any."""
    differ = [f"{' '.join(words)} has digest {digests.get(words)}, the driver's {digest}"
              for words, digest in sorted(expected.items()) if digests.get(words) != digest]
    return "; ".join(differ) or None
