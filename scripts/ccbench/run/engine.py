"""Building the programs' binaries and running one point.

This module imports only the standard library, jsonschema (through
ccbench.schema) and ccbench.programs: Ray workers import it to run points,
and must not pay for pandas or matplotlib.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from ccbench import load
from ccbench.run.machine import describe_run
from ccbench.specification.programs import OUTPUT_FILE, PROGRAMS, Program
from ccbench.specification.result_fields import schema_problem
from ccbench.specification.schema import PLACEMENT_EXCLUSIVE

if TYPE_CHECKING:
    from ccbench.run.workspace import Workspace

# Exit codes of the programs' interface contract (docs/engine.md).
EXIT_BAD_CONFIGURATION = 2
EXIT_CORRECTNESS_FAILURE = 3
EXIT_COMMITTED_NOTHING = 4  # the measured interval committed nothing (docs/engine.md): a failed run, never a 0
OUTPUT_TAIL_CHARS = 8000

STATUS_OK = "ok"
STATUS_FAILED = "failed"      # the run itself failed: stored, like a result
STATUS_ERROR = "error"        # the harness could not start it: not stored

# The one definition of the programs' result documents (docs/results.md).


@dataclass(frozen=True)
class Task:
    """Everything a worker (local or Ray) needs to run one point."""
    key: str
    program: str               # a name in programs.PROGRAMS
    cc: str | None             # the engine's protocol; None for other programs
    command: tuple[str, ...]   # the program's command with every flag except --out
    timeout_s: float
    threads: int
    template: str              # the command template the key was made with
    row_list: str | None = None   # stdout programs: the list of rows the point selects
    binary_digest: str | None = None   # program_digest() of the command when the run was planned
    variant: str | None = None         # the build variant whose binary runs it (None: release)
    quiet_threshold_cores: float = load.DEFAULT_THRESHOLD_CORES   # above it, the run's load is `noisy`
    placement: str = PLACEMENT_EXCLUSIVE   # on a cluster: a machine of its own, or shared (schema.py)
    simulated: bool = False            # on virtual cores (sim.py): never noisy, run in parallel locally
    cost_table: str | None = None      # a simulated run's cost table (--sim_cost_table)
    cost_table_digest: str | None = None   # its sim.file_digest when the run was planned
    fit_work_scale: bool = False       # a simulated run's --sim_work_scale is fitted first (workscale.py)
    work_scale: str | None = None      # the fitted --sim_work_scale (in the command; part of the digest)
    expected_memory_bytes: int | None = None   # a simulated run's peak RSS as its fit measured it (backends.py)
    unrunnable: str | None = None      # why it has no binary to run it (points.Point.unrunnable): not run
    check_schema: bool = True          # False: a build of any revision (compare), read for the required fields only


# The engine's git revision and dirty flag (engine/stats/build_info.cpp.in) and
# the linker's build ID, a hash of the whole file and so of the revision too:
# the only bytes two builds of the same code at different commits differ in.
REVISION_STAMP_PREFIX = b"ccb-build-revision:"
REVISION_STAMP = re.compile(re.escape(REVISION_STAMP_PREFIX) + rb"[^\x00]*")
GNU_BUILD_ID = re.compile(rb"\x04\x00\x00\x00([\x01-\x40])\x00\x00\x00\x03\x00\x00\x00GNU\x00", re.DOTALL)


def masked_program(data: bytes) -> bytes:
    """A program's bytes without what a commit alone changes (the revision stamp, the ELF build ID)."""
    data = REVISION_STAMP.sub(REVISION_STAMP_PREFIX, data)
    parts, start = [], 0
    for note in GNU_BUILD_ID.finditer(data):
        parts += [data[start:note.end()], bytes(note.group(1)[0])]
        start = note.end() + note.group(1)[0]
    return b"".join(parts) + data[start:]


def program_digest(command: Sequence[str]) -> str | None:
    """A fingerprint of the program a command runs: the SHA-256 of every file
    the command names before its flags (the binary; for a script, the
    interpreter and the script), without the bytes a commit alone changes
    (masked_program). A stored result whose digest differs from the current
    one was measured with other code and is run again; one measured by a
    build of the same code at another commit (a docs-only change) is kept.
    None when the command names no existing file (it cannot be run as given)."""
    digest = hashlib.sha256()
    found = False
    for word in command:
        if word.startswith("-"):
            break
        path = program_file(word)
        if path is not None:
            found = True
            digest.update(masked_program(path.read_bytes()))
    return digest.hexdigest()[:16] if found else None


def program_file(word: str) -> Path | None:
    """The file a word of a command names: a path, or a bare name found on PATH as the
    program would be (`python3 script.py`: the interpreter this machine runs); None if neither."""
    path = Path(word)
    if path.is_file():
        return path
    found = shutil.which(word) if os.sep not in word else None
    return Path(found) if found else None


def command_files(command: Sequence[str]) -> tuple[str, ...]:
    """The words of a command before its flags: what program_digest fingerprints."""
    return tuple(itertools.takewhile(lambda word: not word.startswith("-"), command))


def build_arguments(task: Task, workspace: "Workspace") -> tuple[str, ...] | None:
    """The `make` arguments that build the task's binary; None for a custom command (not built)."""
    if not workspace.builds(task.program):
        return None
    return workspace.make_arguments(task.program, task.cc, task.variant)


def build_plan(tasks: Sequence[Task], workspace: "Workspace") -> dict[tuple[str, ...], list[str]]:
    """make arguments -> the binaries (paths under the root) they must produce, for the tasks' programs
    that the harness builds (`make CC=<cc>` per protocol, `make tools` once for the front-end benchmarks)."""
    plan: dict[tuple[str, ...], list[str]] = {}
    for task in tasks:
        arguments = build_arguments(task, workspace)
        if arguments is not None:
            binaries = plan.setdefault(arguments, [])
            binary = workspace.binary(task.program, task.cc, task.variant)
            if binary not in binaries:
                binaries.append(binary)
    return plan


def build_together(root: Path, plan: dict[tuple[str, ...], list[str]],
                   log=lambda message: None) -> dict[tuple[str, ...], str | None]:
    """Build every entry of a build_plan; return each entry's problem (None: built). The protocols' binaries
    of one variant (entries `CC=<cc> [VARIANT=v]`) are built by one `make CC="<cc> <cc> ..."`, so that the
    build tool compiles them side by side (each binary is one translation unit: one `make` per binary keeps
    all but one core idle). If that `make` fails, each of its protocols is built alone, so that only the
    broken ones are reported and the others still run."""
    groups: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    problems: dict[tuple[str, ...], str | None] = {}
    for arguments in sorted(plan):
        if arguments and arguments[0].startswith("CC="):
            groups.setdefault(arguments[1:], []).append(arguments)
        else:
            log(f"ccbench: make {' '.join(arguments)}")
            problems[arguments] = build_binaries(root, list(arguments), plan[arguments])
    for rest, members in sorted(groups.items()):
        if len(members) > 1:
            together = (f"CC={' '.join(arguments[0].removeprefix('CC=') for arguments in members)}", *rest)
            log(f"ccbench: make {' '.join(together)}")
            if build_binaries(root, list(together), [binary for arguments in members for binary in plan[arguments]]) \
                    is None:
                problems.update((arguments, None) for arguments in members)
                continue
            log("ccbench: that build failed; building each protocol alone to find which")
        for arguments in members:
            if len(members) == 1:
                log(f"ccbench: make {' '.join(arguments)}")
            problems[arguments] = build_binaries(root, list(arguments), plan[arguments])
    return problems


def build_binaries(root: Path, make_arguments: list[str], binaries: list[str]) -> str | None:

    """Run `make <arguments>` in root; return None once the binaries (paths under
    root) exist, else why not, with the tail of make's output."""
    command = " ".join(["make", *make_arguments])
    try:
        done = subprocess.run(["make", *make_arguments], cwd=root, capture_output=True, text=True)
    except OSError as error:
        return f"cannot run make: {error}"
    if done.returncode != 0:
        output = (done.stdout + done.stderr).strip().splitlines()
        return f"`{command}` failed (exit {done.returncode}):\n" + "\n".join(output[-30:])
    missing = [binary for binary in binaries if not (root / binary).is_file()]
    if missing:
        return f"`{command}` succeeded but did not produce {', '.join(missing)}"
    return None


def _tail(text: str) -> str:
    return text[-OUTPUT_TAIL_CHARS:]


def _describe_exit(returncode: int, program: Program) -> str:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"crashed: killed by {name}"
    if returncode == EXIT_BAD_CONFIGURATION:
        return f"{program.speaker} rejected the configuration (exit {returncode})"
    if returncode == EXIT_CORRECTNESS_FAILURE:
        return f"a correctness check failed (exit {returncode})"
    if returncode == EXIT_COMMITTED_NOTHING:
        return f"the measured interval committed nothing (exit {returncode}); the run's stderr says where the cores were"
    return f"exited with status {returncode}"


def _parse_document(text: str | None, program: Program) -> tuple[dict | None, str | None]:
    """(document, problem): the program's JSON object, or why it is unusable."""
    where = "result JSON" if program.output == OUTPUT_FILE else "JSON on stdout"
    if not text or not text.strip():
        return None, f"{program.speaker} wrote no {where}"
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        return None, f"the {where} is invalid: {error}"
    if not isinstance(document, dict):
        return None, f"the {where} is not an object"
    return document, None


def _select_row(document: dict, program: Program, row_list: str) -> tuple[dict | None, str | None]:
    """A stdout program's point: the one row of its list, with the other top-level fields."""
    rows = document.get(row_list)
    if not isinstance(rows, list):
        return None, f"the JSON on stdout has no list of rows '{row_list}'"
    if len(rows) != 1 or not isinstance(rows[0], dict):
        return None, (f"the JSON on stdout has {len(rows)} rows in '{row_list}'; a point must select exactly "
                      f"one (give each of the experiment's list flags one value)")
    return {**{key: value for key, value in document.items() if key not in program.row_lists}, **rows[0]}, None


def _read_result(program: Program, text: str | None, row_list: str | None,
                 check_schema: bool = True) -> tuple[dict | None, str | None]:
    """(result, problem): the point's result document, or why it is unusable (against the program's schema too,
    unless check_schema is False)."""
    result, problem = _parse_document(text, program)
    if result is not None and program.rows_parameter:
        result, problem = _select_row(result, program, row_list)
    if result is None:
        return None, problem
    missing = [name for name in program.required_fields if name not in result]
    if missing:
        return result, f"the result JSON lacks {', '.join(missing)}"
    if program.result_schema and check_schema:
        return result, schema_problem(result, program.result_schema)
    return result, None


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")   # bad bytes then fail as invalid JSON
    except FileNotFoundError:
        return None


# The programs running now (several at once when simulated points run in parallel): kill_running ends them.
_RUNNING: set[subprocess.Popen] = set()
_RUNNING_LOCK = threading.Lock()


def kill_running() -> None:
    """Kill every program a point is running now, with its children (Ctrl-C during parallel runs: the
    threads that wait for them are not interrupted themselves)."""
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for process in running:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _run_with_timeout(command: list[str], timeout_s: float) -> tuple[int | None, str, str]:
    """(returncode or None on timeout, stdout, stderr). The engine gets its own
    process group so that a timeout or Ctrl-C kills it and all its children."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               errors="replace", start_new_session=True)
    with _RUNNING_LOCK:
        _RUNNING.add(process)
    try:
        stdout, stderr = process.communicate(timeout=timeout_s)
        return process.returncode, stdout, stderr
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        return None, stdout, stderr
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(process)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _now() -> str:
    """UTC, to the millisecond: records of one machine can be checked for overlapping runs."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def execute_task(task: Task) -> dict:
    """Run one point and return its record (never raises for the program's problems)."""
    program = PROGRAMS[task.program]
    record = {"key": task.key, "program": task.program, "cc": task.cc, "engine": task.template,
              "binary_digest": task.binary_digest,
              "command": list(task.command), "host": socket.gethostname(), "timeout_s": task.timeout_s,
              "node": describe_run(task.threads), "started_at": _now(),
              "result": None, "failure": None, "returncode": None, "stdout_tail": "", "stderr_tail": ""}
    if task.simulated:
        record["sim_cost_table"] = {"path": task.cost_table, "sha256": task.cost_table_digest}
        if task.work_scale is not None:
            record["sim_work_scale"] = task.work_scale
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ccbench-run-") as scratch:
        out_path = Path(scratch) / "result.json"
        command = [*task.command, f"--out={out_path}"] if program.output == OUTPUT_FILE else list(task.command)
        before = load.snapshot()
        try:
            returncode, stdout, stderr = _run_with_timeout(command, task.timeout_s)
        except OSError as error:
            record.update(status=STATUS_ERROR, failure=f"cannot start {task.command[0]}: {error.strerror}")
            return record
        record["load"] = load.load_record(before, load.snapshot(), task.threads, task.quiet_threshold_cores,
                                           task.simulated)
        text = _read_text(out_path) if program.output == OUTPUT_FILE else stdout
        result, problem = _read_result(program, text, task.row_list, task.check_schema)
    record.update(returncode=returncode, stdout_tail=_tail(stdout), stderr_tail=_tail(stderr), result=result,
                  wall_s=round(time.monotonic() - started, 3), finished_at=_now())
    if returncode is None:
        record.update(status=STATUS_FAILED, failure=f"timed out after {task.timeout_s:g} s")
    elif returncode != 0:
        record.update(status=STATUS_FAILED, failure=_describe_exit(returncode, program))
    elif problem:
        record.update(status=STATUS_FAILED, failure=problem)
    else:
        record.update(status=STATUS_OK)
    return record


def main(arguments: Sequence[str] | None = None) -> int:
    """`python -m ccbench.run.engine ENTRY FILE...`: checks result documents as the harness reads them (ENTRY: the
    program's $defs entry in docs/result.schema.json: rundb, pipeline or middletier). One line per document that
    does not match; exit 1 if any, 2 on bad usage. The contract tests of the binaries call it."""
    entry, *paths = arguments if arguments is not None else sys.argv[1:] or [""]
    entries = sorted(program.result_schema for program in PROGRAMS.values() if program.result_schema)
    if entry not in entries or not paths:
        print(f"usage: python -m ccbench.run.engine {{{'|'.join(entries)}}} FILE...", file=sys.stderr)
        return 2
    failed = 0
    for path in paths:
        try:
            document = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            problem = f"cannot read a JSON document: {error}"
        else:
            problem = schema_problem(document, entry) if isinstance(document, dict) else "not a JSON object"
        if problem:
            print(f"{path}: {problem}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
