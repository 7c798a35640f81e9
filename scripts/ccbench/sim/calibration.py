"""The harness side of the simulation build (docs/sim.md, "Running figures under simulation").

A simulated point runs `bin/sim/rundb-<cc>`: the same protocols and
workloads on `--threads` virtual cores in virtual time, deterministic for
its flags, its seed and the cost table it is given (`--sim_cost_table`, ns
per operation measured natively on this machine by the calibration,
`bin/sim/rundb-<cc> --sim_calibrate=<out.json>`). So:

- the cost table is an input of the run like its binary: its digest joins
  the binary's in the record's `binary_digest` (a recalibrated table makes
  the stored runs "stored from another build": run again), and the record
  names the file and its SHA-256 (`sim_cost_table`);
- a missing cost table is calibrated before the first simulated point runs
  (`ccbench calibrate` does it on demand), on a quiet machine: the
  calibration measures native single-thread costs, which other processes
  would inflate; its own record (command, load, time) is written next to it;
- a simulated result does not depend on the machine's load, so the local
  backends run simulated points in parallel, one per core, and their load
  records say `simulated` and are never noisy (backends.py, engine.py).

This module imports only the standard library and the harness's light
modules (engine.py, load.py), as Ray workers do.
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import time
from pathlib import Path
from typing import Callable, Sequence

from ccbench import load
from ccbench.fileio import write_json_atomically

CALIBRATE_FLAG = "sim_calibrate"
COST_TABLE_FLAG = "sim_cost_table"
CALIBRATE_TIMEOUT_S = 1800
CALIBRATION_TAIL_CHARS = 4000


def file_digest(path: Path) -> str | None:
    """SHA-256 of a file (16 hex digits, as program_digest), or None when it does not exist."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except FileNotFoundError:
        return None


def combined_digest(binary_digest: str | None, cost_table_digest: str | None) -> str | None:
    """The digest of what a simulated run's result depends on besides its flags: binary and cost table."""
    if binary_digest is None or cost_table_digest is None:
        return binary_digest
    return hashlib.sha256(f"{binary_digest}:{cost_table_digest}".encode()).hexdigest()[:16]


def record_path(cost_table: Path) -> Path:
    """Where the calibration's own record goes: <table>.record.json beside the table."""
    return cost_table.with_name(cost_table.stem + ".record.json")


def calibrate(argv: Sequence[str], cost_table: Path, *, log: Callable[[str], None],
              threshold_cores: float = load.DEFAULT_THRESHOLD_CORES, max_wait_s: float = 300) -> str | None:
    """Write the cost table: `<argv> --sim_calibrate=<cost_table>` (argv: a simulation binary and its fixed
    arguments), after waiting for a quiet machine. Returns None on success, else why it failed (the table
    is then absent). Its record (command, load, times, output tails) goes to record_path(cost_table)."""
    cost_table.parent.mkdir(parents=True, exist_ok=True)
    command = [*argv, f"--{CALIBRATE_FLAG}={cost_table}"]
    load.wait_until_quiet(threshold_cores, max_wait_s, log)
    log(f"ccbench: calibrating the simulation's cost table: {' '.join(command)}")
    before = load.snapshot()
    started, started_at = time.monotonic(), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    try:
        done = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=CALIBRATE_TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
        returncode, stdout, stderr = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as expired:
        returncode, stdout, stderr = None, str(expired.stdout or ""), str(expired.stderr or "")
    except OSError as error:
        return f"cannot run the calibration `{' '.join(command)}`: {error.strerror}"
    section = load.load_record(before, load.snapshot(), 1, threshold_cores)
    problem = _calibration_problem(returncode, cost_table, command, stderr)
    if problem:
        cost_table.unlink(missing_ok=True)
    write_json_atomically(record_path(cost_table), {
        "command": command, "started_at": started_at, "wall_s": round(time.monotonic() - started, 3),
        "returncode": returncode, "load": section, "cost_table_sha256": file_digest(cost_table),
        "failure": problem, "stdout_tail": stdout[-CALIBRATION_TAIL_CHARS:],
        "stderr_tail": stderr[-CALIBRATION_TAIL_CHARS:]})
    if not problem and section["noisy"]:
        log(f"ccbench: the calibration ran on a busy machine ({load.describe(section)}); its costs may be "
            f"inflated: run `ccbench calibrate` again on a quiet machine")
    return problem


def _calibration_problem(returncode: int | None, cost_table: Path, command: list[str], stderr: str) -> str | None:
    what = f"the calibration `{' '.join(command)}`"
    if returncode is None:
        return f"{what} did not finish in {CALIBRATE_TIMEOUT_S} s"
    if returncode != 0:
        last = (stderr.strip().splitlines() or [""])[-1]
        return f"{what} exited {returncode}: {last}"
    try:
        table = json.loads(cost_table.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return f"{what} wrote no cost table at {cost_table}"
    except json.JSONDecodeError as error:
        return f"{what} wrote an invalid cost table: {error}"
    if not isinstance(table, dict) or not table:
        return f"{what} wrote a cost table that is not a non-empty JSON object"
    return None
