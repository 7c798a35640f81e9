"""Load records: what the machine did during a run, from planted /proc readings (conftest.PlantedProc),
the `noisy` flag, and waiting for a quiet machine."""
from __future__ import annotations

import json
import os

import pandas as pd
import pytest

from ccbench import load
from ccbench.cli import main
from ccbench.load import Snapshot, load_section, take_snapshot, wait_until_quiet
from conftest import figure_document

TICKS = os.sysconf("SC_CLK_TCK")


def snapshot(at: float, busy_s: float = 0.0, steal_s: float = 0.0, children_s: float = 0.0,
             loadavg=(0.5, 0.4, 0.3)) -> Snapshot:
    return Snapshot(at, busy_s, steal_s, loadavg, own_s=children_s, children_s=children_s)


def test_a_planted_reading_is_parsed(planted_proc):
    planted_proc.set([200, 100, 50, 9000, 7, 3, 2, 40, 0, 0], loadavg=(1.5, 0.75, 0.25))
    reading = take_snapshot(planted_proc.root)
    assert reading.busy_s == pytest.approx((200 + 100 + 50 + 3 + 2) / TICKS)   # user nice system irq softirq
    assert reading.steal_s == pytest.approx(40 / TICKS) and reading.loadavg == (1.5, 0.75, 0.25)


def test_other_processes_cpu_is_busy_time_minus_the_run_s_own():
    # 10 s: the machine's busy time grew by 12 CPU-seconds, 9.5 of them the run's own (2 threads).
    quiet = load_section(snapshot(0.0, busy_s=100), snapshot(10.0, busy_s=112, children_s=11.5), 2, 0.1)
    assert quiet["own_cpu_s"] == 11.5 and quiet["own_cpu_share"] == pytest.approx(0.575)
    assert quiet["other_cpu_s"] == pytest.approx(0.5) and quiet["other_cores"] == pytest.approx(0.05)
    assert not quiet["noisy"] and quiet["loadavg_start"] == [0.5, 0.4, 0.3]
    busy = load_section(snapshot(0.0, busy_s=100), snapshot(10.0, busy_s=113, children_s=11.5), 2, 0.1)
    assert busy["other_cores"] == pytest.approx(0.15) and busy["noisy"]
    stolen = load_section(snapshot(0.0, busy_s=100), snapshot(10.0, busy_s=111.5, steal_s=2, children_s=11.5), 2, 0.1)
    assert stolen["other_cores"] == 0 and stolen["steal_cores"] == pytest.approx(0.2) and stolen["noisy"]
    assert not load_section(snapshot(0.0), snapshot(10.0, busy_s=1.5), 1, 0.2)["noisy"]   # the threshold is the caller's


def test_a_run_during_planted_busy_time_is_flagged_noisy_in_the_record_table_and_report(
        sandbox, planted_proc, tmp_path, monkeypatch):
    queue = tmp_path / "busy"
    queue.write_text(f"{30 * TICKS}\n")          # the first run sees 30 s of other processes' CPU time
    monkeypatch.setenv("FAKE_ENGINE_BUSY_QUEUE", str(queue))
    sandbox.add_figure("test-fig", figure_document(axes={"theta": [0.0, 0.9]}, claims=None))
    assert main(sandbox.cli_arguments("figures", "test-fig", "--profile", "quick", "--quiet")) == 0
    records = [json.loads(path.read_text()) for path in sandbox.records().values()]
    noisy = [record for record in records if record["load"]["noisy"]]
    assert len(records) == 4 and len(noisy) == 1
    section = noisy[0]["load"]
    assert section["other_cpu_s"] == pytest.approx(30, abs=1) and section["other_cores"] > 1
    assert section["loadavg_start"] == [0.1, 0.2, 0.3] and section["threads"] == 1
    quiet = [record["load"] for record in records if not record["load"]["noisy"]]
    assert all(section["other_cpu_s"] < 0.05 for section in quiet)
    runs = pd.read_csv(sandbox.workspace.tables_dir("quick") / "test-fig.runs.csv")
    assert runs["noisy"].sum() == 1
    assert pd.read_csv(sandbox.workspace.tables_dir("quick") / "test-fig.csv")["runs_noisy"].sum() == 1
    report = (sandbox.workspace.images_dir("quick") / "REPORT.md").read_text()
    assert "1 noisy run(s) at 1 point(s)" in report and "| `test-fig` | testbed | 4 / 4 | 1 |" in report


def test_an_unreadable_proc_is_recorded_not_fatal(sandbox, planted_proc):
    (planted_proc.root / "stat").write_text("intr 0\n")
    sandbox.add_figure("test-fig", figure_document(axes={"theta": [0.0]}, claims=None))
    assert main(sandbox.cli_arguments("run", "test-fig", "--profile", "quick", "--quiet")) == 0
    record, = [json.loads(path.read_text()) for path in sandbox.records().values()][:1]
    assert record["status"] == "ok" and "not the cpu line" in record["load"]["unavailable"]
    assert record["load"]["noisy"] is False


class Clock:
    def __init__(self):
        self.now = 0.0

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def time(self) -> float:
        return self.now


def test_waiting_for_a_quiet_machine_is_bounded_and_says_so():
    clock, messages = Clock(), []
    readings = iter([0.9, 0.5, 0.05])
    assert wait_until_quiet(0.1, 60, messages.append, measure=lambda: next(readings), sleep=clock.sleep,
                            clock=clock.time)
    assert clock.now == 2 * load.QUIET_POLL_S
    assert messages[0].startswith("ccbench: waiting for a quiet machine: other processes use 0.90 cores")
    assert "quiet (0.05 cores used by others)" in messages[-1]

    clock, messages = Clock(), []
    assert not wait_until_quiet(0.1, 12, messages.append, measure=lambda: 1.0, sleep=clock.sleep, clock=clock.time)
    assert clock.now == 12 and "did not become quiet within 12 s" in messages[-1]
    assert wait_until_quiet(0.1, 12, messages.append, measure=lambda: 0.0, sleep=clock.sleep, clock=clock.time)
