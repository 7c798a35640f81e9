"""docs/flags.md, every program's flags, generated from the programs' own option tables (`ccbench flags-doc`).

Each flag is a row of an options table (engine/core/options.h) in the program
that defines it, and the program prints its tables: `--help` gives each
flag's type, default and help (ending in what it accepts, "; allowed: ..."),
`--config_schema` the tables by name, each with the flags it echoes in the
result's `config` (the group a flag is listed under here). This module runs
the built programs and renders what they print, so the page cannot say what
the programs do not; tests/python/test_flags_doc.py fails when the committed
docs/flags.md differs from what the built programs print.

The programs: `bin/rundb-<cc>` for every protocol of the registry (the tables
every one of them has, then each protocol's own), the simulation build's own
flags (`bin/sim/rundb-<cc>`, those the release build does not have), the
pipeline, the middle tier and the tools.
"""
from __future__ import annotations

import dataclasses
import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ccbench.report.figures_doc import cell
from ccbench.run.engine import build_binaries
from ccbench.specification import registry

# Programs with flags besides the engine, in the order of the page (Makefile: pipeline, middletier, TOOL_TARGETS).
OTHER_PROGRAMS = ("pipeline", "middletier", "bench_fvs", "bench_strife", "bench_tsgen", "bench_checker",
                  "check_history")
SIM_DIR = "sim"        # bin/sim/rundb-<cc>: the simulation build (docs/sim.md)
# Every protocol's simulation binary has the same sim flags; this one is the binary README.md's tour builds.
SIM_PROTOCOL = "silo"
REGENERATE = ".venv/bin/ccbench flags-doc > docs/flags.md"
NOT_ECHOED = "not echoed"   # the group of flags no table's echo lists (run control: where to write, what to check)
TIMEOUT_S = 30

HEADER = f"""# Flags: every program's

Generated from the programs' own option tables by `{REGENERATE}`
(it builds what is missing; `--bin DIR` reads the binaries of DIR instead); do not edit by hand:
change the flag's row (`CCB_OPTION`, engine/core/options.h) and regenerate (a test fails when the two differ).
Per program, its flags grouped by the options table that holds them (the `config` section of a result
document echoes each table's flags; `docs/result.schema.json` `$defs/<table>`), each with its type, default,
what it accepts (a bad value exits 2 naming the flag and this) and its help. `<program> --help` prints the same.
"""


@dataclass(frozen=True)
class Flag:
    name: str
    type: str
    default: str
    accepts: str
    help: str

    def row(self) -> str:
        accepts = self.accepts or ("true or false" if self.type == "bool" else "any")
        # gflags prints a double's default to 17 digits (0.59999999999999998): the shortest that reads back
        default = repr(float(self.default)).removesuffix(".0") if self.type == "double" else self.default
        return f"| `--{self.name}` | {self.type} | {cell(default)} | {cell(accepts)} | {cell(self.help)} |"


class ProgramUnavailable(Exception):
    """A program could not be run to print its tables (not built, or it failed)."""


_FLAG_LINE = re.compile(r"^  --(?P<name>[A-Za-z0-9_]+) \((?P<type>[a-z0-9]+), default (?P<default>.*)\)$")


def parse_help(text: str) -> dict[str, Flag]:
    """The flags of a program's --help: `  --name (type, default D)`, then its help indented below."""
    flags: dict[str, Flag] = {}
    current, lines = None, []

    def close() -> None:
        if current:
            text = " ".join(lines)
            help_text, _, accepts = text.partition("; allowed: ")
            flags[current["name"]] = Flag(current["name"], current["type"], current["default"], accepts, help_text)

    for line in text.splitlines():
        match = _FLAG_LINE.match(line)
        if match:
            close()
            current, lines = match.groupdict(), []
        elif current and line.startswith("      "):
            lines.append(line.strip())
        elif current and not line.strip():
            close()
            current = None
    close()
    return flags


def _output(command: Sequence[str]) -> str:
    try:
        done = subprocess.run(list(command), capture_output=True, text=True, timeout=TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ProgramUnavailable(f"{command[0]}: {error}") from error
    if done.returncode != 0:
        raise ProgramUnavailable(f"`{' '.join(command)}` exited {done.returncode}: {done.stderr.strip()[-300:]}")
    return done.stdout


@dataclass(frozen=True)
class Tables:
    """One program's flags, and the options tables (name -> flag names) that hold them."""
    flags: dict[str, Flag]
    tables: dict[str, list[str]]

    @classmethod
    def of(cls, binary: Path) -> "Tables":
        if not binary.is_file():
            raise ProgramUnavailable(f"{binary} is not built")
        flags = parse_help(_output([str(binary), "--help"]))
        schema = json.loads(_output([str(binary), "--config_schema"]) or "{}")
        tables = {name: [flag for flag in table.get("properties", {}) if flag in flags]
                  for name, table in schema.items()}
        for table in schema.values():     # a choice the help does not spell as "allowed:" (--frontend's)
            for name, fragment in table.get("properties", {}).items():
                if name in flags and not flags[name].accepts and "enum" in fragment:
                    flags[name] = dataclasses.replace(flags[name], accepts="one of " + ", ".join(fragment["enum"]))
        return cls(flags, tables)

    def unechoed(self) -> list[Flag]:
        """The flags no table echoes in a result's `config` (run control: --out, --validate_only, ...)."""
        return [flag for name, flag in sorted(self.flags.items())
                if not any(name in listed for listed in self.tables.values())]

    def groups(self, names: Sequence[str] | None = None) -> list[tuple[str, list[Flag]]]:
        """(table, its flags) for the given tables (default all; a flag two tables echo is under both), then,
        when all are shown, the flags no table echoes, as NOT_ECHOED."""
        out = [(table, [self.flags[name] for name in sorted(self.tables[table])])
               for table in (sorted(self.tables) if names is None else names) if self.tables[table]]
        if names is None and self.unechoed():
            out.append((NOT_ECHOED, self.unechoed()))
        return out


def _flag_table(flags: list[Flag]) -> list[str]:
    return ["| flag | type | default | accepts | help |", "|---|---|---|---|---|", *(flag.row() for flag in flags), ""]


def _group_lines(table: str, flags: list[Flag], where: str = "") -> list[str]:
    title = ("flags no table echoes in `config`" if table == NOT_ECHOED
             else f"`{table}`" + (f" ({where})" if where else ""))
    return [f"### {title}", "", *_flag_table(flags)]


def engine_section(bin_dir: Path) -> list[str]:
    """bin/rundb-<cc> of every registered protocol: the tables all have, then each protocol's own."""
    protocols = list(registry.protocols())
    every = {cc: Tables.of(bin_dir / f"rundb-{cc}") for cc in protocols}
    common = sorted(set.intersection(*(set(tables.tables) for tables in every.values())))
    first = every[protocols[0]]
    lines = ["## `bin/rundb-<cc>`: the engine", "",
             # The protocols are not named: the registry is their list, so
             # registering one changes no line of this page but its own table's.
             "Every protocol's binary (one per line of engine/cc/protocols.txt) has these tables; "
             "a protocol's own table is defined by its binary only (every other program refuses its flags).", ""]
    for table, flags in first.groups(common):
        lines += _group_lines(table, flags)
    for cc, tables in every.items():
        for table, flags in tables.groups(sorted(set(tables.tables) - set(common))):
            lines += _group_lines(table, flags, f"`bin/rundb-{cc}` only")
    return lines + _group_lines(NOT_ECHOED, first.unechoed())     # the same in every binary


def sim_section(bin_dir: Path) -> list[str]:
    """The simulation build's flags that the release build does not have (docs/sim.md)."""
    native = Tables.of(bin_dir / f"rundb-{SIM_PROTOCOL}")
    simulated = Tables.of(bin_dir / SIM_DIR / f"rundb-{SIM_PROTOCOL}")
    own = [flag for name, flag in sorted(simulated.flags.items()) if name not in native.flags]
    return ["## `bin/sim/rundb-<cc>`: the simulation build's own flags", "",
            "Besides every flag of `bin/rundb-<cc>`: the simulation (`make build VARIANT=sim`, docs/sim.md). "
            "There `--threads` is the number of virtual cores and `--duration` and `--warmup` are virtual "
            "seconds.", "", *_flag_table(own)]


def program_section(bin_dir: Path, name: str) -> list[str]:
    """A program's flags by table; a program without tables (the tools: no result `config`) in one list."""
    tables = Tables.of(bin_dir / name)
    if not tables.tables:
        return [f"## `bin/{name}`", "", *_flag_table(list(tables.flags.values()))]
    lines = [f"## `bin/{name}`", ""]
    for table, flags in tables.groups():
        lines += _group_lines(table, flags)
    return lines


SECTIONS = [engine_section, sim_section,
            *(lambda directory, name=name: program_section(directory, name) for name in OTHER_PROGRAMS)]


def sections(bin_dir: Path, *, skip_unavailable: bool = False) -> tuple[dict[str, str], list[str]]:
    """Each section of the page by its heading line (the engine, the simulation, each other program), and
    why the sections left out were (skip_unavailable: a program not built; otherwise that raises)."""
    out, skipped = {}, []
    for make in SECTIONS:
        try:
            lines = make(bin_dir)
        except ProgramUnavailable as error:
            if not skip_unavailable:
                raise
            skipped.append(str(error))
            continue
        out[lines[0]] = "\n".join(lines).rstrip("\n")
    return out, skipped


def build(root: Path) -> str | None:
    """Bring every program of the page up to date with make (a no-op when they are); why not, or None."""
    protocols = list(registry.protocols())
    programs = [*(f"bin/rundb-{cc}" for cc in protocols), *(f"bin/{name}" for name in OTHER_PROGRAMS)]
    return (build_binaries(root, ["build", "tools", "pipeline", "middletier"], programs)
            or build_binaries(root, [f"CC={SIM_PROTOCOL}", "VARIANT=sim"], [f"bin/{SIM_DIR}/rundb-{SIM_PROTOCOL}"]))


def markdown(bin_dir: Path) -> str:
    return HEADER + "".join(f"\n{text}\n" for text in sections(bin_dir)[0].values())


def stale_sections(bin_dir: Path, committed: str) -> tuple[list[str], list[str]]:
    """Against a committed page: (the headings of the sections whose programs now print something else,
    header included; why the sections of programs not built there were not compared)."""
    generated, skipped = sections(bin_dir, skip_unavailable=True)
    parts = re.split(r"^(?=## )", committed, flags=re.M)
    written = {part.splitlines()[0]: part.rstrip("\n") for part in parts[1:]}
    stale = [] if parts[0] == HEADER + "\n" else ["(the header)"]
    stale += [heading for heading, text in generated.items() if written.get(heading) != text]
    return stale, skipped
