#!/usr/bin/env bash
# Contract test of bin/pipeline (docs/harness.md "To add a program"): bad flags
# exit 2 with one line naming the flag and write nothing; a run writes one JSON
# document with the fields the harness requires, in every mode matching
# docs/result.schema.json ($defs/pipeline); --verify passes.
#   CCB_PYTHON: a Python with the harness's packages (default: the repository's .venv, made by `make deps`)
set -u
bin="$1"
bench_fvs="${2:-}"  # optional: bench_fvs, whose --source=pipeline runs this engine
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
root=$(cd "$(dirname "$0")/../.." && pwd)
py=${CCB_PYTHON:-$root/.venv/bin/python}
"$py" -c 'import jsonschema' 2>/dev/null || fail "no Python with jsonschema at $py (make deps creates .venv)"

expect_bad() {  # flag-name args...
  local flag="$1"; shift
  "$bin" "$@" --out="$dir/bad.json" 2>"$dir/err"
  local rc=$?
  [ "$rc" -eq 2 ] || fail "$* exited $rc, expected 2"
  [ "$(wc -l <"$dir/err")" -eq 1 ] || fail "$*: expected one line on stderr, got: $(cat "$dir/err")"
  grep -q -- "--$flag" "$dir/err" || fail "$*: message does not name --$flag: $(cat "$dir/err")"
  [ ! -e "$dir/bad.json" ] || fail "$*: wrote a result"
}
expect_bad mode --workload=micro --mode=fast
expect_bad workload --workload=tpcc
expect_bad fvs_algorithm --workload=micro --fvs_algorithm=greedy
expect_bad fvs_policy --workload=micro --fvs_policy=oldest
expect_bad reorder_workers --workload=micro --reorder_workers=0
expect_bad batch_size --workload=micro --batch_size=0
expect_bad concurrency --workload=micro --clients=4 --concurrency=2
expect_bad threads --workload=micro --threads=8
expect_bad max_graph_edge_share --workload=micro --max_graph_edge_share=1.5
expect_bad max_graph_edge_share --workload=micro --max_graph_edge_share=0.5 --max_graph_edges=100
expect_bad nope --workload=micro --nope=1
# The options tables' schema fragments (engine/core/options.h) are the
# schema's $defs/<table>_flags: its own table's (pipeline_flags) and the
# engine's and workloads' it shares with bin/rundb-<cc>.
"$py" "$root/tests/engine/config_schema_check.py" "$bin" "$root/docs/result.schema.json" pipeline_flags engine_flags \
  key_skew_flags micro_flags smallbank_flags || fail "docs/result.schema.json differs from the options tables"
# --list_flags (the harness checks a figure's flags against it) names the pipeline's own flags.
"$bin" --list_flags >"$dir/flags" || fail "--list_flags exited $?"
for flag in mode batch_size reorder_workers max_graph_edge_share workload theta; do
  grep -qx "$flag" "$dir/flags" || fail "--list_flags lacks $flag"
done

"$bin" --workload=micro --mode=srvc --theta=0.9 --micro_objects=1000 --duration=0.2 --warmup=0.05 --verify \
  --seed=3 --out="$dir/ok.json" || fail "a good run exited $?"
python3 - "$dir/ok.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
for field in ("config", "throughput", "commits", "aborts", "latency_us", "restarts_per_txn", "components",
              "queues", "reorder", "invariants"):
    assert field in d, f"missing {field}"
assert d["config"]["program"] == "pipeline" and d["config"]["mode"] == "srvc" and d["config"]["seed"] == 3
assert d["serializable"] is True and d["invariants_ok"] is True
assert d["commits"] > 0 and d["reorder"]["batches"] > 0
for p in ("avg", "p50", "p90", "p95", "p99", "p999", "max"):
    assert p in d["latency_us"], p
PY
# Every mode's components (one validator, or batch preparation, reorder workers
# and validation) on both procedures, read as the harness reads them.
for run in base:smallbank batch:micro sr:micro vc:smallbank; do
  mode=${run%%:*} workload=${run#*:}
  "$bin" --workload="$workload" --mode="$mode" --duration=0.1 --warmup=0 --out="$dir/mode_$mode.json" 2>/dev/null ||
    fail "mode $mode ($workload) exited $?"
done
PYTHONPATH="$root/scripts" "$py" -m ccbench.run.engine pipeline "$dir/ok.json" "$dir"/mode_*.json ||
  fail "result JSON off docs/result.schema.json"
# The harness reserves (and conditions claims on) the threads it derives from
# the flags (scripts/ccbench/specification/programs.py): one per component the run reports.
PYTHONPATH="$root/scripts" "$py" - "$dir/ok.json" "$dir"/mode_*.json <<'PY' || fail "harness thread count off the components"
import json, sys
from ccbench.specification.programs import pipeline_threads
for path in sys.argv[1:]:
    d = json.load(open(path))
    threads = sum(len(v) if isinstance(v, list) else 1 for v in d["components"].values())
    flags = {name: d["config"][name] for name in ("mode", "clients", "storage_workers", "reorder_workers")}
    assert pipeline_threads(flags) == threads, (path, flags, threads)
PY
# The edge cap as a share of the complete graph scales with the batch size.
"$bin" --workload=micro --batch_size=80 --max_graph_edge_share=0.5 --duration=0.05 --warmup=0 \
  --out="$dir/share.json" || fail "--max_graph_edge_share run exited $?"
python3 - "$dir/share.json" <<'PY' || exit 1
import json, sys
c = json.load(open(sys.argv[1]))["config"]
assert c["max_graph_edges"] == 80 * 79 // 2 and c["max_graph_edge_share"] == 0.5, c
PY
if [ -n "$bench_fvs" ]; then
  "$bench_fvs" --source=pipeline --theta=0.9 --graphs=20 --warmup_batches=10 --algorithm=greedy_sort \
    --out="$dir/fvs.json" || fail "bench_fvs --source=pipeline exited $?"
  python3 - "$dir/fvs.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["config"]["source"] == "pipeline", d["config"]
assert d["completed"] is True and d["avg_nodes"] > 0, d
PY
  "$bench_fvs" --source=pipelines 2>"$dir/err"; [ $? -eq 2 ] || fail "bench_fvs --source=pipelines did not exit 2"
fi
echo "ok"
