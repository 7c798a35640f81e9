#!/usr/bin/env bash
# End-to-end contract of a rundb binary: exit codes, no output file on bad
# input, and the JSON fields the harness relies on.
# usage: cli_test.sh <path-to-rundb-binary>
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Bad input: exit 2, one line naming the flag, no file written.
for args in "--threads=0" "--nosuchflag=1" "--workload=tpcx" "--theta=abc" "--table_size=8 --req_per_txn=16" \
    "--strife_k=5" "--batch_size=100" "--frontend=strife --strife_alpha=2" "--frontend=strife --batch_size=0" \
    "--frontend=strife --workload=tpcc"; do
  # shellcheck disable=SC2086
  "$bin" $args --out="$tmp/bad.json" 2>"$tmp/err"; rc=$?
  [[ $rc -eq 2 ]] || fail "'$args' exited $rc, want 2"
  [[ $(wc -l <"$tmp/err") -eq 1 ]] || fail "'$args' printed more than one line: $(cat "$tmp/err")"
  grep -q -- "--" "$tmp/err" || fail "'$args' error does not name a flag: $(cat "$tmp/err")"
  [[ ! -e $tmp/bad.json ]] || fail "'$args' wrote an output file"
  ls "$tmp" | grep -q tmp && fail "'$args' left a temporary file"
done

# The bundle executor (--frontend=strife) under this protocol, verified: the
# history is serializable and the CC-free queues did not conflict.
"$bin" --workload=ycsb --frontend=strife --threads=2 --warmup=0 --duration=0.2 --table_size=1000 --theta=0.9 \
  --batch_size=500 --verify --out="$tmp/strife.json" 2>/dev/null || fail "strife run exited $?"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); f = d["frontend"]
assert d["serializable"] and d["invariants_ok"] and d["cc_free_check"]["ok"], d["cc_free_check"]
assert f["name"] == "strife" and f["batches"] > 0 and set(f["phase_share"]) == {"analysis", "conflict_free", "residual"}
assert set(f["analysis_steps_us"]) == {"prepare", "spot", "fuse", "merge", "allocate"}' "$tmp/strife.json" \
  || fail "strife run: wrong result"

# A saved history is read back by the offline checker.
"$bin" --workload=ycsb --threads=2 --warmup=0 --duration=0.2 --table_size=100 --verify \
  --history_out="$tmp/h.bin" --out="$tmp/h.json" 2>/dev/null || fail "history run exited $?"
"$(dirname "$bin")/check_history" "$tmp/h.bin" >/dev/null || fail "check_history rejected the saved history"

# --help exits 0 and lists the flags.
"$bin" --help >"$tmp/help" || fail "--help exited non-zero"
grep -q -- "--theta" "$tmp/help" || fail "--help does not list --theta"

# A short run writes one JSON document with the contract's fields.
"$bin" --workload=ycsb --threads=2 --warmup=0.05 --duration=0.2 --table_size=1000 --theta=0.9 \
  --verify --timeline --out="$tmp/run.json" 2>/dev/null || fail "short run exited $?"
python3 - "$tmp/run.json" <<'PY' || fail "result JSON lacks contract fields"
import json, sys
r = json.load(open(sys.argv[1]))
for k in ["config", "provenance", "throughput", "commits", "aborts", "aborts_by_reason", "retries_per_100k",
          "latency_us", "per_txn_type", "phases", "frontend", "memory", "invariants_ok", "serializable", "violation"]:
    assert k in r, k
for k in ["avg", "p50", "p90", "p95", "p99", "p999", "max"]:
    assert k in r["latency_us"], k
assert r["config"]["threads"] == 2 and r["config"]["workload"] == "ycsb"
assert r["commits"] > 0 and r["throughput"] > 0
assert r["invariants_ok"] is True and r["serializable"] is True and r["violation"] is None
assert r["provenance"]["git_revision"]
assert isinstance(r["timeline"], list)
PY
echo "cli contract ok"
