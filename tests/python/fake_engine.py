#!/usr/bin/env python3
"""A stand-in for bin/rundb-<cc> that honours the engine's interface contract.

Flags as in ARCHITECTURE.md (unknown ones: exit 2, like gflags). It sleeps
for warmup + duration, then writes a result JSON whose numbers depend
deterministically on the protocol, threads, theta and seed.

Misbehaviour for tests, at the points where --misbehave_when=<flag>=<value>
matches (or everywhere without it): --misbehave=crash (SIGABRT), hang,
exit2, exit3, nojson, badjson.
If FAKE_ENGINE_LOG is set, every invocation appends its flags as one line.
"""
import argparse
import json
import os
import signal
import sys
import time

PROTOCOL_SPEED = {"nowait": 1.0, "occ": 0.8, "silo": 1.3, "tictoc": 1.4}


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(allow_abbrev=False)
    parser.add_argument("--list_flags", action="store_true")   # as the engine: its flags, one per line
    parser.add_argument("--cc", required=True)
    parser.add_argument("--workload", default="ycsb")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--duration", type=float, default=1.0)
    parser.add_argument("--warmup", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out")
    parser.add_argument("--verify", default="false")
    parser.add_argument("--frontend", default="none")
    parser.add_argument("--table_size", type=int, default=1000)
    parser.add_argument("--req_per_txn", type=int, default=16)
    parser.add_argument("--payload_size", type=int, default=100)
    parser.add_argument("--read_ratio", type=float, default=0.5)
    parser.add_argument("--theta", type=float, default=0.6)
    parser.add_argument("--partitions", type=int, default=0)
    parser.add_argument("--misbehave", choices=["none", "crash", "hang", "exit2", "exit3", "nojson", "badjson"],
                        default="none")
    parser.add_argument("--misbehave_when", default="")
    return parser.parse_args()   # a bad flag exits with status 2, as the engine does


def same_value(actual: object, wanted: str) -> bool:
    try:
        return float(actual) == float(wanted)
    except (TypeError, ValueError):
        return str(actual) == wanted


def misbehaviour(args: argparse.Namespace) -> str:
    if not args.misbehave_when:
        return args.misbehave
    name, _, wanted = args.misbehave_when.partition("=")
    return args.misbehave if same_value(getattr(args, name), wanted) else "none"


def result(args: argparse.Namespace) -> dict:
    speed = PROTOCOL_SPEED.get(args.cc, 1.0)
    throughput = 1e5 * speed * args.threads * (1.0 - 0.5 * args.theta) * (1 + 0.01 * (args.seed % 3))
    commits = int(throughput * args.duration)
    abort_rate = min(0.9, 0.05 * args.theta * args.threads / speed)
    aborts = int(commits * abort_rate / (1 - abort_rate))
    config = {k: v for k, v in vars(args).items() if k not in ("out", "misbehave", "misbehave_when")}
    return {
        "config": config,
        "provenance": {"git": "fake", "compiler": "none", "machine": {"cpus": os.cpu_count()}},
        "throughput": throughput, "commits": commits, "aborts": aborts,
        "aborts_by_reason": {"conflict": aborts},
        "retries_per_100k": 1e5 * aborts / max(commits, 1),
        "latency_us": {"avg": 10 / speed, "p50": 8 / speed, "p90": 15 / speed, "p95": 20 / speed,
                       "p99": 40 / speed, "p999": 80 / speed, "max": 200 / speed},
        "per_txn_type": {"ycsb": {"commits": commits, "aborts": aborts}},
        "phases": {"execute_s": args.duration * 0.8, "abort_s": args.duration * 0.2},
        "frontend": {}, "memory": {"peak_rss_bytes": 1 << 20}, "invariants_ok": True,
    }


def main() -> None:
    args = parse()
    if args.list_flags:
        print("\n".join(name for name in vars(args) if name not in ("cc", "list_flags")))
        return
    if os.environ.get("FAKE_ENGINE_LOG"):
        with open(os.environ["FAKE_ENGINE_LOG"], "a") as log:
            log.write(" ".join(sorted(a for a in sys.argv[1:] if not a.startswith("--out="))) + "\n")
    behaviour = misbehaviour(args)
    print(f"fake engine: {args.cc} theta={args.theta} threads={args.threads}", file=sys.stderr)
    if behaviour == "exit2":
        print("ERROR: flag --theta: value rejected by the fake engine", file=sys.stderr)
        sys.exit(2)
    if behaviour == "hang":
        time.sleep(3600)
    time.sleep(args.warmup + args.duration)
    if behaviour == "crash":
        print("fake engine: assertion failed, aborting", file=sys.stderr)
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGABRT)
    document = result(args)
    if behaviour == "exit3":
        document["invariants_ok"] = False
    text = json.dumps(document)
    if behaviour == "badjson":
        text = text[: len(text) // 2]
    if behaviour != "nojson":
        if args.out:
            with open(args.out, "w") as f:
                f.write(text)
        else:
            print(text)
    if behaviour == "exit3":
        print("invariant violated: sum of balances changed", file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
