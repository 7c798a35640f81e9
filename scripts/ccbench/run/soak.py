"""The verified soak (`ccbench soak`, `make soak`): every serializable protocol
x every workload at high contention, with --verify, until at least --txns
committed transactions per pair have been checked by the serializability
checker.

The pairs come from the registries: the protocols of engine/cc/protocols.txt
that are serializable, the workloads of workloads/workloads.txt with their
high-contention flags (the registry's last field). Each pair runs in chunks:
one engine run of --chunk committed transactions (--measure_txns, no
warm-up, so the recorded history is the whole run) with its own seed, loaded
afresh, its history checked in full and its invariants checked after the
run. Chunking bounds the checker's memory (about 1.1 GiB per million
16-access transactions, docs/verify.md); every chunk is a complete history,
so no cycle can cross a chunk boundary. More worker threads than cores
(--threads, default twice the CPUs) so that workers are preempted in the
middle of transactions.

The chunks are runs of the figures' runner (runner.run_tasks), in waves: the
first chunk of every pair (a pair the binary refuses, or one that fails, shows
at once), then the chunks each pair still needs; a pair with a failed run gets
one chunk per wave and stops after three failures. Every chunk is a record in
the result store, so an interrupted soak resumes, and a chunk stored from
another build runs again. A pair the binary refuses by configuration (exit 2
on the first chunk, e.g. PartCC on a workload without partitions) is listed as
refused and not counted. The table (protocol, workload, runs, transactions
verified, violations, invariant checks and failures) goes to
<results>/soak/soak.csv and <out-dir>/soak.md after every wave. Exit status 0
when every pair reached --txns with no violation, no broken invariant and no
failed run; 1 otherwise; 2 on bad arguments.
"""
from __future__ import annotations

import csv
import io
import math
import os
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ccbench.errors import UsageError, did_you_mean
from ccbench.fileio import write_text_atomically
from ccbench.run.backends import LocalBackend
from ccbench.run.runner import run_tasks, tasks_for
from ccbench.run.store import ResultStore
from ccbench.run.workspace import Workspace
from ccbench.specification import registry
from ccbench.specification.points import Point

MAX_FAILED_RUNS = 3   # a pair that keeps failing would otherwise loop forever
EXIT_OK, EXIT_UNCLEAN = 0, 1


@dataclass(frozen=True)
class Settings:
    txns: int
    chunk: int
    threads: int
    timeout_s: float


@dataclass
class Pair:
    """One protocol x workload: its chunks so far (seed -> stored record) and their tally."""
    protocol: str
    workload: str
    records: dict[int, dict] = field(default_factory=dict)

    def row(self) -> dict:
        row = {"protocol": self.protocol, "workload": self.workload, "runs": 0, "txns_verified": 0,
               "violations": 0, "invariant_checks": 0, "invariants_broken": 0, "failed_runs": 0, "refused": ""}
        for seed in sorted(self.records):
            record = self.records[seed]
            result = record.get("result") or {}
            if "verify" not in result and record.get("returncode") == 2 and seed == 1:
                row["refused"] = refusal(record)
                break
            row["runs"] += 1
            if "verify" not in result:
                row["failed_runs"] += 1
                continue
            row["txns_verified"] += result["verify"]["counts"]["txns"]
            row["violations"] += 0 if result["serializable"] else 1
            row["invariant_checks"] += len(result["invariants"])
            row["invariants_broken"] += sum(1 for invariant in result["invariants"] if not invariant["ok"])
        return row

    def next_seeds(self, settings: Settings) -> list[int]:
        """The chunks the next wave runs: the first alone; then as many as the target still needs, or one
        while the pair has failed runs, none once it is refused, done or failed MAX_FAILED_RUNS times."""
        row, done = self.row(), len(self.records)
        if done == 0:
            return [1]
        if row["refused"] or row["failed_runs"] >= MAX_FAILED_RUNS or row["txns_verified"] >= settings.txns:
            return []
        if row["failed_runs"]:
            return [done + 1]
        return list(range(done + 1, done + 1 + math.ceil((settings.txns - row["txns_verified"]) / settings.chunk)))

    def clean(self, settings: Settings) -> bool:
        row = self.row()
        return bool(row["refused"]) or not (row["violations"] or row["invariants_broken"] or row["failed_runs"]
                                            or row["txns_verified"] < settings.txns)


def refusal(record: dict) -> str:
    """The binary's reason for refusing a pair: its last stderr line, without the 'error:' prefix."""
    lines = [line.strip() for line in (record.get("stderr_tail") or "").splitlines() if line.strip()]
    reason = lines[-1] if lines else record.get("failure") or "exit 2"
    return reason[len("error: "):] if reason.lower().startswith("error: ") else reason


def contended_flags(workload: registry.Workload) -> dict[str, str]:
    """The registry's high-contention flags (`--name=value ...`) as flags of a point."""
    flags = {}
    for word in workload.contended_flags:
        name, _, value = word.removeprefix("--").partition("=")
        flags[name] = value or "true"
    return flags


def chunk_point(pair: Pair, seed: int, workload: registry.Workload, settings: Settings) -> Point:
    flags = {**contended_flags(workload), "workload": pair.workload, "threads": settings.threads, "warmup": 0,
             "measure_txns": settings.chunk, "seed": seed, "verify": True}
    return Point("soak", pair.protocol, (("workload", pair.workload),), seed - 1, pair.protocol,
                 tuple(sorted(flags.items())), settings.timeout_s)


def select_pairs(workspace: Workspace, protocols: Sequence[str], workloads: Sequence[str]) -> list[Pair]:
    """The pairs to soak; a name the registries do not allow is a UsageError naming the option."""
    known_protocols = registry.protocols()
    serializable = [name for name, p in known_protocols.items() if p.serializable]
    if not workspace.builds_engine:   # a custom command: the protocols whose binary exists
        serializable = [name for name in serializable
                        if Path(shlex.split(workspace.engine.replace("{cc}", name))[0]).is_file()]
    bad = [name for name in protocols if name not in serializable]
    if bad or (not protocols and not serializable):
        close = did_you_mean(bad[0], serializable) if len(bad) == 1 else ""
        raise UsageError(f"--protocols: no serializable binary for {','.join(bad) or '(none)'}{close}; "
                         f"allowed: {','.join(serializable) or '(none: run make build)'}")
    known_workloads = registry.workloads()
    bad = [name for name in workloads if name not in known_workloads]
    if bad:
        close = did_you_mean(bad[0], known_workloads) if len(bad) == 1 else ""
        raise UsageError(f"--workloads: unknown {','.join(bad)}{close}; allowed: {','.join(known_workloads)}")
    return [Pair(cc, workload) for cc in (protocols or serializable) for workload in (workloads or known_workloads)]


def write_table(pairs: list[Pair], settings: Settings, workspace: Workspace) -> tuple[Path, Path]:
    rows = [pair.row() for pair in pairs]
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    csv_path = workspace.results_dir / "soak" / "soak.csv"
    write_text_atomically(csv_path, text.getvalue())
    lines = [f"# Verified soak: {settings.txns:,} transactions per pair, chunks of {settings.chunk:,}, "
             f"{settings.threads} threads on {os.cpu_count()} CPUs", "",
             "| protocol | workload | runs | transactions verified | violations | invariant checks | broken | "
             "failed runs |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["refused"]:
            lines.append(f"| {r['protocol']} | {r['workload']} | refused by the binary: {r['refused']} ||||||")
        else:
            lines.append(f"| {r['protocol']} | {r['workload']} | {r['runs']} | {r['txns_verified']:,} | "
                         f"{r['violations']} | {r['invariant_checks']} | {r['invariants_broken']} | "
                         f"{r['failed_runs']} |")
    table_path = workspace.figures_dir / "soak.md"
    write_text_atomically(table_path, "\n".join(lines) + "\n")
    return table_path, csv_path


def soak(workspace: Workspace, settings: Settings, protocols: Sequence[str], workloads: Sequence[str], *,
         progress: bool = True) -> int:
    for name in ("txns", "chunk", "threads"):
        if getattr(settings, name) < 1:
            raise UsageError(f"--{name} {getattr(settings, name)}: must be at least 1")
    pairs = select_pairs(workspace, protocols, workloads)
    known_workloads = registry.workloads()
    store = ResultStore(workspace.runs_dir)
    template = workspace.command_template("rundb")
    wave = 0
    while True:
        planned = [(pair, chunk_point(pair, seed, known_workloads[pair.workload], settings))
                   for pair in pairs for seed in pair.next_seeds(settings)]
        if not planned:
            break
        wave += 1
        tasks = tasks_for([], workspace, [point for _, point in planned])
        summary = run_tasks(list(tasks.values()), workspace, LocalBackend(), description=f"soak wave {wave}",
                            progress=progress)
        for pair, point in planned:
            record = store.get(point.key(template))
            # A chunk that could not start at all (no binary) is a failed run of its pair.
            pair.records[point.repetition + 1] = record or {"failure": summary.skipped.get(point.key(template)),
                                                            "returncode": None}
        write_table(pairs, settings, workspace)
    table_path, csv_path = write_table(pairs, settings, workspace)
    for pair in pairs:
        for seed, record in sorted(pair.records.items()):
            if (record.get("result") or {}).get("serializable") is False:
                print(f"soak: {pair.protocol} {pair.workload} seed {seed}: NOT SERIALIZABLE: "
                      f"{record['result'].get('violation')}", file=sys.stderr)
        r = pair.row()
        if r["refused"]:
            print(f"soak: {pair.protocol:10s} {pair.workload:9s} refused by the binary: {r['refused']}")
        else:
            print(f"soak: {pair.protocol:10s} {pair.workload:9s} {r['txns_verified']:>12,} verified in {r['runs']} "
                  f"runs, {r['violations']} violations, {r['invariants_broken']} broken invariants")
    refused = sum(1 for pair in pairs if pair.row()["refused"])
    unclean = [pair for pair in pairs if not pair.clean(settings)]
    print(f"soak: table in {table_path} and {csv_path}; {len(pairs) - len(unclean) - refused} of "
          f"{len(pairs) - refused} pairs clean ({refused} refused by the binary)")
    return EXIT_UNCLEAN if unclean else EXIT_OK
