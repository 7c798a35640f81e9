#!/usr/bin/env python3
"""A stand-in for bin/rundb-<cc> that honours the engine's interface contract.

Flags as the engine's (`bin/rundb-<cc> --help`; unknown ones: exit 2, like
gflags). It sleeps for warmup + duration (no duration with --measure_txns,
which commits exactly that many), then writes a YCSB result document that matches
docs/result.schema.json (tests/python/test_result_schema.py checks it), whose
numbers depend deterministically on the protocol, threads, theta and seed.

--validate_only checks the flags (argparse's types and choices, --theta in
[0, 10] and --threads in [1, 1024] as the engine's) and exits 0 or 2 without running or logging.
--prefetch=true (the default) is 1.5 times as fast as false; --profile and
--memory_bound add their sections, as the profile build and the engine do.

Misbehaviour for tests, at the points where --misbehave_when=<flag>=<value>
matches (or everywhere without it): --misbehave=crash (SIGABRT), hang,
exit2, exit3, exit4 (the measured interval committed nothing, nothing
written), unserializable (with --verify: the checker finds a lost update,
exit 3), nojson, badjson, offschema (a well-formed document in which
latency_us.p99 is renamed, as a writer drifting from the schema would).
If FAKE_ENGINE_LOG is set, every invocation appends its flags as one line.

Simulation (docs/sim.md): with --sim_cost_table (which must name a file) it
stands for bin/sim/rundb-<cc>: throughput from the cost table, no noise, and
the result's `sim` section; --sim_calibrate=PATH writes a cost table
(FAKE_ENGINE_CALIBRATE_FAIL=1: the calibration fails, exit 1).

Noise for the verdicts' tests: --noise=r multiplies the throughput by a factor
in [1 - r, 1 + r] drawn from the protocol and the seed (the same run always
measures the same). Other processes for the load records' tests: with
FAKE_ENGINE_BUSY_QUEUE naming a file of numbers, each run takes the first line
(and removes it) and adds that many jiffies of user time to the planted
$CCBENCH_PROC_ROOT/stat while it runs, as a busy machine would.
"""
import argparse
import hashlib
import json
import os
import signal
import sys
import time
import zlib
from pathlib import Path

PROTOCOL_SPEED = {"nowait": 1.0, "occ": 0.8, "silo": 1.3, "tictoc": 1.4, "nocc": 2.0}
# The protocols' own counters (cc_stats), for those that keep some.
PROTOCOL_STATS = {"silo": {"snapshot_txns": 0, "versions_saved": 0}}
ABORT_REASONS = ["lock_conflict", "validation", "wait_die", "deadlock", "user_abort", "not_found",
                 "prediction_mismatch", "history_memory"]


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(allow_abbrev=False)
    parser.add_argument("--list_flags", action="store_true")   # as the engine: its flags, one per line
    parser.add_argument("--cc", required=True, choices=sorted(PROTOCOL_SPEED))
    parser.add_argument("--workload", default="ycsb", choices=["ycsb"])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--duration", type=float, default=1.0)
    parser.add_argument("--warmup", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--measure_txns", type=int, default=0)
    parser.add_argument("--memory_bound", default="false", choices=["true", "false"])
    parser.add_argument("--prefetch", default="true", choices=["true", "false"])
    parser.add_argument("--profile", default="false", choices=["true", "false"])
    parser.add_argument("--out")
    parser.add_argument("--verify", default="false", choices=["true", "false"])
    parser.add_argument("--frontend", default="none", choices=["none"])
    parser.add_argument("--table_size", type=int, default=1000)
    parser.add_argument("--req_per_txn", type=int, default=16)
    parser.add_argument("--payload_size", type=int, default=100)
    parser.add_argument("--read_ratio", type=float, default=0.5)
    parser.add_argument("--theta", type=float, default=0.6)
    parser.add_argument("--partitions", type=int, default=0)
    parser.add_argument("--home_partition", default="uniform", choices=["uniform", "worker"])
    parser.add_argument("--noise", type=float, default=0.0)
    parser.add_argument("--misbehave", default="none",
                        choices=["none", "crash", "hang", "exit2", "exit3", "exit4", "unserializable", "nojson", "badjson",
                                 "offschema"])
    parser.add_argument("--misbehave_when", default="")
    parser.add_argument("--validate_only", action="store_true")   # as the engine: check the flags, exit 0 or 2
    # The simulation build's flags (docs/sim.md): given a cost table, the fake is bin/sim/rundb-<cc>.
    parser.add_argument("--sim_cost_table")
    parser.add_argument("--sim_physical_cores", type=int, default=16)
    parser.add_argument("--sim_smt_factor", type=float, default=1.6)
    parser.add_argument("--sim_line_transfer_ns", type=float, default=100.0)
    parser.add_argument("--sim_line_residency_ns", type=float, default=1e6)
    parser.add_argument("--sim_watchdog_events", type=int, default=1000000)
    parser.add_argument("--sim_watchdog_stall_s", type=float, default=0.1)
    parser.add_argument("--sim_sockets", type=int, default=1)
    parser.add_argument("--sim_socket_transfer_ns", type=float, default=0.0)
    parser.add_argument("--sim_calibrate")
    parser.add_argument("--sim_work_scale", default="")
    parser.add_argument("--sim_work_scale_source", default="")
    # The modelled machine (configs/machines/, docs/sim.md "The modelled machine"): its between-core costs.
    for op in MACHINE_OPS:
        parser.add_argument(f"--sim_{op}_ns", type=float, default=0.0)
    parser.add_argument("--sim_machine", default="")
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


# The protocols' own flags, echoed by their binaries only (engine/cc/bcc/options.cpp, engine/cc/mocc/options.cpp,
# engine/cc/occ/options.cpp, engine/cc/orthrus/options.cpp, engine/cc/silo/options.cpp, engine/cc/tictoc/options.cpp).
PROTOCOL_OPTIONS = {"bcc": {"bcc_breakdown": False, "bcc_fence": "per_read"},
                    "mocc": {"mocc_temperature_threshold": 10, "mocc_decay_ms": 1000},
                    "occ": {"occ_validation": "wait", "occ_read_abort": False},
                    "orthrus": {"orthrus_wait": "poll"},
                    "silo": {"silo_validation": "wait"},
                    "tictoc": {"tictoc_validation": "wait"}}


def config(args: argparse.Namespace) -> dict:
    """The engine's config object: its runtime flags (defaults for those the fake does not take), YCSB's knobs,
    and the build."""
    return {
        "cc": args.cc, "workload": args.workload, "threads": args.threads, "duration": args.duration,
        "warmup": args.warmup, "measure_txns": args.measure_txns, "seed": args.seed, "verify": args.verify == "true",
        "history_out": "", "frontend": args.frontend, "pin": False, "timeline": False,
        "memory_bound": args.memory_bound == "true", "prefetch": args.prefetch == "true",
        "profile": args.profile == "true", "txn_buffer": 4096, "backoff_max_us": 100, "abort_policy": "backoff",
        "abort_buffer_size": 10, "abort_penalty_us": 100, "load_threads": 1,
        "ignore_memory_limit": False, "tsdefer_lookups": 2, "tsdefer_deferp": 0.6, "tsdefer_threshold": 1,
        "tsdefer_lookahead": 0, "access_set_accuracy": 1.0, "attempt_latency_type": "",
        "retry_aborted": True, **PROTOCOL_OPTIONS.get(args.cc, {}),
        "table_size": args.table_size, "payload_size": args.payload_size, "req_per_txn": args.req_per_txn,
        "read_ratio": args.read_ratio, "theta": args.theta, "partitions": args.partitions,
        "home_partition": args.home_partition,
        "compile": {"cc": args.cc, "build_type": "Release", "sanitize": "none", "native": False},
    }


def provenance(args: argparse.Namespace) -> dict:
    cpus = os.cpu_count() or 1
    return {
        "git_revision": "unknown", "git_dirty": False, "compiler": "fake", "cxx_flags": "", "build_type": "Release",
        "sanitize": "none", "native": False, "cpu_model": "fake", "logical_cpus": cpus, "physical_cores": cpus,
        "smt_siblings": 1, "numa_nodes": 1, "hostname": "fake", "kernel": "fake",
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "pinned": False,
        "workers_shared_physical_core": True if args.threads > cpus else None,
    }


def result(args: argparse.Namespace) -> dict:
    speed = PROTOCOL_SPEED[args.cc]
    throughput = 1e5 * speed * args.threads * (1.0 - 0.5 * args.theta) * (1 + 0.01 * (args.seed % 3))
    draw = zlib.crc32(f"{args.cc}:{args.seed}".encode()) / 2**32       # in [0, 1), fixed per protocol and seed
    throughput *= 1 + args.noise * (2 * draw - 1)
    throughput *= 1.5 if args.prefetch == "true" else 1.0
    commits = args.measure_txns or int(throughput * args.duration)
    abort_rate = min(0.9, 0.05 * args.theta * args.threads / speed)
    aborts = int(commits * abort_rate / (1 - abort_rate))
    latency_us = {"avg": 10 / speed, "p50": 8 / speed, "p90": 15 / speed, "p95": 20 / speed, "p99": 40 / speed,
                  "p999": 80 / speed, "max": 200 / speed}
    document = {
        "config": config(args), "provenance": provenance(args),
        "throughput": throughput, "commits": commits, "aborts": aborts,
        "abort_rate": aborts / (commits + aborts) if commits + aborts else 0.0, "user_aborts": 0,
        "retries_per_100k": 1e5 * aborts / max(commits, 1),
        "aborts_by_reason": {reason: aborts if reason == "validation" else 0 for reason in ABORT_REASONS},
        "latency_us": latency_us,
        "per_txn_type": {"ycsb": {"commits": commits, "throughput": throughput, "aborts": aborts, "user_aborts": 0,
                                  "avg_latency_us": latency_us["avg"]}},
        "phases": {"load_s": 0.0, "warmup_s": args.warmup, "measured_s": args.duration},
        "frontend": {"name": args.frontend},
        "contended_latch_acquisitions": 0, "contended_latch_acquisitions_per_100k": 0.0,
        "memory": {"peak_rss_bytes": 1 << 20, "tables_bytes": args.table_size * (args.payload_size + 64),
                   "huge_page_bytes": 0, "transparent_hugepages": "madvise"},
        "invariants_ok": True,
        "invariants": [{"name": "ycsb_counter_sum", "ok": True, "detail": f"{commits} = {commits}"}],
    }
    if args.cc in PROTOCOL_STATS:
        document["cc_stats"] = PROTOCOL_STATS[args.cc]
    if args.verify == "true":
        document["phases"]["verify_s"] = 0.0
        counts = dict.fromkeys(["txns", "accesses", "reads", "writes", "edges_ww", "edges_wr", "edges_rw",
                                "graph_edges", "lost_updates", "aborted_reads", "unknown_versions", "cyclic_sccs",
                                "largest_scc"], 0)
        counts["txns"] = commits
        phases = dict.fromkeys(["group_seconds", "graph_seconds", "scc_seconds", "witness_seconds"], 0.0)
        document.update(serializable=True, violation=None,
                        verify={"serializable": True, "violation": None, "counts": counts, "phases": phases,
                                "check_seconds": 0.0})
    if args.memory_bound == "true":
        document["memory_bound"] = {"buffer_bytes": 1 << 20, "transparent_hugepages": "madvise",
                                    "latency_ns": 100.0, "access_bound_ns": 200.0,
                                    "mlp_ns_per_access": {"2": 50.0, "4": 25.0, "8": 15.0, "16": 10.0},
                                    "best_mlp_ns_per_access": 10.0}
    if args.profile == "true":
        # shares: abort theta/2 (half aborted attempts, half backoff); of the rest index half, lock and execute
        # a quarter each; the categories hold 80 % of the measured worker time (20 % between attempts)
        abort = 0.5 * args.theta
        shares = {"abort": abort, "lock": 0.25 * (1 - abort), "execute": 0.25 * (1 - abort),
                  "index": 0.5 * (1 - abort), "validation": 0.0, "analysis": 0.0}
        timed = 0.8 * args.threads * args.duration
        seconds = {name: share * timed for name, share in shares.items()}
        document["profile"] = {**shares, "seconds": seconds,
                               "abort_seconds": {"attempts": seconds["abort"] / 2, "backoff": seconds["abort"] / 2}}
    return document


# The engine's cost table: ns per operation (engine/sim/sim.h, sim::Op; $defs/sim of docs/result.schema.json).
COST_TABLE = {"txn_begin": 300.0, "index_probe": 40.0, "row_read": 25.0, "row_write": 35.0, "row_install": 10.0,
              "insert": 60.0, "commit": 120.0, "abort": 30.0, "atomic_rmw": 20.0, "atomic_load": 2.0,
              "spin_round": 20.0, "line_transfer": 100.0, "wake_up": 4000.0}


def calibrate(path: str) -> None:
    """--sim_calibrate: write the cost table (FAKE_ENGINE_CALIBRATE_FAIL: fail as a broken calibration would)."""
    if os.environ.get("FAKE_ENGINE_CALIBRATE_FAIL"):
        print("fake engine: calibration failed: cannot measure the row read", file=sys.stderr)
        sys.exit(1)
    if os.environ.get("FAKE_ENGINE_LOG"):
        with open(os.environ["FAKE_ENGINE_LOG"], "a") as log:
            log.write(f"--sim_calibrate={path}\n")
    # The calibration time varies the file's bytes, as a real calibration's measurements do.
    Path(path).write_text(json.dumps({**COST_TABLE, "txn_begin": COST_TABLE["txn_begin"] + time.time() % 1e-3}))


# The ops a machine's --sim_<op>_ns replaces (engine/sim/sim.h, kMachineCosts), but line_transfer, which the fake
# keeps as its own flag with a default.
MACHINE_OPS = ("atomic_rmw", "atomic_load", "spin_round", "wake_up")


def fake_model(args: argparse.Namespace, table_text: str) -> dict:
    """sim.model: which model produced the numbers, as the engine says it (sim.cpp, write_model_json)."""
    from_machine = {op for op in MACHINE_OPS if getattr(args, f"sim_{op}_ns") > 0}
    from_machine |= {"line_transfer"} if args.sim_machine else set()
    sources = {op: "machine" if op in from_machine else "cost_table" for op in json.loads(table_text)}
    work_source = args.sim_work_scale_source or ("--sim_work_scale" if args.sim_work_scale else "none")
    return {"cost_table_source": args.sim_cost_table,
            "cost_table_sha256": hashlib.sha256(table_text.encode()).hexdigest(),
            "builtin_cost_table": False, "machine": args.sim_machine, "op_sources": sources,
            "work_scale": args.sim_work_scale, "work_scale_source": work_source,
            "summary": f"sim model: cost table {args.sim_cost_table}; machine {args.sim_machine or 'none'}; "
                       f"work scale {args.sim_work_scale or 'none'} ({work_source})"}


def simulate(args: argparse.Namespace, document: dict) -> None:
    """The simulation's result (docs/sim.md): deterministic for flags, seed and cost table (no --noise, as a
    simulation has no measurement noise), with the `sim` section of the contract."""
    table_text = Path(args.sim_cost_table).read_text()
    table = json.loads(table_text)
    table.update({op: getattr(args, f"sim_{op}_ns") for op in MACHINE_OPS if getattr(args, f"sim_{op}_ns") > 0})
    # (a wake-up is paid only by blocking waits, of which the fake engine has none)
    scale = 1e6 / sum(ns for op, ns in table.items() if op != "wake_up")
    # --sim_work_scale scales the local work, 60% of a transaction's time here: time per commit is linear in
    # it (and at 1 the fake simulation runs about as fast as the fake native engine).
    work_scale = float(args.sim_work_scale.split(":")[-1]) if args.sim_work_scale else 1.0
    throughput = 1e5 * PROTOCOL_SPEED[args.cc] * args.threads * (1.0 - 0.5 * args.theta) * scale
    throughput /= 1000 * (0.4 + 0.6 * work_scale)
    document.update(throughput=throughput, commits=int(throughput * args.duration))
    document["per_txn_type"]["ycsb"].update(commits=document["commits"], throughput=throughput,
                                            avg_latency_us=1e6 * args.threads / throughput)
    document["sim"] = {"virtual_cores": args.threads, "virtual_seconds": args.warmup + args.duration,
                       "events": 1000 * args.threads, "fiber_switches": 500 * args.threads, "wall_seconds": 0.01,
                       "cost_table": table, "cost_table_source": args.sim_cost_table,
                       "physical_cores": args.sim_physical_cores, "smt_factor": args.sim_smt_factor,
                       "line_transfer_ns": args.sim_line_transfer_ns, "line_residency_ns": args.sim_line_residency_ns,
                       "watchdog_events": args.sim_watchdog_events,
                       "watchdog_stall_s": args.sim_watchdog_stall_s,
                       "sockets": args.sim_sockets,
                       "socket_transfer_ns": args.sim_socket_transfer_ns or 2 * args.sim_line_transfer_ns,
                       "time_breakdown": fake_time_breakdown(args),
                       "address_randomization": False,
                       "work_scale": {"ycsb": work_scale},
                       "model": fake_model(args, table_text),
                       "flags": {"sim_work_scale": args.sim_work_scale,
                                 "sim_work_scale_source": args.sim_work_scale_source,
                                 "sim_machine": args.sim_machine,
                                 **{f"sim_{op}_ns": getattr(args, f"sim_{op}_ns") for op in MACHINE_OPS}, "sim_cost_table": args.sim_cost_table, "sim_physical_cores": args.sim_physical_cores,
                                 "sim_smt_factor": args.sim_smt_factor,
                                 "sim_line_transfer_ns": args.sim_line_transfer_ns,
                                 "sim_line_residency_ns": args.sim_line_residency_ns,
                                 "sim_watchdog_events": args.sim_watchdog_events,
                                 "sim_watchdog_stall_s": args.sim_watchdog_stall_s,
                                 "sim_sockets": args.sim_sockets,
                                 "sim_socket_transfer_ns": args.sim_socket_transfer_ns}}


def fake_time_breakdown(args: argparse.Namespace) -> dict:
    """sim.time_breakdown (docs/sim.md, "Where the time goes"): every core all local work over the interval."""
    kinds = ["local_work", "shared_access", "rmw", "rmw_queued", "line_transfer", "spin", "sleep", "delay", "parked",
             "idle"]
    core = {kind: args.duration if kind == "local_work" else 0.0 for kind in kinds}
    return {"window": "measured", "window_seconds": args.duration,
            "cores": {kind: value * args.threads for kind, value in core.items()},
            "per_core": [dict(core) for _ in range(args.threads)]}


def busy_while_running() -> None:
    """Add the next queued jiffies of other processes' user time to the planted /proc/stat."""
    queue, root = os.environ.get("FAKE_ENGINE_BUSY_QUEUE"), os.environ.get("CCBENCH_PROC_ROOT")
    if not queue or not root or not Path(queue).exists():
        return
    lines = Path(queue).read_text().splitlines()
    if not lines:
        return
    Path(queue).write_text("".join(line + "\n" for line in lines[1:]))
    stat = Path(root) / "stat"
    first, *rest = stat.read_text().splitlines()
    fields = first.split()
    fields[1] = str(int(fields[1]) + int(lines[0]))
    stat.write_text("\n".join([" ".join(fields), *rest]) + "\n")


def main() -> None:
    args = parse()
    if args.list_flags:
        print("\n".join(name for name in vars(args) if name not in ("cc", "list_flags")))
        return
    if not 0 <= args.theta <= 10:   # the engine's range of --theta
        print(f"error: --theta: invalid value '{args.theta:g}'; allowed: a number in [0, 10]", file=sys.stderr)
        sys.exit(2)
    if not 1 <= args.threads <= 1024:   # the engine's range of --threads
        print(f"error: --threads: invalid value '{args.threads}'; allowed: an integer in [1, 1024]", file=sys.stderr)
        sys.exit(2)
    if args.sim_cost_table is not None and not Path(args.sim_cost_table).is_file():
        print(f"error: --sim_cost_table: no such file '{args.sim_cost_table}'", file=sys.stderr)
        sys.exit(2)
    if args.sim_cost_table is not None:   # as the engine: a table from an older build lacks an op
        lacking = [op for op in COST_TABLE if op not in json.loads(Path(args.sim_cost_table).read_text())]
        if lacking:
            print(f"error: --sim_cost_table: invalid value '{args.sim_cost_table}'; allowed: every op "
                  f"('{args.sim_cost_table}' lacks \"{lacking[0]}\": a calibration by an older build; calibrate "
                  f"again)", file=sys.stderr)
            sys.exit(2)
    if args.sim_calibrate:
        calibrate(args.sim_calibrate)
        return
    if args.validate_only:
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
    busy_while_running()
    time.sleep(args.warmup + (0 if args.measure_txns else args.duration))
    if behaviour == "exit4":  # the engine's refusal of a measured interval without a commit: nothing written
        print("fake engine: the measured interval committed nothing (0 commits, 812 aborts)", file=sys.stderr)
        sys.exit(4)
    if behaviour == "crash":
        print("fake engine: assertion failed, aborting", file=sys.stderr)
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGABRT)
    document = result(args)
    if args.sim_cost_table:
        simulate(args, document)
    if behaviour == "exit3":
        document["invariants_ok"] = document["invariants"][0]["ok"] = False
    if behaviour == "unserializable" and "verify" in document:
        violation = {"kind": "lost_update", "message": "fake: two writers read the same version", "txns": [1, 2]}
        document.update(serializable=False, violation=violation)
        document["verify"].update(serializable=False, violation=violation)
    if behaviour == "offschema":
        document["latency_us"]["p99_us"] = document["latency_us"].pop("p99")
    text = json.dumps(document)
    if behaviour == "badjson":
        text = text[: len(text) // 2]
    if behaviour != "nojson":
        if args.out:
            with open(args.out, "w") as f:
                f.write(text)
        else:
            print(text)
    if behaviour in ("exit3", "unserializable"):
        print("invariant violated: sum of balances changed" if behaviour == "exit3" else "not serializable",
              file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
