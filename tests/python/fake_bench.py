#!/usr/bin/env python3
"""Stand-ins for the front-end benchmark programs, honouring their output contracts.

  fake_bench.py fvs ...     like bin/bench_fvs --out=PATH: one point, one JSON document in a file
  fake_bench.py strife ...  like bin/bench_strife --format=json: lists of rows on stdout

Unknown flags exit 2, as the real programs do. Misbehaviour on demand:
fvs --algorithm=broken exits 2; --algorithm=silent writes no file;
--algorithm=partial leaves out us_per_graph; strife --fig10_points=garbled
prints text that is not JSON.
If FAKE_ENGINE_LOG is set, every invocation appends its arguments as one line.
"""
import argparse
import json
import os
import sys


def log_invocation() -> None:
    if os.environ.get("FAKE_ENGINE_LOG"):
        with open(os.environ["FAKE_ENGINE_LOG"], "a", encoding="utf-8") as log:
            log.write(" ".join(sys.argv[1:]) + "\n")


def fvs(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False)
    parser.add_argument("--theta", type=float, required=True)
    parser.add_argument("--algorithm", required=True)
    parser.add_argument("--graphs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    if args.algorithm == "broken":
        print("bench_fvs: --algorithm: unknown value 'broken'", file=sys.stderr)
        return 2
    if args.algorithm == "silent":
        return 0
    # random's FVS is twice greedy's and grows with theta; search gives up above 0.7.
    size = (2.0 if args.algorithm == "random" else 1.0) * args.theta * 10
    capped = args.algorithm == "search" and args.theta > 0.7
    document = {"benchmark": "bench_fvs", "config": vars(args), "theta": args.theta, "algorithm": args.algorithm,
                "completed": not capped, "graphs_solved": args.graphs, "capped_graphs": int(capped),
                "avg_fvs_size": None if capped else size, "us_per_graph": None if capped else size * 3}
    if args.algorithm == "partial":
        del document["us_per_graph"]
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump(document, out)
    return 0


def strife(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False)
    parser.add_argument("--format", choices=["json"], required=True)
    parser.add_argument("--experiments", required=True)
    parser.add_argument("--fig10_points", default="tpcc:4")
    parser.add_argument("--alphas", default="0.1,0.2")
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.fig10_points == "garbled":
        print("clustering done")
        return 0
    workload, _, parameter = args.fig10_points.partition(":")
    rows = [{"workload": workload, "param": float(parameter), "alpha": float(alpha), "batch_size": args.batch,
             "cf_clusters": min(int(parameter), int(float(alpha) * 100)), "residuals": args.batch // 10}
            for alpha in args.alphas.split(",")]
    print(json.dumps({"bench": "strife", "config": {"batch": args.batch, "seed": args.seed},
                      "fig05": [], "fig09": [], "fig10": rows if args.experiments == "fig10" else []}))
    return 0


if __name__ == "__main__":
    log_invocation()
    sys.exit({"fvs": fvs, "strife": strife}[sys.argv[1]](sys.argv[2:]))
