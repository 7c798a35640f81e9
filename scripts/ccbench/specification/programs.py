"""The programs a figure can run, and what the harness needs to know about each.

A figure names its program (`program: bench_fvs`; default `rundb`, the
engine). A program declares how it is built, how a point's parameters reach
it (always `--name=value`), where its result JSON comes from, which
parameters every point needs, which result fields every run must have and,
for the programs of this repository that write one, which entry of
docs/result.schema.json every document must match (`result_schema`).
Nothing else about a program is known to the harness.

Each point is one run that yields one JSON document with its metrics:
  - `out` programs write that document to the file given by `--out=PATH`
    (the engine, bench_fvs);
  - `stdout` programs print one JSON document whose lists of rows are named
    by a parameter (bench_strife: `experiments: fig05` -> the list "fig05");
    the point's parameters must select exactly one row, and its document is
    that row plus the program's other top-level fields (e.g. `config`).

This module imports only the standard library (Ray workers import it).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Mapping

from ccbench.specification.metrics import ENGINE_DERIVED

OUTPUT_FILE = "out"
OUTPUT_STDOUT = "stdout"

# The simulation build (docs/sim.md): the same protocols on N virtual cores in virtual time, built by
# `make CC=<cc> VARIANT=sim` into bin/sim/ (other variants build into build/<variant>/bin).
SIM_VARIANT = "sim"
VARIANT_BINARY_DIRS = {SIM_VARIANT: "bin/sim"}


def _quotient(numerator: str, denominator: str) -> Callable[[dict], float]:
    def value(result: dict) -> float:
        return result[numerator] / result[denominator] if result[denominator] else math.nan
    return value


# Strife statistics the papers' text uses but bench_strife does not print.
STRIFE_DERIVED = {
    "residual_fraction": _quotient("residuals", "batch_size"),    # residual transactions / batch size
    "queue_balance": _quotient("queue_min", "queue_max"),         # smallest / largest CF queue (1 = equal)
    "cf_per_spot": _quotient("cf_clusters", "spot_clusters"),     # 1 when no spot cluster was merged away
}


# The pipeline's threads (systems/pipeline/engine.h, Engine::run): its flags'
# defaults as pipeline_main.cc defines them, and the modes whose validator is
# the batched, parallel one (options.h: validator_batching, validator_reordering).
PIPELINE_DEFAULTS = {"mode": "srvc", "clients": 2, "storage_workers": 2, "reorder_workers": 4}
PIPELINE_VALIDATOR_BATCHING = ("batch", "vc", "srvc")
PIPELINE_VALIDATOR_REORDERING = ("vc", "srvc")


def pipeline_threads(flags: dict) -> int:
    """Threads bin/pipeline runs: clients, the processor, storage workers and the validator, which is one
    thread unbatched, else batch preparation + reorder workers (vc, srvc) + validation (Ding et al. §4.3)."""
    value = {**PIPELINE_DEFAULTS, **flags}
    mode = value["mode"]
    if mode in PIPELINE_VALIDATOR_BATCHING:
        reorder = int(value["reorder_workers"]) if mode in PIPELINE_VALIDATOR_REORDERING else 0
        validator = 1 + reorder + 1
    else:
        validator = 1
    return int(value["clients"]) + 1 + int(value["storage_workers"]) + validator


@dataclass(frozen=True)
class Program:
    name: str
    description: str
    binary: str                                  # under the repository root; {cc} = the protocol (engine)
    make_arguments: tuple[str, ...]              # `make ...` that builds it; {cc} as in binary
    required_parameters: tuple[str, ...]         # every point must set these
    required_fields: tuple[str, ...]             # every result document must have these
    output: str = OUTPUT_FILE
    fixed_arguments: tuple[str, ...] = ()        # passed to every run, before the point's flags
    binary_parameter: str | None = None          # selects the binary; not passed as a flag
    threads_parameter: str | None = None         # CPUs a run uses (Ray reserves them); absent: 1
    thread_count: Callable[[dict], int] | None = None   # or: the CPUs a run uses, computed from its flags
    rows_parameter: str | None = None            # stdout programs: names the list of rows
    row_lists: tuple[str, ...] = ()              # the values rows_parameter may take
    takes_profile_base: bool = False             # the profile files' base (run length) applies
    table_metrics: tuple[str, ...] = ()          # metrics every tidy table of its figures carries
    derived: Mapping[str, Callable[[dict], float]] = field(default_factory=dict)
    lists_flags: bool = False                    # `<binary> --list_flags` prints the flags it accepts
    validates: bool = False                      # `<command> --validate_only` checks a point's flags: exit 0 or 2
    needs_postgres: bool = False                 # runs against the harness's private PostgreSQL server
                                                 # (pgserver.py), whose --pg_* flags the runner appends
    result_schema: str | None = None             # its document's entry in docs/result.schema.json ($defs)
    variant_flags: tuple[str, ...] = ()          # a point with one of these flags true runs the binary of the
                                                 # build variant of that name (make ... VARIANT=<flag>)
    sim_build: bool = False                      # has a simulation build (make ... VARIANT=sim, bin/sim/;
                                                 # docs/sim.md): its points can run on virtual cores

    def variant_binary(self, variant: str) -> str:
        """The binary of a build variant: bin/sim/rundb-<cc> for the simulation, build/<variant>/bin/... else."""
        directory = VARIANT_BINARY_DIRS.get(variant, f"build/{variant}/bin")
        return f"{directory}/{self.binary.removeprefix('bin/')}"

    @property
    def speaker(self) -> str:
        """How failure messages name it: 'the engine rejected ...', 'bench_fvs rejected ...'."""
        return "the engine" if self.name == ENGINE else self.name


ENGINE = "rundb"

PROGRAMS: dict[str, Program] = {program.name: program for program in (
    Program(
        name=ENGINE,
        description="the engine, bin/rundb-<cc> (one binary per protocol, built by `make CC=<cc>`)",
        binary="bin/rundb-{cc}",
        make_arguments=("CC={cc}",),
        required_parameters=("cc", "workload", "threads"),
        required_fields=("config", "throughput", "commits", "aborts"),
        binary_parameter="cc",
        threads_parameter="threads",
        takes_profile_base=True,
        table_metrics=("throughput", "abort_rate", "latency_us.p99"),
        derived=ENGINE_DERIVED,
        lists_flags=True,
        validates=True,
        result_schema="rundb",
        variant_flags=("profile",),              # --profile: build/profile/bin/rundb-<cc> (the profile build)
        sim_build=True,                          # bin/sim/rundb-<cc>: --threads virtual cores (docs/sim.md)
    ),
    Program(
        name="bench_fvs",
        description="FVS algorithms on micro-benchmark dependency graphs (partitioners/reorder), "
                    "one skew and one algorithm per run",
        binary="bin/bench_fvs",
        make_arguments=("tools",),
        required_parameters=("theta", "algorithm"),
        required_fields=("config", "completed", "capped_graphs", "avg_fvs_size", "us_per_graph"),
    ),
    Program(
        name="pipeline",
        description="the pipeline engine of the batching-and-reordering paper (systems/pipeline): clients, "
                    "processor, storage workers and the (parallel) validator; one mode per run",
        binary="bin/pipeline",
        make_arguments=("pipeline",),
        required_parameters=("workload", "mode"),
        required_fields=("config", "throughput", "commits", "aborts", "latency_us"),
        thread_count=pipeline_threads,
        takes_profile_base=True,                 # --duration / --warmup as the engine
        table_metrics=("throughput", "restarts_per_txn", "latency_us.avg", "latency_us.p95", "latency_us.p99"),
        lists_flags=True,                        # parses its flags as the engine does
        validates=True,
        result_schema="pipeline",
    ),
    Program(
        name="middletier",
        description="middle-tier batching and reordering of SmallBank requests in front of a private "
                    "PostgreSQL server at SERIALIZABLE (systems/middletier; docs/middletier.md); one mode per run",
        binary="bin/middletier",
        make_arguments=("middletier",),
        required_parameters=("workload", "mode", "connections"),
        required_fields=("config", "throughput", "commits", "aborts", "abort_rate", "latency_us",
                         "invariants_ok"),
        threads_parameter="connections",
        takes_profile_base=True,                 # --duration / --warmup as the engine
        table_metrics=("throughput", "abort_rate", "latency_us.avg", "latency_us.p99"),
        lists_flags=True,
        needs_postgres=True,
        result_schema="middletier",
    ),
    Program(
        name="bench_strife",
        description="Strife clustering statistics and speed (partitioners/strife), one row of one "
                    "experiment per run",
        binary="bin/bench_strife",
        make_arguments=("tools",),
        required_parameters=("experiments",),
        required_fields=("config", "workload", "param"),
        output=OUTPUT_STDOUT,
        fixed_arguments=("--format=json",),
        threads_parameter="threads",
        rows_parameter="experiments",
        row_lists=("fig05", "fig09", "fig10"),
        derived=STRIFE_DERIVED,
    ),
)}
