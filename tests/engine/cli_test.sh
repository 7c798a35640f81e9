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
for args in "--threads=0" "--nosuchflag=1" "--workload=tpcx" "--theta=abc" "--table_size=8 --req_per_txn=16"; do
  # shellcheck disable=SC2086
  "$bin" $args --out="$tmp/bad.json" 2>"$tmp/err"; rc=$?
  [[ $rc -eq 2 ]] || fail "'$args' exited $rc, want 2"
  [[ $(wc -l <"$tmp/err") -eq 1 ]] || fail "'$args' printed more than one line: $(cat "$tmp/err")"
  grep -q -- "--" "$tmp/err" || fail "'$args' error does not name a flag: $(cat "$tmp/err")"
  [[ ! -e $tmp/bad.json ]] || fail "'$args' wrote an output file"
  ls "$tmp" | grep -q tmp && fail "'$args' left a temporary file"
done

# Bad output paths and a table that cannot fit in memory are refused before
# anything is loaded: exit 2, one line naming the flag, nothing written.
refused() {  # refused <flag named in the message> <file that must not appear> <args...>
  local flag=$1 file=$2; shift 2
  "$bin" "$@" 2>"$tmp/err"; rc=$?
  [[ $rc -eq 2 ]] || fail "'$*' exited $rc, want 2"
  [[ $(wc -l <"$tmp/err") -eq 1 ]] || fail "'$*' printed more than one line: $(cat "$tmp/err")"
  grep -q -- "--$flag:" "$tmp/err" || fail "'$*' error does not name --$flag: $(cat "$tmp/err")"
  [[ ! -e $file ]] || fail "'$*' wrote $file"
}
refused out "$tmp/missing/r.json" --workload=ycsb --table_size=100 --out="$tmp/missing/r.json"
refused out "$tmp/r.json" --workload=ycsb --table_size=100 --out="$tmp/"
refused history_out "$tmp/r.json" --workload=ycsb --table_size=100 --verify --history_out="$tmp/missing/h.bin" \
  --out="$tmp/r.json"
refused table_size "$tmp/r.json" --workload=ycsb --table_size=100000000000000 --out="$tmp/r.json"
refused warehouses "$tmp/r.json" --workload=tpcc --warehouses=60000 --out="$tmp/r.json"
grep -q "GiB" "$tmp/err" || fail "the memory refusal does not give the estimate: $(cat "$tmp/err")"

# A saved history is read back by the offline checker.
"$bin" --workload=ycsb --threads=2 --warmup=0 --duration=0.2 --table_size=100 --verify \
  --history_out="$tmp/h.bin" --out="$tmp/h.json" 2>/dev/null || fail "history run exited $?"
"$(dirname "$bin")/check_history" "$tmp/h.bin" >/dev/null || fail "check_history rejected the saved history"

# --list_flags: one flag name per line, for the harness (exit 0).
"$bin" --list_flags >"$tmp/flags" || fail "--list_flags exited non-zero"
grep -qx theta "$tmp/flags" && grep -qx workload "$tmp/flags" || fail "--list_flags lacks theta or workload"
grep -q -- "-" "$tmp/flags" && fail "--list_flags prints more than names: $(head -3 "$tmp/flags")"

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
