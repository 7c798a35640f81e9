#!/usr/bin/env bash
# Measures the engine's table-load time per workload: the numbers behind the
# load-time table of scripts/ccbench/run/budget.py (the dry-run budget,
# `ccbench figures ... --dry-run --budget`; docs/cluster.md).
#
#   scripts/measure-load-times.sh [OUT_DIR]     (default results/load-times)
#
# Builds bin/rundb-silo if it is missing (`make CC=silo`), then loads each
# workload at one or two sizes with one thread (so one load thread), three
# times, each with a 0.2 s measured run and no warm-up, and prints per size
# the median `phases.load_s` of the result JSON, the seconds per unit of the
# size flag at the largest size (what budget.py's LoadRate holds), and the
# median process overhead: wall time (start to exit) minus load minus 0.2 s.
# The result documents stay in OUT_DIR. About a minute on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/load-times}
mkdir -p "$out"
[[ -x bin/rundb-silo ]] || make CC=silo >/dev/null

# workload  size-flag  sizes
grid=(
  "ycsb table_size 1000 4000000 16000000"
  "tpcc warehouses 1 4 16"
  "smallbank smallbank_customers 100000 1000000"
  "tpcw tpcw_items 10000 100000"
  "hot hot_table_size 1000000 4000000"
  "micro micro_objects 100000 1000000"
)
runs="$out/runs.tsv"
: >"$runs"
for line in "${grid[@]}"; do
  read -r workload flag sizes <<<"$line"
  for size in $sizes; do
    for repetition in 1 2 3; do
      json="$out/$workload-$size-$repetition.json"
      start=$(date +%s%N)
      timeout 300 bin/rundb-silo --workload="$workload" --"$flag"="$size" --threads=1 --duration=0.2 --warmup=0 \
        --seed="$repetition" --out="$json" >/dev/null 2>"$json.log" || { echo "failed: $workload $size" >&2; continue; }
      end=$(date +%s%N)
      printf "%s\t%s\t%s\t%s\t%s\n" "$workload" "$flag" "$size" "$json" "$(( (end - start) / 1000 ))" >>"$runs"
    done
  done
done
python3 - "$runs" <<'EOF'
import json, statistics, sys
from collections import defaultdict
loads, overheads, provenance = defaultdict(list), [], None
for line in open(sys.argv[1]):
    workload, flag, size, path, wall_us = line.rstrip("\n").split("\t")
    document = json.load(open(path))
    provenance = document["provenance"]
    load = document["phases"]["load_s"]
    loads[(workload, flag, int(size))].append(load)
    overheads.append(int(wall_us) / 1e6 - load - document["phases"]["measured_s"])
print("workload\tflag\tsize\tmedian load_s\ts per unit")
largest = {}
for (workload, flag, size), values in loads.items():
    median = statistics.median(values)
    largest[workload] = (flag, size, median)
    print(f"{workload}\t{flag}\t{size}\t{median:.3f}\t{median / size:.3g}")
print(f"process overhead (wall - load - measured), median of {len(overheads)} runs: "
      f"{statistics.median(overheads):.3f} s")
print(f"# {provenance['cpu_model']}, {provenance['physical_cores']} cores, {provenance['logical_cpus']} hardware "
      f"threads, build {provenance['git_revision'][:12]}{' (dirty)' if provenance['git_dirty'] else ''}")
EOF
