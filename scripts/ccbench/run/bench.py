"""Engine benchmarks: `ccbench bench`, `ccbench compare` and `ccbench cost` on fixed grids, and
`ccbench versus`, two protocols head to head on one point.

A grid is a config, configs/bench/<name>.yaml (GRID_SCHEMA): flags every run
gets (`run`), blocks of points (`grid`: a `base` and `axes` swept as a
cartesian product, the first axis outermost) run by every protocol (the
innermost loop), repetitions (round-robin: every point once, then again),
and for `bench` the front-end benchmarks printed after the table (`tools`).
The protocols are the registry's (engine/cc/protocols.txt): the serializable
ones, and with `unserializable: one_worker` also those without concurrency
control, on one worker (the floor of the cost table). A protocol runs only
the workloads the registry says it accepts.

The runs go through the figures' runner (runner.run_tasks): the binaries are
built as needed (`make CC=<cc>`; the profile build's for --profile runs), each
run is a record in the result store under its key, a progress bar counts the
runs, and a run stored from the same binary is not run again (--rerun
measures everything again; `compare` and `versus` always do, both sides
interleaved).
Each table is printed and written to <results>/tables/bench/<name>.csv.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import shlex
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import pandas as pd

from ccbench.errors import ConfigError, UsageError, did_you_mean, unknown_name
from ccbench.fileio import load_yaml, write_atomically
from ccbench.load import DEFAULT_THRESHOLD_CORES, is_noisy
from ccbench.run.backends import LocalBackend
from ccbench.run.engine import STATUS_OK, Task, build_binaries
from ccbench.run.interface import refusal, unlisted_flags
from ccbench.run.runner import run_tasks, tasks_for
from ccbench.run.store import ResultStore
from ccbench.run.workspace import Workspace
from ccbench.specification import registry, schema
from ccbench.specification.metrics import metric_value, rate_text
from ccbench.specification.points import Point
from ccbench.specification.programs import ENGINE, PROGRAMS

UNSERIALIZABLE_EXCLUDE, UNSERIALIZABLE_ONE_WORKER = "exclude", "one_worker"
EXIT_OK, EXIT_RUNS_FAILED = 0, 1

GRID_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["description", "run", "timeout_s", "grid"],
    "properties": {
        "description": schema.TEXT,
        "run": schema.PARAMETERS,                 # every run: its length (duration, warmup)
        "timeout_s": schema.POSITIVE_NUMBER,      # per run
        "repetitions": schema.POSITIVE_INT,       # round-robin rounds (default 1)
        "unserializable": {"enum": [UNSERIALIZABLE_EXCLUDE, UNSERIALIZABLE_ONE_WORKER]},
        "grid": {"type": "array", "minItems": 1, "items": {
            "type": "object",
            "additionalProperties": False,
            "required": ["base"],
            "properties": {"note": schema.TEXT, "base": schema.PARAMETERS, "axes": schema.AXES},
        }},
        "tools": {"type": "array", "items": {"enum": sorted(name for name in PROGRAMS if name != ENGINE)}},
        "protocols": {"type": "array", "minItems": 1, "items": schema.TEXT},   # the default --protocols
    },
}


@dataclass(frozen=True)
class Block:
    base: dict
    axes: dict[str, list]


@dataclass(frozen=True)
class Grid:
    name: str
    path: Path
    description: str
    run: dict
    timeout_s: float
    repetitions: int
    unserializable: str
    blocks: tuple[Block, ...]
    tools: tuple[str, ...]
    default_protocols: tuple[str, ...] = ()   # `protocols:`, what runs when --protocols names none

    @classmethod
    def load(cls, workspace: Workspace, name: str) -> "Grid":
        directory = workspace.configs_dir / "bench"
        path = directory / f"{name}.yaml"
        if not path.is_file():
            known = sorted(p.stem for p in directory.glob("*.yaml"))
            raise UsageError(f"unknown grid '{name}'; grids (configs/bench/): {', '.join(known) or 'none'}")
        document = load_yaml(path)
        problems = schema.validation_problems(document, GRID_SCHEMA)
        for index, block in enumerate(document.get("grid", []) if not problems else []):
            for name_ in sorted(set(block["base"]) & set(block.get("axes", {}))):
                problems.append((f"grid[{index}].axes.{name_}", "also set in base; a flag is either fixed or swept"))
            for name_ in sorted(set(document["run"]) & (set(block["base"]) | set(block.get("axes", {})))):
                problems.append((f"grid[{index}]", f"'{name_}' is also set in run; set it in one place"))
        if problems:
            raise ConfigError.many([(str(path), where, message) for where, message in problems])
        return cls(name, path, document["description"], dict(document["run"]), float(document["timeout_s"]),
                   document.get("repetitions", 1), document.get("unserializable", UNSERIALIZABLE_EXCLUDE),
                   tuple(Block(dict(b["base"]), dict(b.get("axes", {}))) for b in document["grid"]),
                   tuple(document.get("tools", [])), tuple(document.get("protocols", [])))

    def with_overrides(self, flags: dict | None = None, run: dict | None = None,
                       repetitions: int | None = None) -> "Grid":
        """The grid with flags fixed in every block (an axis of that name is dropped), run-length flags
        replaced, or another number of repetitions."""
        flags, run = flags or {}, run or {}
        blocks = tuple(Block({**b.base, **flags}, {k: v for k, v in b.axes.items() if k not in flags})
                       for b in self.blocks)
        return dataclasses.replace(self, blocks=blocks, run={**self.run, **run},
                                   repetitions=repetitions or self.repetitions)

    def protocols(self, workspace: Workspace, requested: Sequence[str] = ()) -> list[str]:
        """The protocols that run the grid: `requested` (checked against the registry), else the grid's own
        `protocols:`, else every one the grid admits (the unserializable ones first, the floor); with a custom
        engine command, only those whose command names an existing file."""
        known = registry.protocols()
        admitted = [name for name, p in known.items()
                    if p.serializable or self.unserializable == UNSERIALIZABLE_ONE_WORKER]
        admitted.sort(key=lambda name: (known[name].serializable, name))
        field = "--protocols" if requested else f"{self.path}: protocols"
        requested = requested or self.default_protocols
        for name in requested:
            if name not in admitted:
                raise UsageError(f"{field}: '{name}' cannot run grid '{self.name}'{did_you_mean(name, admitted)}; "
                                 f"allowed: {','.join(admitted)}"
                                 + ("" if name in known else " (engine/cc/protocols.txt)"))
        if requested:
            return list(dict.fromkeys(requested))
        if workspace.builds_engine:
            return admitted
        return [name for name in admitted if Path(shlex.split(workspace.engine.replace("{cc}", name))[0]).is_file()]

    def origins(self, name: str) -> list[str]:
        """Where the grid sets a flag: run.<name>, grid[i].base.<name>, grid[i].axes.<name>."""
        places = [f"run.{name}"] if name in self.run else []
        for index, block in enumerate(self.blocks):
            places += [f"grid[{index}].{part}.{name}" for part, flags in (("base", block.base), ("axes", block.axes))
                       if name in flags]
        return places or ["grid"]

    def check_flags(self, workspace: Workspace, points: Sequence[Point]) -> None:
        """Every flag is one the built engine lists (`--list_flags`): one error per misspelt flag."""
        problems = [(str(self.path), place, f"the engine has no flag --{name} (`{binary} --list_flags` lists them)")
                    for name, binary in unlisted_flags(points, workspace) for place in self.origins(name)]
        if problems:
            raise ConfigError.many(sorted(set(problems)))

    def points(self, workspace: Workspace, protocols: Sequence[str]) -> list[Point]:
        """Every run, round-robin: repetition by repetition, block by block, axis values, then protocol.
        Repetition r runs with seed 1 + r."""
        known, workloads = registry.protocols(), registry.workloads()
        points = []
        for repetition in range(self.repetitions):
            for block in self.blocks:
                for values in itertools.product(*block.axes.values()):
                    coords = tuple(zip(block.axes, values))
                    for cc in protocols:
                        flags = {**self.run, **block.base, **dict(coords), "seed": 1 + repetition}
                        workload = workloads.get(str(flags.get("workload")))
                        if workload is not None and not registry.runs(known[cc], workload):
                            continue
                        if not known[cc].serializable:
                            flags["threads"] = 1   # no concurrency control: correct on one worker only
                        points.append(Point(f"bench:{self.name}", cc, coords, repetition, cc,
                                            tuple(sorted(flags.items())), self.timeout_s))
        return points


def describe(flags: dict) -> str:
    """A point in a table row: its workload and what distinguishes it (not its run length or threads)."""
    if flags.get("workload") == "ycsb":
        return (f"ycsb rows={int(flags.get('table_size', 0)):,} B={flags.get('payload_size', 100)} "
                f"theta={flags.get('theta')}")
    if flags.get("workload") == "tpcc":
        return f"tpcc wh={flags.get('warehouses')} {flags.get('mix')}"
    hidden = {"workload", "threads", "seed", "duration", "warmup", "memory_bound", "profile"}
    return " ".join([str(flags.get("workload"))] + [f"{k}={v}" for k, v in sorted(flags.items()) if k not in hidden])


def ns_per_txn(result: dict) -> float:
    """Worker nanoseconds per committed transaction: threads x measured seconds / commits."""
    return result["config"]["threads"] * result["phases"]["measured_s"] * 1e9 / max(result["commits"], 1)


def failure_text(record: dict | None, reason: str | None = None) -> str:
    """Why a run gave no row: the runner's failure and the program's last stderr line, or why it did not run."""
    if record is None:
        return f"not run: {reason or 'no record'}"
    last = [line for line in (record.get("stderr_tail") or "").splitlines() if line.strip()][-1:]
    return f"failed ({record['failure']})" + (f": {last[0]}" if last else "")


def _tasks(points: Sequence[Point], workspace: Workspace) -> list[Task]:
    return list(tasks_for([], workspace, points).values())


def _run(tasks: list[Task], workspace: Workspace, description: str, *, rerun: bool, progress: bool,
         check=lambda: None):
    summary = run_tasks(tasks, workspace, LocalBackend(), description=description, rerun=rerun, progress=progress,
                        before_running=check)
    print(summary.describe(), file=sys.stderr)
    store = ResultStore(workspace.runs_dir)
    return summary, {task.key: store.get(task.key) for task in tasks}


def _ok(record: dict | None) -> bool:
    return record is not None and record["status"] == STATUS_OK


def _write_table(workspace: Workspace, name: str, rows: list[dict]) -> Path:
    path = workspace.results_dir / "tables" / "bench" / f"{name}.csv"
    write_atomically(path, lambda temporary: pd.DataFrame(rows).to_csv(temporary, index=False))
    return path


# ---------------------------------------------------------------------------------------------- ccbench bench

ENGINE_HEADER = (f"{'cc':<10} {'point':<40} {'thr':>3} {'txn/s':>11} {'ns/txn/thr':>10} {'ns/acc':>7} {'x bound':>7} "
                 f"{'abort%':>6} {'p99 us':>8} {'load s':>6} {'peak MiB':>8}")


def with_memory_bound(points: list[Point]) -> list[Point]:
    """The first YCSB run on each table size (rows, payload) also measures the memory bound (--memory_bound)."""
    seen, marked = set(), []
    for point in points:
        flags = dict(point.flags)
        tables = (flags.get("table_size"), flags.get("payload_size", 100))
        if flags.get("workload") == "ycsb" and tables not in seen:
            seen.add(tables)
            point = dataclasses.replace(point, flags=tuple(sorted({**flags, "memory_bound": True}.items())))
        marked.append(point)
    return marked


def with_profile(point: Point) -> Point:
    """The point run with --profile (by the profile build): its time shares for `cost` and `account`."""
    return dataclasses.replace(point, flags=tuple(sorted({**dict(point.flags), "profile": True}.items())))


def bench(workspace: Workspace, grid: Grid, protocols: Sequence[str], *, rerun: bool, progress: bool) -> int:
    """The engine table of a grid (`make bench`, `make demo`), then its tools' own output."""
    points = with_memory_bound(grid.points(workspace, protocols))
    tasks = _tasks(points, workspace)
    summary, records = _run(tasks, workspace, f"bench {grid.name}", rerun=rerun, progress=progress,
                            check=lambda: grid.check_flags(workspace, points))
    template = workspace.command_template(ENGINE)
    print(ENGINE_HEADER)
    print("-" * len(ENGINE_HEADER))
    bounds: dict[tuple, dict] = {}   # (rows, payload) -> the memory bound measured on those tables
    rows = []
    for point in points:
        key = point.key(template)
        record, flags = records.get(key), dict(point.flags)
        label = describe(flags) + (f" rep {point.repetition}" if grid.repetitions > 1 else "")
        row = {"cc": point.cc, "point": label, "threads": point.threads, "key": key}
        if not _ok(record):
            row["failure"] = failure_text(record, summary.skipped.get(key))
            print(f"{point.cc:<10} {label:<40} {row['failure']}")
            rows.append(row)
            continue
        result = record["result"]
        ns = ns_per_txn(result)
        tables = (flags.get("table_size"), flags.get("payload_size", 100))
        if "memory_bound" in result:
            bounds[tables] = result["memory_bound"]
        row.update(throughput=result["throughput"], ns_per_txn_thread=ns, abort_rate=result["abort_rate"],
                   p99_us=result["latency_us"]["p99"], load_s=result["phases"]["load_s"],
                   peak_mib=result["memory"]["peak_rss_bytes"] / 2**20)
        per_access = ratio = ""
        if flags.get("workload") == "ycsb":
            row["ns_per_access"] = ns / flags["req_per_txn"]
            per_access = f"{row['ns_per_access']:,.0f}"
            if tables in bounds:
                row["x_bound"] = row["ns_per_access"] / bounds[tables]["access_bound_ns"]
                ratio = f"{row['x_bound']:.2f}"
        rows.append(row)
        print(f"{point.cc:<10} {label:<40} {point.threads:>3} {row['throughput']:>11,.0f} {ns:>10,.0f} "
              f"{per_access:>7} {ratio:>7} {100 * row['abort_rate']:>6.1f} {row['p99_us']:>8.1f} "
              f"{row['load_s']:>6.2f} {row['peak_mib']:>8.0f}")
    for (table_rows, payload), bound in bounds.items():
        mlp = ", ".join(f"{k} chains {v:.1f}" for k, v in bound["mlp_ns_per_access"].items())
        print(f"\nmemory bound, YCSB {int(table_rows):,} rows x {payload} B ({bound['buffer_bytes'] / 2**20:,.0f} MiB "
              f"buffer, THP {bound['transparent_hugepages']}): latency {bound['latency_ns']:.1f} ns, bound per "
              f"access {bound['access_bound_ns']:.1f} ns; ns per access with independent chases: {mlp}")
    path = _write_table(workspace, grid.name, rows)
    print(f"\ntable: {path}; runs: {workspace.runs_dir}/")
    status = run_tools(workspace, grid.tools)
    return EXIT_RUNS_FAILED if summary.problems or status else EXIT_OK


def run_tools(workspace: Workspace, tools: Sequence[str]) -> int:
    """The front-end benchmarks with their default settings, their own tables printed as they are; built with
    `make tools` first unless --program gives a command. Returns 1 if one could not be built or failed."""
    status = 0
    for tool in tools:
        print(f"\n== {tool} ==", flush=True)
        program = PROGRAMS[tool]
        if workspace.builds(tool):
            problem = build_binaries(workspace.root, list(program.make_arguments), [program.binary])
            if problem:
                print(f"{tool}: {problem}", flush=True)
                status = 1
                continue
            command = [str(workspace.root / program.binary)]
        else:
            command = shlex.split(workspace.program_commands[tool])
        status |= subprocess.run(command, check=False).returncode != 0
    return status


# -------------------------------------------------------------------------------------------- ccbench compare

def interleaved(groups: dict[tuple, list[Point]], sides: Sequence, task_of) -> tuple[list[Task], dict[tuple, list]]:
    """Each group's repetitions run by both sides, which goes first alternating (A B, B A, A B, ...), so a
    noisy machine's drift hits both alike: (the tasks in that order, {(group, side): their keys})."""
    order, keys_of = [], {}
    for group, repetitions in groups.items():
        for point in repetitions:
            for side in (sides if point.repetition % 2 == 0 else sides[::-1]):
                task = task_of(side, point)
                keys_of.setdefault((group, side), []).append(task.key)
                order.append(task)
    return order, keys_of


def engine_directory_workspace(workspace: Workspace, directory: Path) -> Workspace:
    """A workspace whose engine is the rundb-<cc> binaries of a directory, taken as they are (never built)."""
    if not directory.is_dir():
        raise UsageError(f"compare: {directory} is not a directory of rundb-<cc> binaries")
    return dataclasses.replace(workspace, engine=shlex.quote(str(directory.resolve() / "rundb-{cc}")))


def compare(workspace: Workspace, grid: Grid, before: Path, after: Path, repeats: int, requested: Sequence[str], *,
            progress: bool) -> int:
    """Every point of the grid run by both sets of binaries, interleaved (B A, A B, B A, ...: `repeats` runs
    of each), so a noisy machine's drift hits both alike; the table has each side's median throughput."""
    if repeats < 1:
        raise UsageError(f"--repeats {repeats}: must be at least 1")
    if before.resolve() == after.resolve():
        raise UsageError(f"compare: BEFORE and AFTER are the same directory ({before}); for an A/A run of the "
                         f"machine's noise, compare a copy of it")
    sides = {"before": engine_directory_workspace(workspace, before),
             "after": engine_directory_workspace(workspace, after)}
    protocols = [cc for cc in grid.protocols(workspace, requested)
                 if all((directory / f"rundb-{cc}").is_file() for directory in (before, after))]
    if not protocols:
        raise UsageError(f"compare: no rundb-<cc> of grid '{grid.name}' in both {before} and {after}"
                         + (f" (--protocols {','.join(requested)})" if requested else ""))
    points = grid.with_overrides(repetitions=repeats).points(workspace, protocols)
    groups: dict[tuple, list[Point]] = {}   # a point's repetitions, by protocol and flags but the seed
    for point in points:
        groups.setdefault((point.cc, tuple(flag for flag in point.flags if flag[0] != "seed")), []).append(point)
    # Either directory may hold a build of another revision, whose result document follows that revision's
    # schema (a flag added since is echoed by one side only): compare checks the program's required fields,
    # which every revision writes (throughput among them), not today's whole schema.
    order, tasks_of = interleaved(groups, ("before", "after"), lambda side, point: dataclasses.replace(
        _tasks([point], sides[side])[0], check_schema=False))
    summary, records = _run(order, sides["before"], "compare", rerun=True, progress=progress)
    print(f"before: {before}\nafter:  {after}\n{repeats} interleaved runs of each per point; median throughput\n")
    print("| cc | point | before txn/s | after txn/s | after/before |\n|---|---|---:|---:|---:|")
    ratios, rows = [], []
    for group, repetitions in groups.items():
        point = repetitions[0]
        label = f"{describe(dict(point.flags))} threads={point.threads}"
        side_records = {side: [records.get(key) for key in tasks_of[(group, side)]] for side in sides}
        bad = next((r for side in sides for r in side_records[side] if not _ok(r)), False)
        row = {"cc": point.cc, "point": label, "threads": point.threads}
        if bad is not False:
            row["failure"] = failure_text(bad, "no record")
            print(f"| {point.cc} | {label} | {row['failure']} |||")
        else:
            b, a = (statistics.median(r["result"]["throughput"] for r in side_records[side]) for side in sides)
            ratios.append(a / b)
            row.update(before=b, after=a, ratio=a / b)
            print(f"| {point.cc} | {label} | {b:,.0f} | {a:,.0f} | {a / b:.3f} |")
        rows.append(row)
    if ratios:
        geometric = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\n{len(ratios)} points: geometric mean after/before {geometric:.3f}, "
              f"min {min(ratios):.3f}, max {max(ratios):.3f}")
    print(f"table: {_write_table(workspace, f'compare-{grid.name}', rows)}")
    return EXIT_RUNS_FAILED if summary.problems or len(ratios) < len(groups) else EXIT_OK


# --------------------------------------------------------------------------------------------- ccbench versus

VERSUS_TIMEOUT_S = 600


def engine_flags(words: Sequence[str]) -> dict[str, object]:
    """`--name=value` words (the engine's own spelling) as flags; a bare `--name` is true."""
    flags = {}
    for word in words:
        name, equals, value = word.removeprefix("--").partition("=")
        if not word.startswith("--") or not name:
            raise UsageError(f"versus: {word!r} is not an engine flag; write engine flags as --name=value "
                             f"(`bin/rundb-<cc> --help` lists them)")
        if name == "cc":
            raise UsageError("versus: --cc is not an engine flag; the two protocols are the first two arguments")
        flags[name] = value if equals else True
    return flags


def versus(workspace: Workspace, protocols: Sequence[str], words: Sequence[str], repeats: int, *,
           progress: bool) -> int:
    """Two protocols on the same engine flags, `repeats` runs of each interleaved (A B, B A, ...; repetition r
    with seed 1 + r unless --seed is given): each one's median throughput and abort rate with their spread
    (min-max over the runs) and noisy runs, and the ratio of the medians with the spread of the paired runs'.
    The engine flags are checked by the binaries themselves before anything runs (as a figure's are)."""
    known = registry.protocols()
    if len(protocols) != 2 or protocols[0] == protocols[1]:
        raise UsageError(f"versus: name two different protocols, not {' '.join(protocols)}")
    for cc in protocols:
        if cc not in known:
            raise UsageError(f"versus: {unknown_name(cc, known, 'protocol')}")
    if repeats < 1:
        raise UsageError(f"--repeats {repeats}: must be at least 1")
    flags = engine_flags(words)
    points = [Point("versus", "versus", (), repetition, None,
                    tuple(sorted({"seed": 1 + repetition, **flags}.items())), VERSUS_TIMEOUT_S)
              for repetition in range(repeats)]
    problem = _build_engines(workspace, protocols)
    if problem:
        print(f"ccbench: {problem}", file=sys.stderr)
        return EXIT_RUNS_FAILED
    check_engine_flags(workspace, [dataclasses.replace(points[0], series=cc, cc=cc) for cc in protocols], "versus")

    def task_of(cc: str, point: Point) -> Task:
        return _tasks([dataclasses.replace(point, series=cc, cc=cc)], workspace)[0]

    order, keys_of = interleaved({(): points}, tuple(protocols), task_of)
    summary, records = _run(order, workspace, "versus", rerun=True, progress=progress)
    runs = {cc: [records.get(key) for key in keys_of[((), cc)]] for cc in protocols}
    results = {cc: [record["result"] for record in side if _ok(record)] for cc, side in runs.items()}
    echoed = next((side[0]["config"] for side in results.values() if side), None)   # the engine's defaults too
    point = f"{describe(echoed)} threads={echoed['threads']}" if echoed else " ".join(words) or "the defaults"
    print(f"{protocols[0]} vs {protocols[1]}: {point}; {repeats} interleaved run(s) of each, "
          f"median and min-max over the runs")
    print("\n| cc | txn/s | txn/s min-max | abort rate | abort rate min-max | runs ok | noisy |"
          "\n|---|---:|---:|---:|---:|---:|---:|")
    medians = {}
    for cc, side in results.items():
        noisy = sum(is_noisy(record) for record in runs[cc])
        if len(side) < repeats:
            bad = next(record for record in runs[cc] if not _ok(record))
            print(f"| {cc} | {failure_text(bad, 'no record')} | | | | {len(side)} / {repeats} | {noisy} |")
            continue
        throughputs = [result["throughput"] for result in side]
        abort_rates = [metric_value(result, "abort_rate") for result in side]
        medians[cc] = statistics.median(throughputs)
        print(f"| {cc} | {medians[cc]:,.0f} | {min(throughputs):,.0f}-{max(throughputs):,.0f} | "
              f"{rate_text(statistics.median(abort_rates))} | {rate_text(min(abort_rates))}-"
              f"{rate_text(max(abort_rates))} | {len(side)} / {repeats} | {noisy} |")
    if len(medians) == 2:
        first, second = protocols
        pairs = [b["throughput"] / a["throughput"] for a, b in zip(results[first], results[second])]
        print(f"\n{second}/{first} throughput: {medians[second] / medians[first]:.3f} (ratio of the medians; "
              f"{min(pairs):.3f}-{max(pairs):.3f} over the {len(pairs)} pair(s) of runs)")
        print("abort rate = aborts / (commits + aborts) (docs/results.md)")
    noisy = sum(is_noisy(record) for side in runs.values() for record in side)
    if noisy:
        print(f"{noisy} of {2 * repeats} runs were noisy: other processes used more than "
              f"{DEFAULT_THRESHOLD_CORES:g} cores while they ran, so their numbers may be off (run again on a quiet "
              f"machine, or with more --repeats)")
    return EXIT_RUNS_FAILED if summary.problems or len(medians) < 2 else EXIT_OK


def _build_engines(workspace: Workspace, protocols: Sequence[str]) -> str | None:
    """Build the protocols' engine binaries (make CC=<cc>) when the engine is the default one: the problem,
    or None."""
    if not workspace.builds_engine:
        return None
    for cc in protocols:
        problem = build_binaries(workspace.root, list(workspace.make_arguments(ENGINE, cc)),
                                 [workspace.binary(ENGINE, cc)])
        if problem:
            return problem
    return None


def check_engine_flags(workspace: Workspace, points: Sequence[Point], command: str) -> None:
    """Engine flags typed on a command line, checked by the (built) binaries before anything runs, as a figure
    config's are (run/interface.py): a flag a binary does not list, or a value it refuses (--validate_only),
    is a UsageError of one line naming the flag and what the binary allows."""
    problems = [f"the engine has no flag --{name} (`{binary} --list_flags` lists them)"
                for name, binary in unlisted_flags(points, workspace)]
    if problems:
        raise UsageError(f"{command}: " + "; ".join(dict.fromkeys(problems)))
    for point in points:
        refused = refusal(workspace.command(point))
        if refused is not None:
            raise UsageError(f"{command}: {refused[1]} (`{Path(workspace.command(point)[0]).name} "
                             f"--validate_only`)")


# ----------------------------------------------------------------------------------------------- ccbench cost

COST_PARTS = ("index", "lock", "execute", "validation", "abort")


def cost(workspace: Workspace, grid: Grid, protocols: Sequence[str], *, rerun: bool, progress: bool) -> int:
    """ns per access of every protocol with prefetching on and off (the median of the grid's round-robin
    repetitions), then one --profile run per protocol, in the profile build, whose time shares split the
    prefetching median into index, lock, execute, validation and abort (docs/protocols.md, "Cost per access")."""
    if len(grid.blocks) != 1 or list(grid.blocks[0].axes) != ["prefetch"] \
            or sorted(grid.blocks[0].axes["prefetch"]) != [False, True] or "req_per_txn" not in grid.blocks[0].base:
        raise ConfigError(grid.path, "grid", "the cost table needs one block with req_per_txn in its base and "
                          "the one axis prefetch: [true, false]")
    points = grid.points(workspace, protocols)
    profiled = [with_profile(p) for p in points if p.repetition == 0 and dict(p.flags)["prefetch"] is True]
    summary, records = _run(_tasks(points + profiled, workspace), workspace, "cost", rerun=rerun,
                            progress=progress, check=lambda: grid.check_flags(workspace, points + profiled))
    template = workspace.command_template(ENGINE)
    per_access: dict[tuple[str, bool], list[float]] = {}
    failures: dict[str, str] = {}
    for point in points:
        record, flags = records.get(point.key(template)), dict(point.flags)
        if _ok(record):
            per_access.setdefault((point.cc, flags["prefetch"]), []).append(
                ns_per_txn(record["result"]) / flags["req_per_txn"])
        else:
            failures.setdefault(point.cc, failure_text(record, summary.skipped.get(point.key(template))))
    base = grid.blocks[0].base
    unserializable = [cc for cc in protocols if not registry.protocols()[cc].serializable]
    print(f"{describe(base)}, {base['req_per_txn']} accesses, {base.get('threads')} threads"
          + (f" ({', '.join(unserializable)} 1)" if unserializable else "")
          + f"; ns per access, median of {grid.repetitions} round-robin runs\n")
    print("| protocol | no prefetch | prefetch | gain | " + " | ".join(COST_PARTS) + " | abort rate |")
    print("|---|---:|---:|---:|" + "---:|" * len(COST_PARTS) + "---:|")
    rows = []
    for point in profiled:
        cc, record = point.cc, records.get(point.key(template))
        if cc in failures or not _ok(record):
            failure = failures.get(cc) or f"profile run {failure_text(record, summary.skipped.get(point.key(template)))}"
            rows.append({"protocol": cc, "failure": failure})
            print(f"| {cc} | {failure} |" + "|" * (len(COST_PARTS) + 3))
            continue
        seconds = record["result"]["profile"]["seconds"]
        total = sum(seconds.values()) or 1.0
        on, off = statistics.median(per_access[(cc, True)]), statistics.median(per_access[(cc, False)])
        parts = {part: seconds[part] / total * on for part in COST_PARTS}
        rows.append({"protocol": cc, "no_prefetch": off, "prefetch": on, "gain": off / on, **parts,
                     "abort_rate": record["result"]["abort_rate"]})
        print(f"| {cc} | {off:.0f} | {on:.0f} | {off / on:.2f}x | "
              + " | ".join(f"{parts[part]:.0f}" for part in COST_PARTS)
              + f" | {100 * record['result']['abort_rate']:.2f} % |")
    print(f"\ntable: {_write_table(workspace, 'cost', rows)}")
    return EXIT_RUNS_FAILED if summary.problems or failures else EXIT_OK


# -------------------------------------------------------------------------------------------- ccbench account

# Where a worker's time per committed transaction goes: the committed attempt's four parts (the execution
# profile's), the aborted attempts before it, the waits after them, and the worker's time between attempts.
ACCOUNT_PARTS = ("index", "lock", "execute", "validation", "aborted", "backoff", "outside")


def profile_parts(result: dict) -> dict[str, float]:
    """A --profile result's worker-seconds in ACCOUNT_PARTS: `outside` is the measured worker time no attempt
    and no wait after an abort holds (the next request: its generation and key draws, the statistics, the loop)."""
    seconds, abort = result["profile"]["seconds"], result["profile"]["abort_seconds"]
    worker_s = result["config"]["threads"] * result["phases"]["measured_s"]
    return {"index": seconds["index"], "lock": seconds["lock"], "execute": seconds["execute"],
            "validation": seconds["validation"], "aborted": abort["attempts"], "backoff": abort["backoff"],
            "outside": max(0.0, worker_s - sum(seconds.values()))}


def account(workspace: Workspace, grid: Grid, protocols: Sequence[str], *, rerun: bool, progress: bool) -> int:
    """The account of a committed transaction at each point of the grid (`make bench-account`, issue 62): the
    median worker ns per commit of the grid's round-robin repetitions (release build) split in the shares of
    one --profile run of the point (profile build) into ACCOUNT_PARTS, with the attempts per commit."""
    points = grid.points(workspace, protocols)
    profiled = [with_profile(p) for p in points if p.repetition == 0]
    summary, records = _run(_tasks(points + profiled, workspace), workspace, f"account {grid.name}", rerun=rerun,
                            progress=progress, check=lambda: grid.check_flags(workspace, points + profiled))
    template = workspace.command_template(ENGINE)
    per_commit: dict[tuple, list[float]] = {}   # (cc, coords) -> each repetition's ns per commit
    throughputs: dict[tuple, list[float]] = {}  # and its throughput
    failures: dict[tuple, str] = {}
    for point in points:
        record, where = records.get(point.key(template)), (point.cc, point.coords)
        if _ok(record):
            per_commit.setdefault(where, []).append(ns_per_txn(record["result"]))
            throughputs.setdefault(where, []).append(record["result"]["throughput"])
        else:
            failures.setdefault(where, failure_text(record, summary.skipped.get(point.key(template))))
    print(f"{grid.description.strip()}\nworker ns per committed transaction (median of {grid.repetitions} "
          f"round-robin runs), split in the shares of one --profile run\n")
    print("| protocol | point | txn/s | attempts/commit | ns/commit | " + " | ".join(ACCOUNT_PARTS) + " |")
    print("|---|---|---:|---:|---:|" + "---:|" * len(ACCOUNT_PARTS))
    rows = []
    for point in profiled:
        where, record = (point.cc, point.coords), records.get(point.key(template))
        label = describe(dict(point.flags))
        skipped = summary.skipped.get(point.key(template))
        failure = failures.get(where) or (None if _ok(record) else f"profile run {failure_text(record, skipped)}")
        if failure:
            rows.append({"protocol": point.cc, "point": label, "failure": failure})
            print(f"| {point.cc} | {label} | {failure} |" + "|" * (len(ACCOUNT_PARTS) + 2))
            continue
        result, ns = record["result"], statistics.median(per_commit[where])
        seconds = profile_parts(result)
        total = sum(seconds.values()) or 1.0
        parts = {part: seconds[part] / total * ns for part in ACCOUNT_PARTS}
        attempts = (result["commits"] + result["aborts"]) / max(result["commits"], 1)
        throughput = statistics.median(throughputs[where])
        rows.append({"protocol": point.cc, "point": label, "throughput": throughput, "attempts_per_commit": attempts,
                     "ns_per_commit": ns, **parts})
        print(f"| {point.cc} | {label} | {throughput:,.0f} | {attempts:.2f} | {ns:,.0f} | "
              + " | ".join(f"{parts[part]:,.0f}" for part in ACCOUNT_PARTS) + " |")
    print(f"\ntable: {_write_table(workspace, grid.name, rows)}")
    return EXIT_RUNS_FAILED if summary.problems or failures else EXIT_OK
