#!/usr/bin/env python3
"""Runs the engine on a fixed grid of YCSB points and prints a table.

  scripts/engine_bench.py demo    the README's first look: all protocols, ~2 s each
  scripts/engine_bench.py bench   `make bench`: the engine benchmark grid
                                  (16 requests, 50% reads, 1M and 10M rows,
                                  theta 0..0.99, 1 and 2 threads) plus the
                                  DBx1000 reference point (10M rows of 1000 B)

Each run's JSON goes to results/engine-bench/<suite>/; the table shows
committed transactions per second and nanoseconds per committed transaction
per thread (threads * measured seconds / commits).
"""
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROTOCOLS = ["nowait", "occ", "silo", "tictoc"]


def suite(name):
    if name == "demo":
        for cc in PROTOCOLS:
            yield cc, dict(table_size=1_000_000, theta=0.9, req_per_txn=16, read_ratio=0.5, threads=2,
                           duration=2, warmup=0.5)
        return
    for rows in (1_000_000, 10_000_000):
        for theta in (0.0, 0.6, 0.8, 0.9, 0.99):
            for threads in (1, 2):
                for cc in PROTOCOLS:
                    yield cc, dict(table_size=rows, theta=theta, req_per_txn=16, read_ratio=0.5,
                                   threads=threads, duration=2, warmup=0.5)
    # The configuration DBx1000 was measured on (see the engine issue's note).
    for theta in (0.0, 0.6, 0.9):
        for cc in PROTOCOLS:
            yield cc, dict(table_size=10_000_000, payload_size=1000, theta=theta, req_per_txn=16,
                           read_ratio=0.5, threads=2, duration=2, warmup=0.5)


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("demo", "bench"):
        sys.exit("usage: engine_bench.py demo|bench")
    name = sys.argv[1]
    outdir = os.path.join(ROOT, "results", "engine-bench", name)
    os.makedirs(outdir, exist_ok=True)
    header = f"{'cc':<7} {'rows':>9} {'payload':>7} {'theta':>5} {'thr':>3} {'txn/s':>11} " \
             f"{'ns/txn/thr':>10} {'abort%':>6} {'p99 us':>8} {'load s':>6} {'peak MiB':>8}"
    print(header)
    print("-" * len(header))
    for cc, p in suite(name):
        p.setdefault("payload_size", 100)
        tag = "-".join(f"{k}{v}" for k, v in sorted(p.items()))
        out = os.path.join(outdir, f"{cc}-{tag}.json")
        cmd = [os.path.join(ROOT, "bin", f"rundb-{cc}"), "--workload=ycsb", f"--out={out}"]
        cmd += [f"--{k}={v}" for k, v in p.items()]
        proc = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            print(f"{cc:<7} failed (exit {proc.returncode}): {proc.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.load(open(out))
        ns = p["threads"] * r["phases"]["measured_s"] * 1e9 / max(r["commits"], 1)
        print(f"{cc:<7} {p['table_size']:>9} {p['payload_size']:>7} {p['theta']:>5} {p['threads']:>3} "
              f"{r['throughput']:>11,.0f} {ns:>10,.0f} {100 * r['abort_rate']:>6.1f} "
              f"{r['latency_us']['p99']:>8.1f} {r['phases']['load_s']:>6.2f} "
              f"{r['memory']['peak_rss_bytes'] / 2**20:>8.0f}", flush=True)
    print(f"\nresults: {os.path.relpath(outdir, ROOT)}/")


if __name__ == "__main__":
    main()
