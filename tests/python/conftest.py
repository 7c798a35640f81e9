"""Shared fixtures: a throw-away workspace (configs, store, output) that runs
the fake engine instead of bin/rundb-<cc>."""
from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest
import yaml

from ccbench.fileio import TEMP_PREFIX
from ccbench.run.workspace import Workspace

FAKE_ENGINE = Path(__file__).with_name("fake_engine.py")
ENGINE_COMMAND = f"{sys.executable} {FAKE_ENGINE} --cc={{cc}}"

PROFILES = {
    "quick": {"description": "tests: instant runs", "base": {"duration": 0.02, "warmup": 0.0},
              "repetitions": 1, "timeout_s": 20},
    "repeated": {"description": "tests: three repetitions", "base": {"duration": 0.02, "warmup": 0.0},
                 "repetitions": 3, "max_repetitions": 6, "timeout_s": 20},
}

FIGURE = {
    "title": "Test figure: throughput vs theta",
    "base": {"workload": "ycsb", "threads": 1, "table_size": 1000},
    "axes": {"theta": [0.0, 0.5, 0.9]},
    "series": [{"name": "silo", "label": "Silo", "params": {"cc": "silo"}},
               {"name": "occ", "label": "OCC", "params": {"cc": "occ"}}],
    "plot": {"kind": "line", "x": "theta", "y": "throughput"},
    "inferences": [{"parameter": "table_size", "note": "chosen for the test"}],
    "claims": [
        {"id": "silo-beats-occ", "kind": "ratio", "numerator": "silo", "denominator": "occ",
         "op": ">=", "bound": 1.2, "check": "trend", "text": "Silo beats OCC by 20%"},
        {"id": "falls", "kind": "monotone", "direction": "decreasing", "check": "trend",
         "text": "throughput falls with skew"},
        {"id": "absolute", "kind": "value", "series": "silo", "at": {"theta": "min"}, "op": ">=",
         "bound": 1e9, "check": "absolute", "text": "1G txn/s on the authors' machine"},
    ],
}


def figure_document(**changes) -> dict:
    """The test figure with top-level fields replaced (None removes a field)."""
    document = copy.deepcopy(FIGURE)
    for key, value in changes.items():
        if value is None:
            document.pop(key, None)
        else:
            document[key] = value
    return document


class Sandbox:
    def __init__(self, root: Path):
        self.root = root
        self.workspace = Workspace.create(root=root, engine=ENGINE_COMMAND)
        for name, profile in PROFILES.items():
            self.write(self.workspace.profiles_dir / f"{name}.yaml", profile)

    @staticmethod
    def write(path: Path, document: object) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True))
        return path

    def add_figure(self, figure_id: str = "test-fig", document: dict | None = None, paper: str = "testbed") -> Path:
        return self.write(self.workspace.figure_configs_dir / paper / f"{figure_id}.yaml",
                          document if document is not None else figure_document())

    def cli_arguments(self, *arguments: str) -> list[str]:
        """Arguments for ccbench.cli.main that point at this workspace and the fake engine."""
        return [*arguments, "--configs", str(self.workspace.configs_dir), "--results",
                str(self.workspace.results_dir), "--out-dir", str(self.workspace.figures_dir),
                "--engine", ENGINE_COMMAND]

    def records(self) -> dict[str, Path]:
        """The stored records; not a record being written (a runner killed then leaves its temporary file)."""
        return {path.stem: path for path in self.workspace.runs_dir.glob("*.json")
                if not path.name.startswith(TEMP_PREFIX)}


class PlantedProc:
    """A /proc of two files for the harness's load records (ccbench/load.py reads CCBENCH_PROC_ROOT): a
    quiet machine unless a test adds busy time. The fake engine adds the jiffies of the first line of
    FAKE_ENGINE_BUSY_QUEUE to it while it runs (one line per run), as other processes would."""
    CPU_LINE = [1000, 0, 500, 100000, 0, 0, 0, 0, 0, 0]   # user nice system idle iowait irq softirq steal ...

    def __init__(self, root: Path):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.set(self.CPU_LINE, loadavg=(0.1, 0.2, 0.3))

    def set(self, cpu: list[int], loadavg: tuple[float, float, float] | None = None) -> None:
        (self.root / "stat").write_text("cpu  " + " ".join(str(v) for v in cpu) + "\ncpu0 0 0 0 0 0 0 0 0 0 0\n")
        if loadavg is not None:
            (self.root / "loadavg").write_text(" ".join(str(v) for v in loadavg) + " 1/100 4242\n")

    def cpu(self) -> list[int]:
        return [int(v) for v in (self.root / "stat").read_text().splitlines()[0].split()[1:]]

    def add_busy(self, jiffies: int, field: int = 0) -> None:
        cpu = self.cpu()
        cpu[field] += jiffies
        self.set(cpu)


@pytest.fixture(autouse=True)
def planted_proc(tmp_path: Path, monkeypatch) -> PlantedProc:
    """Every test reads a planted, quiet /proc: load records (and so `noisy`) do not depend on what else
    this machine runs."""
    planted = PlantedProc(tmp_path / "proc")
    monkeypatch.setenv("CCBENCH_PROC_ROOT", str(planted.root))
    return planted


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path)
