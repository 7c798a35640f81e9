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
