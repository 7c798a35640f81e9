"""One simulated point run by hand, with the model a figure's point gets (`ccbench simulate`; docs/sim.md,
"The modelled machine").

bin/sim/rundb-<cc> run by hand prices everything with the built-in table unless it is given a cost table (its
last log line then says so plainly). This command gives the run what the harness gives a figure's point: the
profile's calibrated cost table (the results directory's, when it exists), the stored work-scale fit of the
configuration for that table (or a new fit with --fit), and the modelled machine's flags (--machine, else the
profile's sim_machine); it prints which model it assembled, then runs the binary with the engine flags given
(--out included), whose result's sim.model and last log line name the same model.
"""
from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Callable, Sequence

from ccbench.errors import UsageError
from ccbench.sim import calibration, workscale
from ccbench.specification import machines as modelled
from ccbench.specification.config import Profile, machines


def _flag_names(flags: Sequence[str]) -> set[str]:
    return {flag[2:].split("=", 1)[0] for flag in flags if flag.startswith("--")}


def configuration_flags(flags: Sequence[str]) -> list[str]:
    """The engine flags less --out: what a work-scale fit keys on and runs with (it writes its own results)."""
    return [flag for flag in flags if not flag.startswith("--out=") and flag != "--out"]


def model_arguments(cc: str, flags: Sequence[str], profile: Profile, machine: str | None, configs: Path,
                    results: Path, fit: Callable[[str, Path, str | None], str] | None,
                    log: Callable[[str], None]) -> list[str]:
    """The --sim_* arguments of a by-hand point: the machine's, the cost table's and the work scale's.
    `fit(key, cost_table, digest)` fits a missing work scale (None: run without one). UsageError for an
    unknown machine or a flag the machine supplies."""
    known = machines(configs)
    name = machine or profile.sim_machine
    problem = modelled.name_problem(name, known)
    if problem:
        raise UsageError(f"--machine: {problem}")
    given = _flag_names(flags)
    problem = modelled.overlap_problem(name, dict.fromkeys(given), known, "the engine flags")
    if problem:
        raise UsageError(f"--machine: {problem}")
    arguments = [f"--{flag}={value}" for flag, value in modelled.machine_flags(name, known).items()]
    log(f"ccbench: machine {name}" + ("" if name != modelled.CALIBRATING else
                                      " (every cost from the cost table, the simulator's defaults)"))
    table = results / profile.sim_cost_table
    if calibration.COST_TABLE_FLAG in given:
        log("ccbench: the cost table named by --sim_cost_table (the engine flags)")
        return arguments
    if not table.is_file():
        log(f"ccbench: no calibrated cost table at {table}: the run uses the BUILT-IN table, and no work "
            f"scale (`ccbench calibrate --profile {profile.name}` writes the table)")
        return arguments
    arguments.append(f"--{calibration.COST_TABLE_FLAG}={table.resolve()}")
    digest = calibration.file_digest(table)
    log(f"ccbench: cost table {table} (sha256 {digest})")
    if workscale.FLAG in given:
        log("ccbench: the work scale given by --sim_work_scale (the engine flags)")
        return arguments
    key = workscale.fit_key(cc, configuration_flags(flags))
    scale = workscale.stored(key, table, digest)
    if scale is None and fit is not None:
        scale = fit(key, table, digest)
    if scale is None:
        log(f"ccbench: no work-scale fit for {key} with this table: the run has no work scale "
            f"(--fit fits one: native single-thread runs on a quiet machine)")
        return arguments
    log(f"ccbench: work scale {scale} ({workscale.store_path(table)})")
    return [*arguments, f"--{workscale.FLAG}={scale}",
            f"--{workscale.SOURCE_FLAG}={workscale.source_label(table, key)}"]


def run(argv: Sequence[str], arguments: Sequence[str]) -> int:
    """Run the simulation binary; its output passes through. Its exit status is the command's."""
    return subprocess.run([*argv, *arguments], check=False).returncode
