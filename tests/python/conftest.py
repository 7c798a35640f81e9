"""Shared fixtures: a throw-away workspace (configs, store, output) that runs
the fake engine instead of bin/rundb-<cc>."""
from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest
import yaml

from ccbench.fileio import TEMP_PREFIX
from ccbench.workspace import Workspace

FAKE_ENGINE = Path(__file__).with_name("fake_engine.py")
ENGINE_COMMAND = f"{sys.executable} {FAKE_ENGINE} --cc={{cc}}"

PROFILES = {
    "quick": {"description": "tests: instant runs", "base": {"duration": 0.02, "warmup": 0.0},
              "repetitions": 1, "timeout_s": 20},
    "repeated": {"description": "tests: three repetitions", "base": {"duration": 0.02, "warmup": 0.0},
                 "repetitions": 3, "timeout_s": 20},
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


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path)
