"""Figure configs checked against the programs themselves, before a sweep runs
anything, so that the checks cannot drift from the engine:

- every protocol a figure names has a binary: the protocol list is the
  build's own (`make protocols`, the Makefile's PROTOCOLS), asked before any
  build, so a misspelt `cc` fails at once instead of as a failing build;
- every flag a point passes is one the program accepts: the program lists its
  flags itself (`bin/rundb-<cc> --list_flags`), asked once the binaries are
  up to date and before the first run;
- every point's values are ones the program accepts: each distinct command
  runs once with --validate_only (the program's own checks, the memory
  estimate included; nothing loaded or written), so a sweep over a value the
  binary refuses fails before any point runs, not as failed runs.

A problem is a ConfigError naming the figure file and the field that set the
flag (`base.tabel_size`, `series[2].params.cc`, ...): exit 2, nothing run,
nothing stored. Programs given as custom commands (--engine, --program) are
not asked for their flag list, but do validate their points.
"""
from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from ccbench.errors import ConfigError, did_you_mean
from ccbench.run.workspace import Workspace
from ccbench.sim.calibration import COST_TABLE_FLAG
from ccbench.specification.config import ResolvedFigure
from ccbench.specification.points import Point
from ccbench.specification.programs import PROGRAMS
from ccbench.specification.result_fields import metric_origins


@lru_cache(maxsize=None)
def _make_protocols(root: Path) -> tuple[str, ...]:
    done = subprocess.run(["make", "-s", "--no-print-directory", "protocols"], cwd=root, capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise ConfigError(root / "Makefile", "protocols", f"`make protocols` failed: {done.stderr.strip()}")
    return tuple(done.stdout.split())


def program_flags(command: Sequence[str]) -> frozenset[str]:
    """The flags a program accepts, as it lists them (`<command> --list_flags`)."""
    done = subprocess.run([*command, "--list_flags"], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise ConfigError(command[0], "", f"`{' '.join(command)} --list_flags` failed: {done.stderr.strip()}")
    return frozenset(done.stdout.split())


def _origins(figure: ResolvedFigure, name: str) -> list[str]:
    """The fields of the figure's config that set flag `name`."""
    document = figure.config.document
    places = []
    if name in document.get("base", {}):
        places.append(f"base.{name}")
    if name in document.get("axes", {}):
        places.append(f"axes.{name}")
    for index, series in enumerate(document["series"]):
        if name in series.get("params", {}):
            places.append(f"series[{index}].params.{name}")
    for profile, override in document.get("profiles", {}).items():
        for part in ("base", "axes"):
            if name in override.get(part, {}):
                places.append(f"profiles.{profile}.{part}.{name}")
    return places or [f"{name} (from an included fragment or the profile file)"]


def check_protocols(figures: Sequence[ResolvedFigure], workspace: Workspace) -> None:
    """Every protocol named by a figure of the engine has a binary (before any build)."""
    problems = []
    for figure in figures:
        program = figure.config.program
        if program.binary_parameter is None or not workspace.builds(program.name):
            continue
        known = _make_protocols(workspace.root)
        for cc in sorted({point.cc for point in figure.points()} - set(known)):
            for place in _origins(figure, program.binary_parameter):
                problems.append((str(figure.config.path), place,
                                 f"no binary for protocol '{cc}'{did_you_mean(cc, known)}; allowed: {'|'.join(known)}"))
    if problems:
        raise ConfigError.many(sorted(set(problems)))


def check_flags(figures: Sequence[ResolvedFigure], workspace: Workspace) -> None:
    """Every flag of every point is one its program lists (binaries built)."""
    problems = []
    for figure in figures:
        for name, command in unlisted_flags(figure.points(), workspace):
            for place in _origins(figure, name):
                problems.append((str(figure.config.path), place,
                                 f"{PROGRAMS[figure.config.program.name].speaker} has no flag --{name} "
                                 f"(`{command} --list_flags` lists them)"))
    if problems:
        raise ConfigError.many(sorted(set(problems)))
    check_points_accepted(figures, workspace)


VALIDATE_TIMEOUT_S = 30
VALIDATE_PARALLEL = 4


def check_points_accepted(figures: Sequence[ResolvedFigure], workspace: Workspace) -> None:
    """Every point's flags are accepted by its program: each distinct command runs once with
    --validate_only (the program's every check, memory estimate included, nothing loaded or written;
    a few at a time). A refusal (exit 2, "error: --flag: ...") is a config error naming the fields
    that set the flag, before any point has run; a refused cost table is not a field's (runner.py)."""
    commands: dict[tuple[str, ...], list[tuple[ResolvedFigure, object]]] = {}
    for figure in figures:
        program = figure.config.program
        if not program.validates:
            continue
        for point in figure.points():
            cost_table = point.cost_table_path(workspace.results_dir)
            if point.unrunnable or (cost_table and not cost_table.is_file()):
                continue  # the runner reports why it cannot run (no simulation build, no cost table)
            command = workspace.command(point)
            if workspace.builds(program.name) and not Path(command[0]).is_file():
                continue  # its build failed: the runner reports that
            commands.setdefault(command, []).append((figure, point))
    with ThreadPoolExecutor(max_workers=VALIDATE_PARALLEL) as pool:
        refusals = dict(zip(commands, pool.map(refusal, commands)))
    problems = []
    for command, refused in refusals.items():
        if refused is None:
            continue
        flag, message = refused
        if flag == COST_TABLE_FLAG:
            continue   # a refused cost table: the runner said so once and ran none of its points
        for figure, point in commands[command]:
            program = figure.config.program
            names = [name for name, _ in point.flags]
            where = ", ".join(f"{axis}={value}" for axis, value in point.coords) or "every point"
            fields = _origins(figure, flag) if flag in names or flag == program.binary_parameter else \
                [place for name in names for place in _origins(figure, name)][:1]
            for place in fields:
                problems.append((str(figure.config.path), place,
                                 f"{program.speaker} refuses the point of series {point.series} at {where}: {message}"))
    if problems:
        raise ConfigError.many(sorted(set(problems)))


def refusal(command: Sequence[str]) -> tuple[str, str] | None:
    """(flag, message) when `command --validate_only` refuses (exit 2); None when it accepts."""
    try:
        done = subprocess.run([*command, "--validate_only"], capture_output=True, text=True,
                              timeout=VALIDATE_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return "", f"`{' '.join(command)} --validate_only` did not finish in {VALIDATE_TIMEOUT_S} s"
    if done.returncode == 0:
        return None
    lines = done.stderr.strip().splitlines()
    error = next((line for line in reversed(lines) if line.startswith("error: ")), lines[-1] if lines else "")
    if done.returncode == 2 and error.startswith("error: --"):
        flag = error[len("error: --"):].split(":", 1)[0]
        return flag, error[len("error: "):]
    return "", f"`{' '.join(command)} --validate_only` exited {done.returncode}: {error}"


def unlisted_flags(points: Sequence[Point], workspace: Workspace) -> list[tuple[str, str]]:
    """(flag, binary) for each flag of the points that their program's built binary does not list
    (`--list_flags`); nothing for a program that lists none, a custom command, or a binary not built."""
    found = []
    listed: dict[tuple[str, ...], frozenset[str]] = {}
    for point in points:
        program = PROGRAMS[point.program]
        if not program.lists_flags or not workspace.builds(program.name) or point.unrunnable:
            continue
        command = (str(workspace.root / workspace.binary(program.name, point.cc, point.variant)),)
        if not Path(command[0]).is_file():
            continue  # its build failed: the runner reports that
        if command not in listed:
            listed[command] = program_flags(command)
        found += [(name, command[0]) for name, _ in point.flags if name not in listed[command]]
    return list(dict.fromkeys(found))


def _reports(result: dict, name: str) -> bool:
    """The result has the dotted field `name` (a null value counts: reported, but no data)."""
    value = result
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            return False
        value = value[part]
    return True


def check_metrics_reported(figure: ResolvedFigure, results: Sequence[dict], computed: Sequence[str] = ()) -> None:
    """Every metric the figure plots, tabulates or claims is reported by its program: a field of at
    least one of its successful runs (even if null there), or a metric the harness derives. Checked
    on the runs, since only they show what the program writes for this configuration; a figure
    with no successful run is not judged. `computed`: columns the harness computes from the table
    (a figure's breakdown), not from a run."""
    if not results:
        return
    program = figure.config.program
    missing = [name for name in figure.metrics()
               if name not in program.derived and name not in computed
               and not any(_reports(result, name) for result in results)]
    problems = []
    for name in missing:
        example = sorted(key for key, value in results[0].items() if isinstance(value, (int, float, dict)))
        for place in metric_origins(figure.config.document, name) or ["metrics"]:
            problems.append((str(figure.config.path), place,
                             f"no run of {program.speaker} reports metric '{name}'; its results have "
                             f"{', '.join(example)} (nested fields dotted, e.g. latency_us.p99)"))
    if problems:
        raise ConfigError.many(problems)
