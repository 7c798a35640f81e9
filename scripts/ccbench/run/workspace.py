"""Where things live: configs, the result store, figure output, the programs."""
from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from ccbench.errors import UsageError
from ccbench.fileio import REPOSITORY_ROOT
from ccbench.specification.points import Point
from ccbench.specification.programs import ENGINE, PROGRAMS, Program

# The engine command; {cc} is replaced by the protocol. The default is built
# by `make CC=<cc>`; any other command (CCBENCH_ENGINE, --engine) is used as is.
DEFAULT_ENGINE = PROGRAMS[ENGINE].binary


@dataclass(frozen=True)
class Workspace:
    root: Path
    configs_dir: Path
    results_dir: Path
    figures_dir: Path
    engine: str = DEFAULT_ENGINE
    # Other programs' commands instead of their binaries (--program NAME=COMMAND); not built.
    program_commands: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def create(cls, root: Path | None = None, configs_dir: Path | None = None, results_dir: Path | None = None,
               figures_dir: Path | None = None, engine: str | None = None,
               program_commands: Mapping[str, str] | None = None) -> "Workspace":
        root = (root or REPOSITORY_ROOT).resolve()
        for name in program_commands or {}:
            if name not in PROGRAMS or name == ENGINE:
                others = ", ".join(sorted(set(PROGRAMS) - {ENGINE}))
                raise UsageError(f"--program {name}=...: unknown program; programs: {others} "
                                 f"(the engine's command is --engine)")
        return cls(root=root,
                   configs_dir=(configs_dir or root / "configs").resolve(),
                   results_dir=(results_dir or root / "results").resolve(),
                   figures_dir=(figures_dir or root / "paper_figures").resolve(),
                   engine=engine or os.environ.get("CCBENCH_ENGINE") or DEFAULT_ENGINE,
                   program_commands=dict(program_commands or {}))

    @property
    def profiles_dir(self) -> Path:
        return self.configs_dir / "profiles"

    @property
    def figure_configs_dir(self) -> Path:
        return self.configs_dir / "figures"

    @property
    def runs_dir(self) -> Path:
        return self.results_dir / "runs"

    def tables_dir(self, profile: str) -> Path:
        return self.results_dir / "tables" / profile

    def images_dir(self, profile: str) -> Path:
        return self.figures_dir / profile

    def _command(self, program: Program) -> str:
        """The program's command as configured here; {cc} not yet replaced."""
        if program.name == ENGINE:
            return self.engine
        return self.program_commands.get(program.name, program.binary)

    def builds(self, program_name: str) -> bool:
        """Only a program's own binary is built with make; a custom command is taken as given."""
        program = PROGRAMS[program_name]
        return self._command(program) == program.binary

    @property
    def builds_engine(self) -> bool:
        return self.builds(ENGINE)

    def command_template(self, program_name: str) -> str:
        """The command a run's key is made with: e.g. bin/rundb-{cc}, bin/bench_strife --format=json."""
        program = PROGRAMS[program_name]
        return " ".join([self._command(program), *program.fixed_arguments])

    def binary(self, program_name: str, cc: str | None = None, variant: str | None = None) -> str:
        """The program's binary, relative to the root (for the engine, the protocol's); a build
        variant's is under build/<variant>/bin (the profile build) or bin/sim (the simulation) instead."""
        program = PROGRAMS[program_name]
        return (program.variant_binary(variant) if variant else program.binary).replace("{cc}", cc or "")

    def make_arguments(self, program_name: str, cc: str | None = None, variant: str | None = None) -> tuple[str, ...]:
        """`make` arguments that build the binary: e.g. CC=silo, or CC=silo VARIANT=profile."""
        arguments = tuple(argument.replace("{cc}", cc or "") for argument in PROGRAMS[program_name].make_arguments)
        return (*arguments, f"VARIANT={variant}") if variant else arguments

    def argv(self, program_name: str, cc: str | None = None, variant: str | None = None) -> list[str]:
        """The start of a run's command line: the program and its fixed arguments."""
        program = PROGRAMS[program_name]
        if self.builds(program_name):
            start = [str(self.root / self.binary(program_name, cc, variant))]
        else:
            start = shlex.split(self._command(program).replace("{cc}", cc or ""))
        return [*start, *program.fixed_arguments]

    def command(self, point: Point) -> tuple[str, ...]:
        """A point's command line, all but --out: the program, its fixed arguments, the point's flags and,
        for a simulated point, its cost table (--sim_cost_table, docs/sim.md)."""
        cost_table = point.cost_table_path(self.results_dir)
        return (*self.argv(point.program, point.cc, point.variant), *point.flag_arguments(),
                *([f"--sim_cost_table={cost_table}"] if cost_table else []))
