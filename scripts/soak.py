#!/usr/bin/env python3
"""The verified soak (`make soak`): every serializable protocol x every
workload at high contention, with --verify, until at least --txns committed
transactions per pair have been checked by the serializability checker.

Each pair runs in chunks: one engine run of --chunk committed transactions
(--measure_txns, no warm-up, so the recorded history is the whole run) with
its own seed, loaded afresh, its history checked in full and its invariants
checked after the run. Chunking bounds the checker's memory (about 1.1 GiB
per million 16-access transactions, docs/verify.md); every chunk is a
complete history, so no cycle can cross a chunk boundary. More worker threads
than cores (--threads, default twice the CPUs) so that workers are preempted
in the middle of transactions.

Each chunk's result JSON is kept under --out-dir (default results/soak/);
a chunk already there, made by the same binary, is not run again, so an
interrupted soak resumes. The table (protocol, workload, runs, transactions
verified, violations, invariant checks and failures; a pair the binary
refuses by configuration, exit 2 on the first chunk, is listed as refused
and not counted) goes to
<out-dir>/soak.csv and paper_figures/soak.md. Exit status 0 when every pair
reached --txns with no violation, no broken invariant and no failed run;
1 otherwise; 2 on bad arguments.
"""
from __future__ import annotations

import argparse
import csv
import glob
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent



sys.path.insert(0, str(ROOT / "scripts"))
from ccbench import registry  # noqa: E402  (the protocol and workload registries)

# High contention per workload (a few hot keys or one warehouse): the last
# field of each line of the workload registry, workloads/workloads.txt.
CONTENDED = {name: list(w.contended_flags) for name, w in registry.workloads(ROOT).items()}
# Protocols without concurrency control by design (engine/cc/protocols.txt).
NOT_SERIALIZABLE = {name for name, p in registry.protocols(ROOT).items() if not p.serializable}


def built_protocols(engine: str) -> list[str]:
    prefix, _, suffix = engine.partition("{cc}")
    names = sorted(p[len(prefix):len(p) - len(suffix)] for p in glob.glob(prefix + "*" + suffix))
    return [n for n in names if n not in NOT_SERIALIZABLE]


def digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def run_chunk(binary: str, workload: str, seed: int, args: argparse.Namespace, out: Path) -> dict:
    """One verified run; returns its JSON (with the binary's digest), or a
    failure record when the engine wrote none."""
    command = [binary, f"--workload={workload}", *CONTENDED[workload], f"--threads={args.threads}", "--warmup=0",
               f"--measure_txns={args.chunk}", f"--seed={seed}", "--verify", f"--out={out}"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout_s)
    if out.is_file():
        result = json.loads(out.read_text())
    else:
        result = {"failure": f"exit {done.returncode}: {done.stderr.strip()[-500:]}"}
    result["exit_code"] = done.returncode
    result["binary_digest"] = digest(binary)
    out.write_text(json.dumps(result))
    return result


def soak_pair(cc: str, workload: str, args: argparse.Namespace) -> dict:
    binary = args.engine.replace("{cc}", cc)
    row = {"protocol": cc, "workload": workload, "runs": 0, "txns_verified": 0, "violations": 0,
           "invariant_checks": 0, "invariants_broken": 0, "failed_runs": 0, "refused": ""}
    seed = 0
    while row["txns_verified"] < args.txns:
        seed += 1
        out = args.out_dir / f"{cc}_{workload}_{seed}.json"
        result = json.loads(out.read_text()) if out.is_file() else None
        if result is None or result.get("binary_digest") != digest(binary):
            result = run_chunk(binary, workload, seed, args, out)
        if "verify" not in result and result["exit_code"] == 2 and seed == 1:
            # The binary refuses the pair by configuration (exit 2 before
            # loading: e.g. PartCC on a workload without partitions): not a
            # failure, and nothing to soak.
            row["refused"] = result["failure"].partition(": ")[2].removeprefix("error: ")
            break
        row["runs"] += 1
        if "verify" not in result:
            row["failed_runs"] += 1
            print(f"soak: {cc} {workload} seed {seed}: no verified result ({result.get('failure')})", file=sys.stderr)
            if row["failed_runs"] >= 3:
                break  # a pair that keeps failing would loop forever
            continue
        row["txns_verified"] += result["verify"]["counts"]["txns"]
        row["violations"] += 0 if result["serializable"] else 1
        row["invariant_checks"] += len(result["invariants"])
        row["invariants_broken"] += sum(1 for inv in result["invariants"] if not inv["ok"])
        if not result["serializable"]:
            print(f"soak: {cc} {workload} seed {seed}: NOT SERIALIZABLE: {result['violation']}", file=sys.stderr)
    return row


def write_table(rows: list[dict], args: argparse.Namespace) -> None:
    with open(args.out_dir / "soak.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    lines = [f"# Verified soak: {args.txns:,} transactions per pair, chunks of {args.chunk:,}, "
             f"{args.threads} threads on {os.cpu_count()} CPUs", "",
             "| protocol | workload | runs | transactions verified | violations | invariant checks | broken | failed runs |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["refused"]:
            lines.append(f"| {r['protocol']} | {r['workload']} | refused by the binary: {r['refused']} ||||||")
            continue
        lines.append(f"| {r['protocol']} | {r['workload']} | {r['runs']} | {r['txns_verified']:,} | {r['violations']} | "
                     f"{r['invariant_checks']} | {r['invariants_broken']} | {r['failed_runs']} |")
    args.table.parent.mkdir(parents=True, exist_ok=True)
    args.table.write_text("\n".join(lines) + "\n")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--txns", type=int, default=10_000_000, help="verified transactions per pair (default 10M)")
    parser.add_argument("--chunk", type=int, default=1_000_000, help="committed transactions per verified run")
    parser.add_argument("--threads", type=int, default=2 * (os.cpu_count() or 1), help="workers (default 2 x CPUs)")
    parser.add_argument("--protocols", default="", help="comma-separated (default: every built serializable one)")
    parser.add_argument("--workloads", default=",".join(CONTENDED), help="comma-separated")
    parser.add_argument("--engine", default=str(ROOT / "bin" / "rundb-{cc}"), help="binary template with {cc}")
    parser.add_argument("--out-dir", type=Path, default=ROOT / "results" / "soak")
    parser.add_argument("--table", type=Path, default=ROOT / "paper_figures" / "soak.md")
    parser.add_argument("--timeout-s", type=float, default=3600)
    args = parser.parse_args(argv)
    if args.txns < 1 or args.chunk < 1 or args.threads < 1:
        parser.error("--txns, --chunk and --threads must be >= 1")
    workloads = [w for w in args.workloads.split(",") if w]
    unknown = [w for w in workloads if w not in CONTENDED]
    if unknown or not workloads:
        parser.error(f"--workloads: unknown {','.join(unknown) or '(none)'}; allowed: {','.join(CONTENDED)}")
    args.workloads = workloads
    available = built_protocols(args.engine)
    protocols = [p for p in args.protocols.split(",") if p] or available
    missing = [p for p in protocols if p not in available]
    if missing or not protocols:
        parser.error(f"--protocols: no serializable binary for {','.join(missing) or '(none)'}; "
                     f"built: {','.join(available) or '(none: run make build)'}")
    args.protocols = protocols
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for cc in args.protocols:
        for workload in args.workloads:
            rows.append(soak_pair(cc, workload, args))
            r = rows[-1]
            if r["refused"]:
                print(f"soak: {cc:10s} {workload:9s} refused by the binary: {r['refused']}", flush=True)
            else:
                print(f"soak: {cc:10s} {workload:9s} {r['txns_verified']:>12,} verified in {r['runs']} runs, "
                      f"{r['violations']} violations, {r['invariants_broken']} broken invariants", flush=True)
            write_table(rows, args)
    refused = [r for r in rows if r["refused"]]
    bad = [r for r in rows if not r["refused"] and (r["violations"] or r["invariants_broken"] or r["failed_runs"]
                                                    or r["txns_verified"] < args.txns)]
    print(f"soak: table in {args.table} and {args.out_dir / 'soak.csv'}; "
          f"{len(rows) - len(bad) - len(refused)} of {len(rows) - len(refused)} pairs clean"
          f" ({len(refused)} refused by the binary)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
