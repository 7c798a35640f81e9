"""Building the engine binaries and running one point.

This module imports only the standard library: Ray workers import it to run
points, and must not pay for pandas or matplotlib.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

# Exit codes of the interface contract (ARCHITECTURE.md).
EXIT_BAD_CONFIGURATION = 2
EXIT_CORRECTNESS_FAILURE = 3
REQUIRED_RESULT_FIELDS = ("config", "throughput", "commits", "aborts")
OUTPUT_TAIL_CHARS = 8000

STATUS_OK = "ok"
STATUS_FAILED = "failed"      # the run itself failed: stored, like a result
STATUS_ERROR = "error"        # the harness could not start it: not stored


@dataclass(frozen=True)
class Task:
    """Everything a worker (local or Ray) needs to run one point."""
    key: str
    cc: str
    command: tuple[str, ...]   # the engine command with every flag except --out
    timeout_s: float
    threads: int
    engine: str


def build_binary(root: Path, cc: str) -> str | None:
    """Run `make CC=<cc>`; return None on success or the tail of make's output."""
    try:
        done = subprocess.run(["make", f"CC={cc}"], cwd=root, capture_output=True, text=True)
    except OSError as error:
        return f"cannot run make: {error}"
    if done.returncode != 0:
        output = (done.stdout + done.stderr).strip().splitlines()
        return f"`make CC={cc}` failed (exit {done.returncode}):\n" + "\n".join(output[-30:])
    if not (root / "bin" / f"rundb-{cc}").is_file():
        return f"`make CC={cc}` succeeded but did not produce bin/rundb-{cc}"
    return None


def _tail(text: str) -> str:
    return text[-OUTPUT_TAIL_CHARS:]


def _describe_exit(returncode: int) -> str:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"crashed: killed by {name}"
    if returncode == EXIT_BAD_CONFIGURATION:
        return f"the engine rejected the configuration (exit {returncode})"
    if returncode == EXIT_CORRECTNESS_FAILURE:
        return f"a correctness check failed (exit {returncode})"
    return f"exited with status {returncode}"


def _read_result(out_path: Path) -> tuple[dict | None, str | None]:
    """(result, problem): the engine's JSON document, or why it is unusable."""
    if not out_path.is_file() or out_path.stat().st_size == 0:
        return None, "the engine wrote no result JSON"
    try:
        result = json.loads(out_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        return None, f"the result JSON is invalid: {error}"
    if not isinstance(result, dict):
        return None, "the result JSON is not an object"
    missing = [name for name in REQUIRED_RESULT_FIELDS if name not in result]
    if missing:
        return result, f"the result JSON lacks {', '.join(missing)}"
    return result, None


def _run_with_timeout(command: list[str], timeout_s: float) -> tuple[int | None, str, str]:
    """(returncode or None on timeout, stdout, stderr). The engine gets its own
    process group so that a timeout or Ctrl-C kills it and all its children."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               errors="replace", start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout_s)
        return process.returncode, stdout, stderr
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        return None, stdout, stderr
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def execute_task(task: Task) -> dict:
    """Run one point and return its record (never raises for engine problems)."""
    record = {"key": task.key, "cc": task.cc, "engine": task.engine, "command": list(task.command),
              "host": socket.gethostname(), "timeout_s": task.timeout_s, "result": None,
              "failure": None, "returncode": None, "stdout_tail": "", "stderr_tail": ""}
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ccbench-run-") as scratch:
        out_path = Path(scratch) / "result.json"
        try:
            returncode, stdout, stderr = _run_with_timeout([*task.command, f"--out={out_path}"], task.timeout_s)
        except OSError as error:
            record.update(status=STATUS_ERROR, failure=f"cannot start the engine {task.command[0]}: {error.strerror}")
            return record
        result, problem = _read_result(out_path)
    record.update(returncode=returncode, stdout_tail=_tail(stdout), stderr_tail=_tail(stderr), result=result,
                  wall_s=round(time.monotonic() - started, 3),
                  finished_at=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    if returncode is None:
        record.update(status=STATUS_FAILED, failure=f"timed out after {task.timeout_s:g} s")
    elif returncode != 0:
        record.update(status=STATUS_FAILED, failure=_describe_exit(returncode))
    elif problem:
        record.update(status=STATUS_FAILED, failure=problem)
    else:
        record.update(status=STATUS_OK)
    return record
