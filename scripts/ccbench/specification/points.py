"""A point is one run: a program (and for the engine a protocol) plus its flags.

Its key, a hash of the program's command template, the protocol and every
flag value exactly as passed on the command line, names its record in the
result store. Two figures that need the same run therefore share it, and a
sweep that is run again finds every finished run under the same key.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from ccbench.specification.programs import ENGINE, PROGRAMS, SIM_VARIANT


def format_flag_value(value: object) -> str:
    """The command-line spelling of a parameter value.

    Integral floats are written without '.0' so that `theta: 1` and
    `theta: 1.0` (the same setting to the engine) give the same key.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


@dataclass(frozen=True)
class Point:
    figure: str
    series: str
    coords: tuple[tuple[str, object], ...]   # (axis, value) for every swept axis
    repetition: int
    cc: str | None                            # the engine: selects bin/rundb-<cc>; not passed as a flag
    flags: tuple[tuple[str, object], ...]    # every flag, sorted by name
    timeout_s: float
    program: str = ENGINE
    build: str | None = None                  # SIM_VARIANT: the point runs on virtual cores (docs/sim.md)
    cost_table: str | None = None             # a simulated point's cost table (not part of its key: the
                                              # runner digests the file with the binary)
    fit_work_scale: bool = False              # its --sim_work_scale is fitted first (workscale.py; its
                                              # profile's sim_work_scale: fit)

    @property
    def threads(self) -> int:
        """CPUs the run uses (virtual cores when simulated): its program's threads flag, the count its
        program derives from its flags, or 1 for a program with neither."""
        program = PROGRAMS[self.program]
        if program.thread_count is not None:
            return program.thread_count(dict(self.flags))
        return int(dict(self.flags).get(program.threads_parameter, 1)) if program.threads_parameter else 1

    @property
    def simulated(self) -> bool:
        return self.build == SIM_VARIANT

    @property
    def os_threads(self) -> int:
        """The machine's CPUs the run occupies: a simulation runs every virtual core on one OS thread."""
        return 1 if self.simulated else self.threads

    @property
    def flag_variant(self) -> str | None:
        """The build variant a flag of the point selects (the profile build for --profile), or None."""
        flags = dict(self.flags)
        return next((name for name in PROGRAMS[self.program].variant_flags if flags.get(name) is True), None)

    @property
    def variant(self) -> str | None:
        """The build variant whose binary runs the point (the simulation, or the profile build for
        --profile), or None: release. None as well for a point that cannot run (`unrunnable`)."""
        if self.simulated:
            return None if self.unrunnable else SIM_VARIANT
        return self.flag_variant

    @property
    def unrunnable(self) -> str | None:
        """Why a simulated point has no binary to run it, or None: a program without a simulation
        build, or a flag that needs another build variant (no build is both)."""
        if not self.simulated:
            return None
        program = PROGRAMS[self.program]
        if not program.sim_build:
            return (f"{program.name} has no simulation build (only the engine runs on virtual cores; "
                    f"docs/sim.md); run {self.figure} under a native profile")
        if self.flag_variant:
            return (f"--{self.flag_variant}=true needs the {self.flag_variant} build, which has no simulation "
                    f"(docs/sim.md); run {self.figure} under a native profile")
        return None

    @property
    def row_list(self) -> str | None:
        """For a program that prints lists of rows: the list this point selects."""
        name = PROGRAMS[self.program].rows_parameter
        return str(dict(self.flags)[name]) if name else None

    def with_repetition(self, repetition: int) -> "Point":
        """The same point's repetition r: its seed moves with it (repetition r runs with seed (seed or 1) + r)."""
        flags = dict(self.flags)
        flags["seed"] = flags["seed"] - self.repetition + repetition
        return dataclasses.replace(self, repetition=repetition, flags=tuple(sorted(flags.items())))

    @property
    def group(self) -> tuple[str, tuple]:
        """The point without its repetition: (series, coords)."""
        return self.series, self.coords

    def flag_arguments(self) -> list[str]:
        return [f"--{name}={format_flag_value(value)}" for name, value in self.flags]

    def cost_table_path(self, results_dir: Path) -> Path | None:
        """A simulated point's cost table (a relative path is under the results directory), else None."""
        return results_dir / self.cost_table if self.variant == SIM_VARIANT and self.cost_table else None

    def key(self, template: str) -> str:
        """The run's identity under the program's command template (e.g. bin/rundb-{cc})."""
        flags = {name: format_flag_value(value) for name, value in self.flags}
        if self.program == ENGINE:   # the engine's keys predate other programs; they stay as they were
            identity = {"engine": template, "cc": self.cc, "flags": flags}
        else:
            identity = {"program": self.program, "command": template, "flags": flags}
        if self.build:               # a simulated run is another run than the native one of the same flags
            identity["build"] = self.build
        canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:24]
