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

import json
import subprocess
import sys
from pathlib import Path
from typing import Callable, Sequence

from ccbench.errors import UsageError
from ccbench.sim import calibration, workscale
from ccbench.specification import machines as modelled
from ccbench.specification.config import Profile, machines
from ccbench.specification.metrics import metric_value, rate_text

EXIT_NOT_SERIALIZABLE = 3   # the engine's exit status when its checker finds a violation (the result is written)


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
    """Run the simulation binary; its output passes through, then the result's summary (summary_lines) is
    printed: on stdout after a result written to --out, on stderr after one the binary printed (stdout stays
    the result document). Its exit status is the command's."""
    out = next((word.split("=", 1)[1] for word in arguments if word.startswith("--out=")), None)
    if out is None:
        done = subprocess.run([*argv, *arguments], check=False, stdout=subprocess.PIPE, text=True)
        sys.stdout.write(done.stdout)
        sys.stdout.flush()
        text, stream = done.stdout, sys.stderr
    else:
        done = subprocess.run([*argv, *arguments], check=False)
        text = Path(out).read_text(encoding="utf-8") if Path(out).is_file() else ""
        stream = sys.stdout
    if done.returncode in (0, EXIT_NOT_SERIALIZABLE) and text.strip():
        try:
            result = json.loads(text)
        except json.JSONDecodeError:
            return done.returncode   # the binary's output said what happened
        print("\n".join(summary_lines(result, out)), file=stream)
    return done.returncode


def summary_lines(result: dict, out: str | None) -> list[str]:
    """What a simulated run measured, for people: throughput, abort rate, the virtual cores on the modelled
    machine's physical cores, the virtual and wall time, the model, and with --verify the checker's verdict."""
    config, sim = result.get("config", {}), result.get("sim", {})
    cores = f"{sim.get('virtual_cores', config.get('threads'))} virtual cores"
    if sim.get("physical_cores"):
        cores += f" on {sim['physical_cores']} physical cores"
        if sim.get("smt_factor"):
            cores += f" (SMT factor {sim['smt_factor']:g})"
    model = sim.get("model", {})
    lines = [f"{config.get('cc', '?')}, simulated: {result['throughput']:,.0f} txn/s, abort rate "
             f"{rate_text(metric_value(result, 'abort_rate'))}; {cores}, "
             f"{config.get('duration', 0):g} virtual s measured after {config.get('warmup', 0):g} s of warm-up "
             f"({sim.get('wall_seconds', 0):.1f} s wall)",
             f"  model: cost table {model.get('cost_table_source', '?')}, machine {model.get('machine', '?')}, "
             f"work scale {model.get('work_scale_source', '?')} (the result's sim.model)"]
    if result.get("serializable") is not None:
        counts = (result.get("verify") or {}).get("counts", {})
        verdict = "serializable" if result["serializable"] else "NOT serializable (the witness: verify.violation)"
        lines.append(f"  verified: {verdict}; history of {counts.get('txns', 0):,} committed transactions "
                     f"checked (docs/verify.md)")
    if out is not None:
        lines.append(f"  result: {out}")
    return lines
