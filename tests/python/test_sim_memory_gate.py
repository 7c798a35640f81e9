"""The runner starts simulated points only as many at once as fit in memory together (backends.MemoryGate):
a point's expected memory comes from its configuration's work-scale fit or from its finished points; one
whose memory is not known yet runs alone. A stand-in for execute_task records how many points ran at once."""
from __future__ import annotations

import threading
import time

import pytest

from ccbench.run import backends
from ccbench.run.engine import Task

GB = 1 << 30


def sim_task(key: str, config: str, threads: int, seed: int, expected: int | None = None) -> Task:
    command = ("/bin/sim/rundb-silo", f"--workload={config}", f"--threads={threads}", f"--seed={seed}",
               "--sim_cost_table=t.json")
    return Task(key, "rundb", "silo", command, 60.0, threads, "t", simulated=True, expected_memory_bytes=expected)


class FakeRuns:
    """execute_task's stand-in: each run holds `peaks[config]` bytes for a short while."""

    def __init__(self, peaks: dict[str, int]):
        self.peaks, self.lock = peaks, threading.Lock()
        self.running, self.most_at_once, self.most_bytes_at_once, self.bytes = 0, 0, 0, 0

    def __call__(self, task: Task) -> dict:
        peak = self.peaks[task.command[1].split("=", 1)[1]]
        with self.lock:
            self.running += 1
            self.bytes += peak
            self.most_at_once = max(self.most_at_once, self.running)
            self.most_bytes_at_once = max(self.most_bytes_at_once, self.bytes)
        time.sleep(0.05)
        with self.lock:
            self.running -= 1
            self.bytes -= peak
        return {"key": task.key, "status": "ok", "result": {"memory": {"peak_rss_bytes": peak}}}


def run(monkeypatch, tasks, workers, budget, peaks) -> tuple[FakeRuns, list[str]]:
    fake = FakeRuns(peaks)
    monkeypatch.setattr(backends, "execute_task", fake)
    order: list[str] = []
    backends.run_in_parallel(tasks, workers, lambda task, record: order.append(task.key), memory_budget_bytes=budget)
    return fake, order


def test_points_that_do_not_fit_together_run_one_at_a_time(monkeypatch):
    # 14 GB points on a 21.6 GB budget (24 GiB x 0.9): never two at once, as on the machine that lost them.
    tasks = [sim_task(f"hot{s}", "hot", 30, s) for s in range(1, 5)]
    fake, order = run(monkeypatch, tasks, workers=2, budget=21.6 * GB, peaks={"hot": 14 * GB})
    assert sorted(order) == sorted(task.key for task in tasks)
    assert fake.most_at_once == 1


def test_small_points_run_workers_at_a_time_once_their_memory_is_known(monkeypatch):
    tasks = [sim_task(f"y{s}", "ycsb", 8, s) for s in range(1, 9)]
    fake, _ = run(monkeypatch, tasks, workers=4, budget=21.6 * GB, peaks={"ycsb": 1 * GB})
    assert fake.most_at_once == 4


def test_a_point_of_unknown_memory_runs_alone(monkeypatch):
    # No fit and no finished point: each configuration's first point starts only on an idle machine.
    tasks = [sim_task("a", "ycsb", 8, 1), sim_task("b", "tpcc", 8, 1), sim_task("c", "hot", 8, 1)]
    fake, order = run(monkeypatch, tasks, workers=3, budget=100 * GB,
                      peaks={"ycsb": GB, "tpcc": GB, "hot": GB})
    assert fake.most_at_once == 1
    assert order == ["a", "b", "c"]


def test_the_fits_measured_memory_lets_points_start_together_at_once(monkeypatch):
    tasks = [sim_task(f"t{s}", "tpcc", 30, s, expected=2 * GB) for s in range(1, 4)]
    fake, _ = run(monkeypatch, tasks, workers=3, budget=21.6 * GB, peaks={"tpcc": 2 * GB})
    assert fake.most_at_once == 3
    # The fit's number is a floor: a point that held more than the fit measured raises the expectation.
    tasks = [sim_task(f"h{s}", "hot", 30, s, expected=2 * GB) for s in range(1, 5)]
    fake, _ = run(monkeypatch, tasks, workers=2, budget=21.6 * GB, peaks={"hot": 14 * GB})
    assert fake.most_bytes_at_once <= 28 * GB   # two at most: both started on the fit's 2 GB
    gate = backends.MemoryGate(21.6 * GB)
    gate.learn(tasks[0], {"result": {"memory": {"peak_rss_bytes": 14 * GB}}})
    assert gate.expected(tasks[1]) == pytest.approx(14 * GB * backends.MEMORY_HEADROOM)
    assert not gate.may_start(tasks[1], [gate.expected(tasks[0])])


def test_without_a_budget_only_the_worker_count_limits(monkeypatch):
    monkeypatch.setattr(backends, "available_memory_bytes", lambda: None)   # no /proc/meminfo
    tasks = [sim_task(f"y{s}", "ycsb", 8, s) for s in range(1, 7)]
    fake, _ = run(monkeypatch, tasks, workers=3, budget=None, peaks={"ycsb": 40 * GB})
    assert fake.most_at_once == 3


def test_the_memory_key_ignores_threads_seed_and_the_simulations_flags():
    a, b = sim_task("a", "ycsb", 8, 1), sim_task("b", "ycsb", 30, 2)
    assert backends.memory_key(a) == backends.memory_key(b)
    assert backends.memory_key(a) != backends.memory_key(sim_task("c", "tpcc", 8, 1))
