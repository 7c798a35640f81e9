"""The result store: one JSON record per run, named by the run's key.

Layout: <results>/runs/<key>.json. A record is written atomically once the
run has ended (ok or failed), so a record that exists is always complete,
and a sweep that is killed loses at most the run that was in flight.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ccbench.fileio import remove_stale_temp_files, write_json_atomically


class ResultStore:
    def __init__(self, runs_dir: Path):
        self.runs_dir = runs_dir

    def path(self, key: str) -> Path:
        return self.runs_dir / f"{key}.json"

    def get(self, key: str) -> dict | None:
        path = self.path(key)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (json.JSONDecodeError, UnicodeDecodeError):
            # Only possible if someone edited the file: records are written atomically.
            print(f"ccbench: ignoring unreadable record {path}; the run will be redone", file=sys.stderr)
            return None

    def put(self, record: dict) -> None:
        write_json_atomically(self.path(record["key"]), record)

    def clean(self) -> int:
        """Remove temporary files left by a harness killed while writing."""
        return remove_stale_temp_files(self.runs_dir)


def figures_run_path(results_dir: Path, profile: str) -> Path:
    """<results>/figures-run/<profile>.json: the figures that `run`, `figures` or `fidelity` swept at the
    profile (a run record belongs to its point, and a point may be shared by several figures: ycsb-threads
    reuses ycsb-theta's runs, so a stored run does not say which figure was run)."""
    return results_dir / "figures-run" / f"{profile}.json"


def record_figures_run(results_dir: Path, profile: str, figure_ids: list[str]) -> None:
    path = figures_run_path(results_dir, profile)
    known = figures_run(results_dir, profile) or set()
    write_json_atomically(path, sorted(known | set(figure_ids)))


def figures_run(results_dir: Path, profile: str) -> set[str] | None:
    """The figures swept at the profile, or None when no sweep recorded any (a store from before the record
    existed: the report then shows every figure with a stored run)."""
    try:
        return set(json.loads(figures_run_path(results_dir, profile).read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
