"""Command line: ccbench COMMAND ... (.venv/bin/ccbench, installed by scripts/install-deps.sh; also
python -m ccbench); `ccbench COMMAND --help` says more of each command.

Exit status: 0 all good; 1 some run failed or could not run (the rest is
done and stored); 2 bad configuration or command line; 130 interrupted.
"""
from __future__ import annotations

import argparse
import functools
import math
import os
import sys
from pathlib import Path
from typing import Callable

from ccbench.analysis.decide import run_until_decided
from ccbench.errors import ConfigError, UsageError, did_you_mean, unknown_name
from ccbench.fileio import REPOSITORY_ROOT
from ccbench.load import DEFAULT_QUIET_WAIT_S, DEFAULT_THRESHOLD_CORES
from ccbench.report import figures_doc, flags_doc
from ccbench.report.fidelity import FIDELITY_FIGURES, Settings, write_fidelity
from ccbench.report.pipeline import FigureOutcome, load_catalog, process_figure
from ccbench.report import reproduction_page
from ccbench.report.reproduction import ReportEntry, write_report
from ccbench.run import bench, soak
from ccbench.run.backends import QuietBackend, make_backend
from ccbench.run.budget import budget
from ccbench.run.engine import build_binaries
from ccbench.run.runner import run_sweep
from ccbench.run.store import figures_run, record_figures_run
from ccbench.run.workspace import Workspace
from ccbench.sim import calibration, point, workscale
from ccbench.specification import registry
from ccbench.specification.config import (FigureConfig, Profile, ResolvedFigure, figure_config_paths, find_figure,
                                          load_profiles)
from ccbench.specification.programs import ENGINE, SIM_VARIANT
from ccbench.specification.schema import DEFAULT_COST_TABLE

EXIT_OK, EXIT_RUNS_FAILED, EXIT_BAD_CONFIG, EXIT_INTERRUPTED = 0, 1, 2, 130


class _Parser(argparse.ArgumentParser):
    """argparse whose error is one line (what is wrong, naming the option, and where the options are
    listed), exit 2; its subcommands' parsers are of this class too."""

    def error(self, message: str):
        self.exit(EXIT_BAD_CONFIG, f"{self.prog}: error: {message} (`{self.prog} --help` lists the options)\n")


def _parser() -> argparse.ArgumentParser:
    places = argparse.ArgumentParser(add_help=False)
    places.add_argument("--configs", type=Path, help="configs directory (default <repo>/configs)")
    places.add_argument("--results", type=Path, help="result store and tables (default <repo>/results)")
    places.add_argument("--out-dir", type=Path, help="figures and report (default <repo>/paper_figures)")
    places.add_argument("--engine", help="engine command, {cc} = protocol (default bin/rundb-{cc}, built with "
                        "make; also CCBENCH_ENGINE). A custom command is not built.")
    places.add_argument("--program", action="append", default=[], metavar="NAME=COMMAND",
                        help="command to run instead of a program's binary (e.g. bench_fvs=...); not built; "
                        "may be repeated")
    common = argparse.ArgumentParser(add_help=False, parents=[places])
    common.add_argument("--profile", default="small", help=f"{', '.join(_profile_names())} (configs/profiles/); "
                        "default small")
    quiet = argparse.ArgumentParser(add_help=False)
    quiet.add_argument("--quiet-threshold", type=_number(float, 0), default=DEFAULT_THRESHOLD_CORES,
                       metavar="CORES", help="a run during which other processes (or steal time) used more than "
                       f"this many cores is noisy (default {DEFAULT_THRESHOLD_CORES:g}: 10%% of one core)")
    quiet.add_argument("--quiet-wait", type=_number(float, 0), default=DEFAULT_QUIET_WAIT_S, metavar="SECONDS",
                       help="wait at most this long for a quiet machine before a cost-table calibration or a "
                       "work-scale fit (which time native runs), and with --require-quiet before each point; then "
                       f"go on anyway (default {DEFAULT_QUIET_WAIT_S:g})")
    quiet.add_argument("--noisy-retries", type=_number(int, 0), default=2, metavar="N",
                       help="--require-quiet: run a point measured noisy again at most N times (default 2)")
    quiet.add_argument("--sim-workers", type=_number(int, 1), default=None, metavar="N",
                       help="simulated points run in parallel, at most N at a time and as many as fit in memory together "
                       "(default: one per core; docs/sim.md)")
    quiet.add_argument("--retry-failed", action="store_true", help="run again the points stored as failed")
    quiet.add_argument("--quiet", action="store_true", help="no progress bar")
    running = argparse.ArgumentParser(add_help=False, parents=[quiet])
    running.add_argument("--backend", choices=["local", "ray"], default="local",
                         help="local: one point at a time (default); ray: points on the machines of a Ray cluster "
                         "(docs/cluster.md)")
    running.add_argument("--ray-address", help="Ray cluster to join, e.g. auto (default: start a local Ray whose "
                         "only machine is this one)")
    running.add_argument("--dry-run", action="store_true", help="print the commands of the runs to do; run nothing")
    running.add_argument("--budget", action="store_true",
                         help="with --dry-run: print what the runs to do cost (per figure and in total) instead")
    running.add_argument("--machines", type=_number(int, 1), metavar="N",
                         help="with --budget: the cluster's size, for the wall time and machine-hours (default 1)")
    running.add_argument("--require-quiet", action="store_true",
                         help="before each point, wait until the machine is quiet; run a point measured noisy again "
                         "(local backend only)")
    running.add_argument("--until-decided", action="store_true",
                         help="add repetitions to the points of asserted claims still inconclusive, up to the "
                         "profile's max_repetitions, until they are decided")

    parser = _Parser(prog="ccbench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", parents=[common], help="list the figures that have a config")
    listing.add_argument("--markdown", action="store_true",
                         help="print the figure specification (docs/figures.md) generated from the configs")
    run = commands.add_parser("run", parents=[common, running], help="run a figure's points, then plot it")
    run.add_argument("figures", nargs="+", help="figure ids (comma-separated allowed) or config paths")
    plot = commands.add_parser("plot", parents=[common], help="tables, plot and claims from stored runs")
    plot.add_argument("figures", nargs="+", help="figure ids or config paths")
    commands.add_parser("report", parents=[common],
                        help="write paper_figures/<profile>/REPORT.md (and the index, paper_figures/REPORT.md) from "
                        "stored runs")
    commands.add_parser(
        "reproduction", parents=[places],
        help="print docs/reproduction.md: each paper's claims, their stored verdicts, cause classes and causes",
        description="Merges this machine's verdicts (results/verdicts/<profile>.json, which report, figures and "
        "fidelity write for the figures they show) into the committed verdict store, "
        "paper_figures/verdicts/<profile>.json (a figure's later report wins), then prints docs/reproduction.md "
        "from the figure configs (claims, cause classes and causes) and the committed store alone: the page is "
        "the same on every machine for the same commit.")
    figures = commands.add_parser("figures", parents=[common, running],
                                  help="run and plot figures, then write the report")
    figures.add_argument("figures", nargs="*", help="figure ids (comma-separated allowed); or --all")
    figures.add_argument("--all", action="store_true", help="every figure that has a config")
    fidelity = commands.add_parser(
        "fidelity", parents=[common, quiet],
        help="run figures with --require-quiet --until-decided and write paper_figures/FIDELITY.md",
        description="Runs the named figures (default: " + ", ".join(FIDELITY_FIGURES) + ") at the profile "
        "(default small), each point on a quiet machine and with repetitions added until the claims are "
        "decided, then writes paper_figures/FIDELITY.md: per paper and figure, each claim held, failed, "
        "inconclusive or not checkable here, with the reason for each failure.")
    fidelity.add_argument("figures", nargs="*", help="figure ids (comma-separated allowed); default the named set")
    fidelity.set_defaults(require_quiet=True, until_decided=True, backend="local", ray_address=None, dry_run=False,
                          budget=False, machines=None)
    calibrate = commands.add_parser(
        "calibrate", parents=[common],
        help="measure the simulation's cost table on this machine (docs/sim.md)",
        description="Builds bin/sim/rundb-<cc> (make CC=<cc> VARIANT=sim) and runs its calibration "
        "(--sim_calibrate) on a quiet machine, writing the profile's sim_cost_table (default "
        f"{DEFAULT_COST_TABLE} under the results directory), which the simulated points read; a sweep calibrates it when it is missing.")
    calibrate.add_argument("--cc", default="nowait", help="protocol whose simulation binary calibrates "
                           "(default nowait)")
    calibrate.add_argument("--quiet-threshold", type=_number(float, 0), default=DEFAULT_THRESHOLD_CORES,
                           metavar="CORES", help="wait until other processes use at most this many cores "
                           f"(default {DEFAULT_THRESHOLD_CORES:g})")
    calibrate.add_argument("--quiet-wait", type=_number(float, 0), default=300, metavar="SECONDS",
                           help="wait at most this long for a quiet machine, then calibrate anyway (default 300)")
    simulate = commands.add_parser(
        "simulate", parents=[places], allow_abbrev=False,
        help="one simulated point by hand, with a figure's model: the calibrated table, the fitted work scale, "
        "a modelled machine (docs/sim.md)",
        usage="ccbench simulate CC [--machine NAME] [--profile sim] [--fit] [--ENGINE_FLAG=VALUE ...]",
        description="Runs bin/sim/rundb-CC (built as needed) on the engine flags given (--out=result.json "
        "included), with the model a figure's simulated point gets: the profile's calibrated cost table "
        f"(results/{DEFAULT_COST_TABLE} by default; the built-in table, said plainly, when there is none), the "
        "configuration's stored work-scale fit for that table (--fit: fit one when there is none), and the "
        "machine's between-core flags (configs/machines/<name>.yaml; default the profile's sim_machine). The "
        "result's sim.model and the run's last log line say which model produced the number.")
    simulate.add_argument("cc", metavar="CC", help="the protocol (engine/cc/protocols.txt)")
    simulate.add_argument("--machine", help="the modelled machine (configs/machines/<name>.yaml, or calibrating); "
                          "default the profile's sim_machine")
    simulate.add_argument("--profile", default="sim", help="whose cost table and machine (default sim)")
    simulate.add_argument("--fit", action="store_true", help="fit the work scale when no stored fit exists "
                          "(native single-thread runs, waiting for a quiet machine)")
    flags = commands.add_parser(
        "flags-doc", parents=[places], help="print docs/flags.md, every program's flags, from the built programs",
        description="Prints docs/flags.md: every program's flags (bin/rundb-<cc> of every protocol, the "
        "simulation build's own, bin/pipeline, bin/middletier, the tools) with type, default, what each accepts "
        "and help, grouped by options table, as the programs print them (--help, --config_schema).")
    flags.add_argument("--bin", type=Path, metavar="DIR", help="read the programs of DIR (laid out as bin/: "
                       "rundb-<cc>, sim/rundb-<cc>, the tools) and build nothing (default: build what is "
                       "missing with make, then read <repo>/bin)")
    _add_benchmark_parsers(commands, common, places)
    return parser


def _add_benchmark_parsers(commands, common: argparse.ArgumentParser, places: argparse.ArgumentParser) -> None:
    """bench, compare, versus, cost, account and soak: the engine benchmarks and the verified soak
    (bench.py, soak.py)."""
    measuring = argparse.ArgumentParser(add_help=False)
    measuring.add_argument("--protocols", type=_names, default=[], metavar="CC,...",
                           help="comma-separated (default: the grid's `protocols:`, else every protocol of the "
                           "registry the grid admits)")
    measuring.add_argument("--quiet", action="store_true", help="no progress bar")
    stored = argparse.ArgumentParser(add_help=False)
    stored.add_argument("--rerun", action="store_true",
                        help="measure every run again (default: a run stored from the same binary is reused)")
    run = commands.add_parser("bench", parents=[common, measuring, stored],
                              help="the engine table of a grid of configs/bench (make bench, make demo)")
    run.add_argument("grid", nargs="?", default="bench", help="configs/bench/<grid>.yaml (default bench)")
    compare = commands.add_parser("compare", parents=[common, measuring],
                                  help="two sets of binaries on a grid, interleaved (make bench-compare)")
    compare.add_argument("before", type=Path, help="directory of the rundb-<cc> binaries before the change")
    compare.add_argument("after", type=Path, help="directory of the rundb-<cc> binaries after the change")
    compare.add_argument("--grid", default="quick", help="configs/bench/<grid>.yaml (default quick)")
    compare.add_argument("--repeats", type=_number(int, 1), default=3,
                         help="runs of each side per point (default 3)")
    versus = commands.add_parser(
        "versus", parents=[places], allow_abbrev=False,
        help="two protocols head to head on the same engine flags, interleaved",
        usage="ccbench versus CC1 CC2 [--repeats N] [--quiet] [--ENGINE_FLAG=VALUE ...]",
        description="Runs bin/rundb-CC1 and bin/rundb-CC2 (built as needed) on the same engine flags, "
        "--repeats runs of each interleaved (A B, B A, ...; seed 1 + r unless --seed is given), and prints "
        "each one's median throughput and abort rate with their min-max over the runs and its noisy runs, and "
        "the ratio of the medians with the min-max of the paired runs' ratios. The binaries check the flags "
        "first (a bad one exits 2 naming it, nothing run). Every other argument is an "
        "engine flag, written as the engine spells it (--workload=ycsb --theta=0.9; `bin/rundb-<cc> --help`); "
        "the engine's defaults hold for the rest (5 s measured after 1 s of warm-up, 1 thread).")
    versus.add_argument("protocols", nargs=2, metavar="CC", help="the two protocols (engine/cc/protocols.txt)")
    versus.add_argument("--repeats", type=_number(int, 1), default=3, help="runs of each (default 3)")
    versus.add_argument("--quiet", action="store_true", help="no progress bar")
    cost = commands.add_parser("cost", parents=[common, measuring, stored],
                               help="ns per access per protocol, prefetch on/off, profile split (make bench-cost)")
    cost.add_argument("--rows", type=_number(int, 16, why="a transaction makes 16 distinct accesses"),
                      help="YCSB rows (default: configs/bench/cost.yaml's, 10M)")
    cost.add_argument("--theta", type=_number(float, 0, below=1), help="Zipf skew in [0, 1) (default 0)")
    cost.add_argument("--repeats", type=_number(int, 1), help="round-robin rounds (default 3)")
    cost.add_argument("--duration", type=_number(float, above=0), help="measured seconds per run (default 2)")
    accounting = commands.add_parser(
        "account", parents=[common, measuring, stored],
        help="where a committed transaction's worker time goes at high contention (make bench-account)",
        description="Worker ns per committed transaction at each point of a grid (median of its round-robin "
        "runs) split, in the shares of one --profile run (the profile build), into the committed attempt's "
        "index, lock, execute and validation, the aborted attempts before it, the waits after them (backoff) "
        "and the time outside attempts (the next request, the statistics, the loop); docs/benchmarks.md.")
    accounting.add_argument("grid", nargs="?", default="account",
                            help="configs/bench/<grid>.yaml (default account)")
    soaking = commands.add_parser("soak", parents=[common, measuring], help="the verified soak (make soak)",
                                  description=soak.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    soaking.add_argument("--txns", type=_number(int, 1), default=10_000_000,
                         help="verified transactions per pair (default 10M)")
    soaking.add_argument("--chunk", type=_number(int, 1), default=1_000_000,
                         help="committed transactions per verified run")
    soaking.add_argument("--threads", type=_number(int, 1), default=2 * (os.cpu_count() or 1),
                         help="workers (default 2 x CPUs)")
    soaking.add_argument("--workloads", type=_names, default=[], metavar="W,...",
                         help="comma-separated (default: every workload of workloads/workloads.txt)")
    soaking.add_argument("--timeout-s", type=_number(float, above=0), default=3600, help="per chunk (default 3600)")


def _profile_names() -> list[str]:
    """The profiles of the repository's configs (configs/profiles/<name>.yaml), for the help."""
    return sorted(path.stem for path in (REPOSITORY_ROOT / "configs" / "profiles").glob("*.yaml"))


def _names(text: str) -> list[str]:
    return [name for name in text.split(",") if name]


def _number(kind: type, minimum: float | None = None, *, above: float | None = None, below: float | None = None,
            why: str = "") -> Callable[[str], object]:
    """An argparse type: a finite number of `kind`, at least `minimum`, more than `above`, less than `below`
    (argparse names the option, and exits 2 otherwise); `why` is said after the bound."""
    def parse(text: str) -> object:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a{'n integer' if kind is int else ' number'}")
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text} is not a finite number")
        reason = f" ({why})" if why else ""
        if minimum is not None and value < minimum:
            raise argparse.ArgumentTypeError(f"{text} is too small; it must be at least {minimum:g}{reason}")
        if above is not None and value <= above:
            raise argparse.ArgumentTypeError(f"{text} is too small; it must be more than {above:g}{reason}")
        if below is not None and value >= below:
            raise argparse.ArgumentTypeError(f"{text} is too large; it must be less than {below:g}{reason}")
        return value
    return parse


def _directory_problem(path: Path) -> str | None:
    """Why `path` cannot be (or become) a directory the harness writes into, or None. Nothing is created."""
    if path.exists():
        return None if path.is_dir() else "is not a directory"
    parent = next(parent for parent in path.absolute().parents if parent.exists())
    if not parent.is_dir():
        return f"cannot be created: {parent} is not a directory"
    return None if os.access(parent, os.W_OK | os.X_OK) else f"cannot be created: {parent} is not writable"


def _workspace(args) -> Workspace:
    if args.configs is not None and not args.configs.is_dir():
        raise UsageError(f"--configs {args.configs}: not a directory (allowed: a configs directory, with profiles/ "
                         f"and figures/ as <repo>/configs)")
    for option, path in (("--results", args.results), ("--out-dir", args.out_dir)):
        problem = _directory_problem(path) if path is not None else None
        if problem:
            raise UsageError(f"{option} {path}: {problem}")
    if args.engine is not None and not args.engine.strip():
        raise UsageError("--engine: empty; allowed: a command, {cc} standing for the protocol (e.g. "
                         "'bin/rundb-{cc}')")
    commands = {}
    for option in args.program:
        name, equals, command = option.partition("=")
        if not equals or not command.strip():
            raise UsageError(f"--program {option}: expected NAME=COMMAND")
        commands[name] = command
    return Workspace.create(configs_dir=args.configs, results_dir=args.results, figures_dir=args.out_dir,
                            engine=args.engine, program_commands=commands)


def _profile(workspace: Workspace, name: str) -> Profile:
    profiles = load_profiles(workspace.profiles_dir)
    if name not in profiles:
        raise UsageError(f"--profile: unknown profile '{name}'{did_you_mean(name, profiles)}; "
                         f"profiles: {', '.join(sorted(profiles))}")
    return profiles[name]


def _resolve(references: list[str], workspace: Workspace, profile_name: str) -> list[ResolvedFigure]:
    """Load and validate every named figure (ids may be comma-separated) before anything runs."""
    profiles = load_profiles(workspace.profiles_dir)
    _profile(workspace, profile_name)
    ids = [part for reference in references for part in reference.split(",") if part]
    return [FigureConfig.load(find_figure(figure_id, workspace.figure_configs_dir), profiles).resolve(profile_name)
            for figure_id in ids]


def _print_outcome(outcome: FigureOutcome) -> None:
    total, ok, failed, missing = outcome.run_counts()
    print(f"{outcome.figure_id} ({outcome.figure.profile.name}): {ok}/{total} runs ok, {failed} failed, "
          f"{missing} not run; table {outcome.tables.table_path}")
    for image in outcome.images:
        print(f"  figure {image}")
    noisy, points = outcome.tables.noisy_counts()
    if noisy:
        print(f"  {noisy} noisy run(s) at {points} point(s)")
    for result in outcome.claims:
        print(f"  [{result.label}] {result.claim['id']} (repetitions {result.repetitions_text()}): {result.detail}")


def _backend(args, workspace, figures: list[ResolvedFigure] = ()):
    """The backend of a sweep; its native points run side by side only where every figure's profile says
    so (native_workers: the smoke profile, whose numbers nothing reads)."""
    if not args.require_quiet:
        native_workers = min((figure.profile.native_workers for figure in figures), default=1)
        return make_backend(args.backend, args.ray_address, workspace, args.sim_workers, native_workers)
    if args.backend != "local":
        raise UsageError(f"--require-quiet needs --backend local, not {args.backend}: points run at the same time on "
                         f"one machine make each other noisy")
    return QuietBackend(args.quiet_threshold, args.quiet_wait, args.noisy_retries, sim_workers=args.sim_workers)


def _check_simulated(figures: list[ResolvedFigure], args) -> None:
    """Simulated points run on the local backend (--budget leaves them out and says so: run/budget.py)."""
    simulated = sorted({figure.figure_id for figure in figures if figure.simulated_series()})
    if not simulated:
        return
    if args.backend != "local" and not args.budget:
        raise UsageError(f"--backend {args.backend}: {', '.join(simulated)} run simulated points, which run on the "
                         f"local backend only (in parallel, --sim-workers at a time; docs/sim.md); allowed: local")


def _check_budget_options(args) -> None:
    if args.budget and not args.dry_run:
        raise UsageError("--budget needs --dry-run (it prints what the runs would cost and runs nothing)")
    if args.machines is not None and not args.budget:
        raise UsageError("--machines needs --budget (it is the cluster size the budget is computed for)")


def _run_points(figures: list[ResolvedFigure], workspace: Workspace, args) -> int:
    if args.until_decided and args.dry_run:
        raise UsageError("--until-decided cannot be combined with --dry-run: the repetitions it adds depend on "
                         "the results of the runs")
    _check_simulated(figures, args)
    sweep = functools.partial(run_sweep, figures, workspace, _backend(args, workspace, figures),
                              retry_failed=args.retry_failed,

                              progress=not args.quiet, quiet_threshold_cores=args.quiet_threshold,
                              quiet_wait_s=args.quiet_wait)
    summary = sweep(dry_run=args.dry_run)
    if not args.dry_run:   # the report shows the figures run at the profile (store.py)
        for profile_name in {figure.profile.name for figure in figures}:
            record_figures_run(workspace.results_dir, profile_name,
                               [figure.figure_id for figure in figures if figure.profile.name == profile_name])
    if args.budget:
        print(budget(figures, workspace, set(summary.pending_keys), args.sim_workers).describe(args.machines or 1))
        return EXIT_OK
    if args.dry_run:
        cannot = [f"not run here: {reason}" for reason in sorted(set(summary.skipped.values()))]
        print("\n".join([*summary.pending_commands, *cannot]) or "nothing to run: every point is stored")
        return EXIT_OK
    print(summary.describe(), file=sys.stderr)
    problems = summary.problems
    if args.until_decided:
        decided = run_until_decided(figures, workspace, lambda points: sweep(points=points))
        print(decided.describe(), file=sys.stderr)
        problems |= decided.problems
    return EXIT_RUNS_FAILED if problems else EXIT_OK


def _process(figures: list[ResolvedFigure], workspace: Workspace) -> dict[str, FigureOutcome]:
    outcomes = {figure.figure_id: process_figure(figure, workspace) for figure in figures}
    for outcome in outcomes.values():
        _print_outcome(outcome)
    return outcomes


def _write_report(workspace: Workspace, profile: Profile, fresh: dict[str, FigureOutcome]) -> int:
    """Report every figure with a config; reuse outcomes in `fresh` (by id), process the rest."""
    catalog = load_catalog(workspace)
    entries = [ReportEntry.of(fresh.get(figure_id) or process_figure(config.resolve(profile.name), workspace))
               for figure_id, config in catalog.figures.items()]
    for figure_id, error in catalog.broken.items():
        print(error, file=sys.stderr)
        entries.append(ReportEntry.broken(figure_id, Path(error.problems[0][0]).parent.name, figure_id,
                                          f"invalid config: {error}"))
    path = write_report(entries, profile, workspace, figures_run(workspace.results_dir, profile.name))
    print(f"report: {path} (and {path.with_suffix('.html').name}; every profile's: "
          f"{workspace.figures_dir / 'REPORT.md'})")
    return EXIT_BAD_CONFIG if catalog.broken else EXIT_OK


def _list_command(workspace: Workspace, args) -> int:
    catalog = load_catalog(workspace)
    if args.markdown:
        if catalog.broken:
            raise next(iter(catalog.broken.values()))
        print(figures_doc.markdown(catalog), end="")
        return EXIT_OK
    for figure_id, config in sorted(catalog.figures.items()):
        print(f"{config.paper:10} {figure_id:28} {config.title}")
    for figure_id, error in sorted(catalog.broken.items()):
        print(f"{'?':10} {figure_id:28} INVALID: {error}")
    return EXIT_BAD_CONFIG if catalog.broken else EXIT_OK


def _run_command(workspace: Workspace, args) -> int:
    _check_budget_options(args)
    figures = _resolve(args.figures, workspace, args.profile)
    status = _run_points(figures, workspace, args)
    if not args.dry_run:
        _process(figures, workspace)
    return status


def _plot_command(workspace: Workspace, args) -> int:
    _process(_resolve(args.figures, workspace, args.profile), workspace)
    return EXIT_OK


def _report_command(workspace: Workspace, args) -> int:
    return _write_report(workspace, _profile(workspace, args.profile), {})


def _reproduction_command(workspace: Workspace, args) -> int:
    catalog = load_catalog(workspace)
    if catalog.broken:
        raise next(iter(catalog.broken.values()))
    for line in reproduction_page.merge_local_verdicts(workspace.results_dir, workspace.figures_dir):
        print(f"verdict store: {line}", file=sys.stderr)
    print(reproduction_page.markdown(catalog, workspace.figures_dir), end="")
    return EXIT_OK


def _figures_command(workspace: Workspace, args) -> int:
    if args.all == bool(args.figures):
        raise UsageError("name the figures to make, or give --all (not both)")
    _check_budget_options(args)
    references = list(figure_config_paths(workspace.figure_configs_dir)) if args.all else args.figures
    figures = _resolve(references, workspace, args.profile)
    status = _run_points(figures, workspace, args)
    if args.dry_run:
        return status
    outcomes = _process(figures, workspace)
    return max(status, _write_report(workspace, _profile(workspace, args.profile), outcomes))


def _fidelity_command(workspace: Workspace, args) -> int:
    figures = _resolve(args.figures or list(FIDELITY_FIGURES), workspace, args.profile)
    status = _run_points(figures, workspace, args)
    outcomes = _process(figures, workspace)
    path = write_fidelity(list(outcomes.values()), Settings(args.profile, args.quiet_threshold, args.noisy_retries,
                                                            args.quiet_wait), workspace)
    print(f"fidelity: {path}")
    return status


def _bench_command(workspace: Workspace, args) -> int:
    grid = bench.Grid.load(workspace, args.grid)
    return bench.bench(workspace, grid, grid.protocols(workspace, args.protocols), rerun=args.rerun,
                       progress=not args.quiet)


def _compare_command(workspace: Workspace, args) -> int:
    return bench.compare(workspace, bench.Grid.load(workspace, args.grid), args.before, args.after, args.repeats,
                         args.protocols, progress=not args.quiet)


def _versus_command(workspace: Workspace, args) -> int:
    return bench.versus(workspace, args.protocols, args.engine_flags, args.repeats, progress=not args.quiet)


def _flags_doc_command(workspace: Workspace, args) -> int:
    if args.bin is None:
        problem = flags_doc.build(workspace.root)
        if problem:
            print(f"ccbench: {problem}", file=sys.stderr)
            return EXIT_RUNS_FAILED
    try:
        text = flags_doc.markdown(args.bin or workspace.root / "bin")
    except flags_doc.ProgramUnavailable as error:
        raise UsageError(f"flags-doc: {error} (build it, or give --bin DIR)")
    print(text, end="")
    return EXIT_OK


def _account_command(workspace: Workspace, args) -> int:
    grid = bench.Grid.load(workspace, args.grid)
    return bench.account(workspace, grid, grid.protocols(workspace, args.protocols), rerun=args.rerun,
                         progress=not args.quiet)


def _cost_command(workspace: Workspace, args) -> int:
    flags = {}   # the values' ranges are the parser's (_number)
    if args.rows is not None:
        flags["table_size"] = args.rows
    if args.theta is not None:
        flags["theta"] = args.theta
    grid = bench.Grid.load(workspace, "cost")
    run = {} if args.duration is None else {"duration": args.duration,
                                            "warmup": min(grid.run.get("warmup", 0), args.duration)}
    grid = grid.with_overrides(flags, run, args.repeats)
    return bench.cost(workspace, grid, grid.protocols(workspace, args.protocols), rerun=args.rerun,
                      progress=not args.quiet)


def _calibrate_command(workspace: Workspace, args) -> int:
    """Calibrate the profile's cost table anew (the runner only calibrates a missing one)."""
    known = registry.protocols()
    if args.cc not in known:
        raise UsageError(f"--cc: {unknown_name(args.cc, known, 'protocol')}")
    path = workspace.results_dir / _profile(workspace, args.profile).sim_cost_table
    if workspace.builds_engine:
        problem = build_binaries(workspace.root, list(workspace.make_arguments(ENGINE, args.cc, SIM_VARIANT)),
                                 [workspace.binary(ENGINE, args.cc, SIM_VARIANT)])
        if problem:
            print(f"ccbench: {problem}", file=sys.stderr)
            return EXIT_RUNS_FAILED
    problem = calibration.calibrate(workspace.argv(ENGINE, args.cc, SIM_VARIANT), path,
                                    log=lambda message: print(message, file=sys.stderr),
                                    threshold_cores=args.quiet_threshold, max_wait_s=args.quiet_wait)
    if problem:
        print(f"ccbench: {problem}", file=sys.stderr)
        return EXIT_RUNS_FAILED
    print(f"cost table: {path} (the calibration's record: {calibration.record_path(path)})")
    return EXIT_OK


def _soak_command(workspace: Workspace, args) -> int:
    settings = soak.Settings(args.txns, args.chunk, args.threads, args.timeout_s)
    return soak.soak(workspace, settings, args.protocols, args.workloads, progress=not args.quiet)


def _simulate_command(workspace: Workspace, args) -> int:
    """One simulated point by hand with the calibrated model and a machine (sim/point.py)."""
    known = registry.protocols()
    if args.cc not in known:
        raise UsageError(f"CC: {unknown_name(args.cc, known, 'protocol')}")
    profile = _profile(workspace, args.profile)
    sim_argv = workspace.argv(ENGINE, args.cc, SIM_VARIANT)
    log = functools.partial(print, file=sys.stderr)

    def fit(key: str, table: Path, digest: str | None) -> str:
        return workscale.ensure(key, workspace.argv(ENGINE, args.cc), sim_argv,
                                point.configuration_flags(args.engine_flags), table, digest, log=log)

    if workspace.builds_engine:   # the simulation binary, and the native one a fit compares with
        for variant in (SIM_VARIANT, *([None] if args.fit else [])):
            problem = build_binaries(workspace.root, list(workspace.make_arguments(ENGINE, args.cc, variant)),
                                     [workspace.binary(ENGINE, args.cc, variant)])
            if problem:
                log(f"ccbench: {problem}")
                return EXIT_RUNS_FAILED
    try:
        arguments = point.model_arguments(args.cc, args.engine_flags, profile, args.machine, workspace.configs_dir,
                                          workspace.results_dir, fit if args.fit else None, log)
    except workscale.FitFailed as error:
        log(f"ccbench: no work scale: {error}")
        return EXIT_RUNS_FAILED
    return point.run(sim_argv, [*args.engine_flags, *arguments])


# The commands that pass the arguments they do not know on, as engine flags.
ENGINE_FLAG_COMMANDS = ("versus", "simulate")
COMMANDS = {"list": _list_command, "run": _run_command, "plot": _plot_command, "report": _report_command,
            "reproduction": _reproduction_command,
            "figures": _figures_command, "fidelity": _fidelity_command, "bench": _bench_command,
            "compare": _compare_command, "versus": _versus_command, "cost": _cost_command,
            "account": _account_command, "soak": _soak_command,
            "calibrate": _calibrate_command, "simulate": _simulate_command, "flags-doc": _flags_doc_command}


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown and args.command not in ENGINE_FLAG_COMMANDS:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    args.engine_flags = unknown
    try:
        return COMMANDS[args.command](_workspace(args), args)
    except ConfigError as error:
        print(error, file=sys.stderr)
        return EXIT_BAD_CONFIG
    except UsageError as error:
        print(f"ccbench: {error}", file=sys.stderr)
        return EXIT_BAD_CONFIG
    except KeyboardInterrupt:
        print("ccbench: interrupted; finished runs are stored, run the same command again to resume",
              file=sys.stderr)
        return EXIT_INTERRUPTED
