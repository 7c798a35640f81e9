#!/usr/bin/env python3
"""Runs the engine on a fixed grid of points and prints a table.

  scripts/engine_bench.py demo    a first look: every protocol on YCSB, ~2 s each
  scripts/engine_bench.py bench   `make bench`: the engine benchmark grid
      YCSB: 16 requests, 50% reads, 1M and 10M rows, theta 0..0.99, 1 and 2
            threads, plus the DBx1000 reference point (10M rows of 1000 B);
      TPC-C: 1, 2 and 4 warehouses, standard and NewOrder/Payment 50/50
            mixes, 2 threads;
      then the front-end benchmarks bench_fvs and bench_strife.
  scripts/engine_bench.py compare BEFORE AFTER [--grid bench|quick] [--repeats N]
      a before/after comparison of two sets of binaries (directories holding
      rundb-<cc>, e.g. a copy of bin/ taken before a change, and bin/): every
      point of the grid runs BEFORE, AFTER, AFTER, BEFORE, ... (N runs of
      each, interleaved, so drift of a noisy machine hits both alike) and the
      table shows the median throughput of each and their ratio. `quick` is
      YCSB 1M rows at theta 0, 0.9, 0.99 and TPC-C 4 warehouses, 2 threads.
  scripts/engine_bench.py cost [--rows N] [--theta T] [--repeats N] [--duration S]
      `make bench-cost`: ns per access of every protocol (nocc included, on
      one worker) on YCSB, 16 accesses, with prefetching on and off, and the
      prefetching cost split by --profile into index, lock, execute,
      validation and abort: the table of docs/protocols.md, "Cost per
      access" (default 10M rows, theta 0, 3 round-robin rounds of 2 s runs).

Protocols: every bin/rundb-<cc> except nocc (not serializable by design;
`cost` runs it as the floor).
Each run's JSON goes to results/engine-bench/<suite>/; the table shows
committed transactions per second and nanoseconds per committed transaction
per thread (threads * measured seconds / commits); for YCSB also nanoseconds
per access (ns/txn/thr / req_per_txn) and its ratio to this machine's
memory-latency bound (two dependent memory latencies per access), which the
first run of each YCSB table size measures with --memory_bound (a pointer
chase over a buffer as large as the tables; engine/stats/memory_bound.h).
"""
import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from ccbench import registry  # noqa: E402  (engine/cc/protocols.txt)

# Protocols without concurrency control by design (nocc): correct on one worker only.
UNSERIALIZABLE = sorted(name for name, p in registry.protocols().items() if not p.serializable)
RUN = dict(duration=2, warmup=0.5)


def protocols(bin_dir=os.path.join(ROOT, "bin")):
    names = sorted(os.path.basename(p)[len("rundb-"):] for p in glob.glob(os.path.join(bin_dir, "rundb-*")))
    return [n for n in names if n not in UNSERIALIZABLE]


def suite(name, ccs=None):
    ccs = ccs if ccs is not None else protocols()
    if name == "quick":
        for point in [dict(workload="ycsb", table_size=1_000_000, theta=theta, req_per_txn=16, read_ratio=0.5)
                      for theta in (0.0, 0.9, 0.99)] + [dict(workload="tpcc", warehouses=4, mix="neworder_payment")]:
            for cc in ccs:
                yield cc, dict(point, threads=2, **RUN)
        return
    if name == "demo":
        for cc in ccs:
            yield cc, dict(workload="ycsb", table_size=1_000_000, theta=0.9, req_per_txn=16, read_ratio=0.5,
                           threads=2, **RUN)
        return
    for rows in (1_000_000, 10_000_000):
        for theta in (0.0, 0.6, 0.8, 0.9, 0.99):
            for threads in (1, 2):
                for cc in ccs:
                    yield cc, dict(workload="ycsb", table_size=rows, theta=theta, req_per_txn=16,
                                   read_ratio=0.5, threads=threads, **RUN)
    # The configuration DBx1000 was measured on (see the engine issue's note).
    for theta in (0.0, 0.6, 0.9):
        for cc in ccs:
            yield cc, dict(workload="ycsb", table_size=10_000_000, payload_size=1000, theta=theta,
                           req_per_txn=16, read_ratio=0.5, threads=2, **RUN)
    for mix in ("neworder_payment", "standard"):
        for warehouses in (1, 2, 4):
            for cc in ccs:
                yield cc, dict(workload="tpcc", warehouses=warehouses, mix=mix, threads=2, **RUN)


def describe(p):
    if p["workload"] == "ycsb":
        return f"ycsb rows={p['table_size']:,} B={p.get('payload_size', 100)} theta={p['theta']}"
    return f"tpcc wh={p['warehouses']} {p['mix']}"


def ns_per_txn(p, r):
    """Worker nanoseconds per committed transaction: threads x measured seconds / commits."""
    return p["threads"] * r["phases"]["measured_s"] * 1e9 / max(r["commits"], 1)


def run_point(binary, p, out):
    """Runs one point; returns the result document, or the failure's last stderr line."""
    cmd = [binary, f"--out={out}"] + [f"--{k}={v}" for k, v in p.items()]
    proc = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        last = proc.stderr.strip().splitlines()[-1:] or ["(no message)"]
        return None, f"failed (exit {proc.returncode}): {last[0]}"
    with open(out) as f:
        return json.load(f), None


def compare(before, after, grid, repeats):
    """Interleaved before/after runs of every point: B A A B B A ... (repeats of each)."""
    for d in (before, after):
        if not os.path.isdir(d):
            sys.exit(f"compare: {d} is not a directory of rundb-<cc> binaries")
    ccs = [cc for cc in protocols(before) if cc in protocols(after)]
    if not ccs:
        sys.exit(f"compare: no rundb-<cc> in both {before} and {after}")
    outdir = os.path.join(ROOT, "results", "engine-bench", "compare")
    os.makedirs(outdir, exist_ok=True)
    print(f"before: {before}\nafter:  {after}\n{repeats} interleaved runs of each per point; median throughput\n")
    header = f"| cc | point | before txn/s | after txn/s | after/before |"
    print(header + "\n|---|---|---:|---:|---:|")
    ratios = []
    for cc, p in suite(grid, ccs):
        runs = {"before": [], "after": []}
        order = [("before", "after") if i % 2 == 0 else ("after", "before") for i in range(repeats)]
        failure = None
        for i, pair in enumerate(order):
            for side in pair:
                binary = os.path.join(before if side == "before" else after, f"rundb-{cc}")
                r, failure = run_point(binary, p, os.path.join(outdir, f"{side}-{cc}.json"))
                if failure:
                    break
                runs[side].append(r["throughput"])
            if failure:
                break
        if failure:
            print(f"| {cc} | {describe(p)} threads={p['threads']} | {failure} |||")
            continue
        b, a = statistics.median(runs["before"]), statistics.median(runs["after"])
        ratios.append(a / b)
        print(f"| {cc} | {describe(p)} threads={p['threads']} | {b:,.0f} | {a:,.0f} | {a / b:.3f} |", flush=True)
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\n{len(ratios)} points: geometric mean after/before {geo:.3f}, "
              f"min {min(ratios):.3f}, max {max(ratios):.3f}")


def run_engine(name):
    outdir = os.path.join(ROOT, "results", "engine-bench", name)
    os.makedirs(outdir, exist_ok=True)
    header = f"{'cc':<10} {'point':<40} {'thr':>3} {'txn/s':>11} {'ns/txn/thr':>10} {'ns/acc':>7} {'x bound':>7} " \
             f"{'abort%':>6} {'p99 us':>8} {'load s':>6} {'peak MiB':>8}"
    print(header)
    print("-" * len(header))
    bounds = {}  # (table_size, payload_size) -> memory_bound of the first run on those tables
    for cc, p in suite(name):
        tables = (p.get("table_size"), p.get("payload_size", 100))
        if p["workload"] == "ycsb" and tables not in bounds:
            p = {**p, "memory_bound": "true"}
        tag = "-".join(f"{k}{v}" for k, v in sorted(p.items()))
        out = os.path.join(outdir, f"{cc}-{tag}.json")
        r, failure = run_point(os.path.join(ROOT, "bin", f"rundb-{cc}"), p, out)
        if failure:
            print(f"{cc:<10} {describe(p):<40} {failure}")
            continue
        ns = ns_per_txn(p, r)
        if "memory_bound" in r:
            bounds[tables] = r["memory_bound"]
        per_access, ratio = "", ""
        if p["workload"] == "ycsb":
            per_access = f"{ns / p['req_per_txn']:,.0f}"
            if tables in bounds:
                ratio = f"{ns / p['req_per_txn'] / bounds[tables]['access_bound_ns']:.2f}"
        print(f"{cc:<10} {describe(p):<40} {p['threads']:>3} {r['throughput']:>11,.0f} {ns:>10,.0f} "
              f"{per_access:>7} {ratio:>7} {100 * r['abort_rate']:>6.1f} {r['latency_us']['p99']:>8.1f} {r['phases']['load_s']:>6.2f} "
              f"{r['memory']['peak_rss_bytes'] / 2**20:>8.0f}", flush=True)
    for (rows, payload), b in bounds.items():
        mlp = ", ".join(f"{k} chains {v:.1f}" for k, v in b["mlp_ns_per_access"].items())
        print(f"\nmemory bound, YCSB {rows:,} rows x {payload} B ({b['buffer_bytes'] / 2**20:,.0f} MiB buffer, "
              f"THP {b['transparent_hugepages']}): latency {b['latency_ns']:.1f} ns, bound per access "
              f"{b['access_bound_ns']:.1f} ns; ns per access with independent chases: {mlp}")
    print(f"\nresults: {os.path.relpath(outdir, ROOT)}/")


COST_PARTS = ("index", "lock", "execute", "validation", "abort")


def cost(rows, theta, repeats, duration):
    """ns per access of every protocol on YCSB (16 accesses, half writes), prefetching on and off.

    Round-robin over the protocols, `repeats` rounds, so the machine's drift hits all alike; the
    median of each, then one --profile run per protocol whose time shares split the prefetching
    median into index, lock, execute, validation and abort (docs/protocols.md, "Cost per access").
    NOCC runs one worker (with two its counter invariant fails), the others two."""
    ccs = UNSERIALIZABLE + protocols()
    outdir = os.path.join(ROOT, "results", "engine-bench", "cost")
    os.makedirs(outdir, exist_ok=True)

    def ns_per_access(cc, extra, bin_dir=os.path.join(ROOT, "bin")):
        p = dict(workload="ycsb", table_size=rows, theta=theta, req_per_txn=16, read_ratio=0.5,
                 threads=1 if cc in UNSERIALIZABLE else 2, duration=duration, warmup=min(0.5, duration), **extra)
        r, failure = run_point(os.path.join(bin_dir, f"rundb-{cc}"), p, os.path.join(outdir, f"{cc}.json"))
        if failure:
            sys.exit(f"cost: rundb-{cc}: {failure}")
        return r, ns_per_txn(p, r) / p["req_per_txn"]

    on, off = {}, {}
    for _ in range(repeats):
        for cc in ccs:
            on.setdefault(cc, []).append(ns_per_access(cc, dict(prefetch="true"))[1])
            off.setdefault(cc, []).append(ns_per_access(cc, dict(prefetch="false"))[1])
    print(f"YCSB {rows:,} rows, theta {theta}, 16 accesses, 2 threads (nocc 1); ns per access, "
          f"median of {repeats} round-robin runs\n")
    print("| protocol | no prefetch | prefetch | gain | " + " | ".join(COST_PARTS) + " | abort rate |")
    print("|---|---:|---:|---:|" + "---:|" * len(COST_PARTS) + "---:|")
    for cc in ccs:
        # --profile runs in the profile build (make build VARIANT=profile).
        r, _ = ns_per_access(cc, dict(profile="true"), os.path.join(ROOT, "build", "profile", "bin"))
        seconds = r["profile"]["seconds"]
        total = sum(seconds.values()) or 1.0
        m_on, m_off = statistics.median(on[cc]), statistics.median(off[cc])
        parts = " | ".join(f"{seconds[k] / total * m_on:.0f}" for k in COST_PARTS)
        print(f"| {cc} | {m_off:.0f} | {m_on:.0f} | {m_off / m_on:.2f}x | {parts} | "
              f"{100 * r['abort_rate']:.2f} % |", flush=True)


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "cost":
        parser = argparse.ArgumentParser(prog="engine_bench.py cost")
        parser.add_argument("--rows", type=int, default=10_000_000)
        parser.add_argument("--theta", type=float, default=0.0)
        parser.add_argument("--repeats", type=int, default=3, help="round-robin rounds (>= 1)")
        parser.add_argument("--duration", type=float, default=2.0, help="measured seconds per run (> 0)")
        args = parser.parse_args(sys.argv[2:])
        if args.repeats < 1:
            parser.error("--repeats: must be >= 1")
        if args.rows < 16:
            parser.error("--rows: must be >= 16 (a transaction makes 16 distinct accesses)")
        if not 0 <= args.theta < 1:
            parser.error("--theta: must be in [0, 1)")
        if args.duration <= 0:
            parser.error("--duration: must be > 0")
        cost(args.rows, args.theta, args.repeats, args.duration)
        return
    if len(sys.argv) >= 2 and sys.argv[1] == "compare":
        parser = argparse.ArgumentParser(prog="engine_bench.py compare")
        parser.add_argument("before", help="directory of the binaries before the change")
        parser.add_argument("after", help="directory of the binaries after the change")
        parser.add_argument("--grid", choices=("bench", "quick"), default="quick")
        parser.add_argument("--repeats", type=int, default=3, help="runs of each side per point (>= 1)")
        args = parser.parse_args(sys.argv[2:])
        if args.repeats < 1:
            parser.error("--repeats: must be >= 1")
        compare(args.before, args.after, args.grid, args.repeats)
        return
    if len(sys.argv) != 2 or sys.argv[1] not in ("demo", "bench"):
        sys.exit("usage: engine_bench.py demo|bench|cost [--rows N --theta T --repeats N --duration S]|"
                 "compare BEFORE AFTER [--grid bench|quick] [--repeats N]")
    run_engine(sys.argv[1])
    if sys.argv[1] == "bench":
        for tool in ("bench_fvs", "bench_strife"):
            print(f"\n== {tool} ==", flush=True)
            subprocess.run([os.path.join(ROOT, "bin", tool)], check=False)


if __name__ == "__main__":
    main()
