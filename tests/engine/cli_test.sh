#!/usr/bin/env bash
# End-to-end contract of a rundb binary: exit codes, no output file on bad
# input, the JSON fields the harness relies on, and every document it writes
# against docs/result.schema.json.
# usage: cli_test.sh <path-to-rundb-binary>
#   CCB_PYTHON: a Python with the harness's packages (default: the repository's .venv, made by `make deps`)
source "$(dirname "$0")/contract_lib.sh" "$1"

# Bad input: exit 2, one line naming the flag, no file written.
for args in "--threads=0" "--nosuchflag=1" "--workload=tpcx" "--theta=abc" "--table_size=8 --req_per_txn=16" \
    "--strife_k=5" "--batch_size=100" "--frontend=strife --strife_alpha=2" "--frontend=strife --batch_size=0" \
    "--profile=maybe" "--profile" "--frontend=horticulture --workload=smallbank" \
    "--frontend=schism --strife_k=3" \
    "--frontend=tskd-o --strife_k=5" "--frontend=tskd-h --workload=smallbank" \
    "--frontend=tspar-c --strife_alpha=0.5"; do
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

# Two inputs that hung with no output (issue 30), refused within seconds: a
# table larger than memory, at any skew (the check comes before the key
# distribution's O(table_size) set-up), and a skew at which a transaction's 16
# distinct keys cannot be drawn in bounded time (about 2e8 draws each).
refused_quickly() {  # refused_quickly <flag named> <args...>: exit 2 within 5 s, naming --flag, nothing written
  local flag=$1; shift
  timeout 5 "$bin" "$@" --out="$tmp/r.json" 2>"$tmp/err"; rc=$?
  [[ $rc -eq 2 ]] || fail "'$*' exited $rc within 5 s (124: still running), want 2: $(head -c 300 "$tmp/err")"
  grep -q -- "--$flag:" "$tmp/err" || fail "'$*' error does not name --$flag: $(cat "$tmp/err")"
  [[ ! -e $tmp/r.json ]] || fail "'$*' wrote $tmp/r.json"
}
for theta in 0 0.6 0.99 1.5; do
  refused_quickly table_size --workload=ycsb --table_size=68719476736 --theta=$theta
done
refused_quickly theta --workload=ycsb --theta=7 --table_size=100000
refused_quickly micro_objects --workload=micro --micro_objects=1099511627776 --theta=0.5

# TSKD's runtime-skew and I/O-latency extensions: only the workloads whose
# registry line says so (workloads/workloads.txt) take them.
refused runtime_skew "$tmp/r.json" --workload=micro --runtime_skew --out="$tmp/r.json"
refused io_latency_l "$tmp/r.json" --workload=smallbank --io_latency_l=5 --out="$tmp/r.json"

# DBx1000's abort buffer parks aborted requests and runs others meanwhile:
# refused with reorder's planned batches, without retries, and with a bad name.
refused abort_policy "$tmp/r.json" --workload=ycsb --table_size=100 --abort_policy=buffer --frontend=reorder \
  --out="$tmp/r.json"
refused abort_policy "$tmp/r.json" --workload=ycsb --table_size=100 --abort_policy=buffer --retry_aborted=false \
  --out="$tmp/r.json"
refused abort_policy "$tmp/r.json" --workload=ycsb --table_size=100 --abort_policy=lifo --out="$tmp/r.json"
refused abort_buffer_size "$tmp/r.json" --workload=ycsb --table_size=100 --abort_buffer_size=0 --out="$tmp/r.json"

# Where the partitioning and TSKD's schedule count (--partition_time) and the
# measured interval's fewest batches (--min_batches) are the bundle
# front-ends' (rundb/frontends.cpp): schedule-inside is TSKD's alone, neither
# flag is an online front-end's or Strife's own, and a bad value is refused.
refused min_batches "$tmp/r.json" --workload=ycsb --table_size=100 --min_batches=20 --out="$tmp/r.json"
if $bundle; then
  refused partition_time "$tmp/r.json" --workload=ycsb --table_size=100 --frontend=schism \
    --partition_time=schedule-inside --out="$tmp/r.json"
  refused partition_time "$tmp/r.json" --workload=ycsb --table_size=100 --frontend=tskd-c --partition_time=later \
    --out="$tmp/r.json"
  refused partition_time "$tmp/r.json" --workload=ycsb --table_size=100 --frontend=strife --partition_time=inside \
    --out="$tmp/r.json"
  refused min_batches "$tmp/r.json" --workload=ycsb --table_size=100 --frontend=tskd-o --min_batches=0 \
    --out="$tmp/r.json"
fi

# The schema's optional sections: one short run per workload, each adding some
# (--profile in profile_test.sh, --timeline, --verify and the front-ends get more runs below, and
# every document is checked at the end). A protocol registered as not
# serializable (NoCC: no concurrency control; SI: write skew) is correct on
# one worker only: its runs here use one; with four it must write its
# violation (exit 3), and then it has shown what it can, for the rest of this
# test checks serializable runs.
declare -A sections=(
  [ycsb]="--table_size=1000 --memory_bound --pin --runtime_skew --runtime_skew_t_us=2 --io_latency_l=1"
  [tpcc]="--warehouses=1 --verify --timeline"
  [smallbank]="--smallbank_customers=1000 --attempt_latency_type=Balance"
  [tpcw]="--tpcw_items=1000"
  [hot]="--hot_table_size=10000 --hot_records=10 --hot_shift_s=0.05 --partitions=2 --verify"
  [micro]="--micro_objects=1000"
)
# Thread-aware reordering (frontend.reorder) where the protocol runs it; Dora
# and Orthrus refuse it (below).
$bundle && sections[tpcw]+=" --frontend=reorder"
workers=2
$serializable || workers=1
# t_T calibrated in the warm-up: a worker still calibrating in the measured
# interval commits without its runtime bound, so the run is refused after it
# ends (exit 2 naming the count, nothing written); with a warm-up long enough
# for its workers, the run reports the t_T it used and how many contributed.
"$bin" --workload=ycsb --table_size=1000 --runtime_skew --runtime_skew_calibration_txns=1000000 --threads=$workers \
  --warmup=0 --duration=0.05 --out="$tmp/r.json" 2>"$tmp/err"; rc=$?
[[ $rc -eq 2 ]] || fail "a run still calibrating t_T in its measured interval exited $rc, want 2"
grep -q -- "^error: --runtime_skew_calibration_txns: .* measured commits ran without runtime skew" "$tmp/err" ||
  fail "the uncalibrated run's error does not say so: $(cat "$tmp/err")"
[[ ! -e $tmp/r.json ]] || fail "the uncalibrated run wrote $tmp/r.json"
"$bin" --workload=ycsb --table_size=1000 --runtime_skew --runtime_skew_calibration_txns=1 --threads=$workers \
  --warmup=0.5 --duration=0.05 --out="$tmp/calibrated.json" 2>/dev/null || fail "a calibrated run exited $?"
python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["config"]
assert c["runtime_skew_t_ns_used"] > 0 and c["runtime_skew_calibrated_workers"] >= 1, c' "$tmp/calibrated.json" ||
  fail "the calibrated run does not report the t_T its worker measured"
for wl in "${!sections[@]}"; do
  $partitioned_only && grep -qx "$wl" <<<"$unpartitioned" && continue  # only partitioned workloads (refused below)
  # shellcheck disable=SC2086
  "$bin" --workload="$wl" ${sections[$wl]} --threads=$workers --warmup=0 --duration=0.1 --out="$tmp/wl_$wl.json" \
    2>/dev/null || fail "$wl run (${sections[$wl]}) exited $?"
done
if $bundle && $serializable; then
  for fe in tskd-o tspar-c; do
    "$bin" --workload=ycsb --frontend=$fe --threads=2 --warmup=0 --duration=0.2 --table_size=1000 --theta=0.9 \
      --batch_size=500 --verify --out="$tmp/fe_$fe.json" 2>/dev/null || fail "$fe run exited $?"
  done
fi
if ! $serializable; then
  # Caught under contention: NoCC's lost updates, and snapshot isolation's
  # read-only anomaly (Fekete et al.: Balance sees a TransactSavings that a
  # concurrent WriteCheck missed), on SmallBank with 2 customers. Either needs
  # transactions to overlap, which a loaded machine makes rare within one
  # short run: up to 5 runs, the first violation ends the loop.
  for try in 1 2 3 4 5; do
    "$bin" --workload=smallbank --smallbank_customers=2 --smallbank_mix=1,0,1,0,1,0 --threads=4 --warmup=0 \
      --duration=1 --verify --out="$tmp/unserializable.json" 2>/dev/null; rc=$?
    [[ $rc -eq 3 ]] && break
  done
  [[ $rc -eq 3 ]] || fail "under contention exited $rc in 5 runs, want 3 (not serializable)"
  python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["violation"] is not None' "$tmp/unserializable.json" ||
    fail "no violation written"
  match_schema "$tmp"/*.json
  echo "cli contract ok (not serializable by design: bad input and the result schema)"
  exit 0
fi

# The bundle executor (--frontend=strife) under this protocol, verified: the
# history is serializable and the CC-free queues did not conflict. Dora and
# Orthrus keep their owner threads in the online executor and refuse it
# (exit 2 naming --frontend, nothing written).
case $bundle in
false)
  refused frontend "$tmp/strife.json" --workload=ycsb --frontend=strife --duration=0.1 --out="$tmp/strife.json"
  refused frontend "$tmp/reorder.json" --workload=ycsb --frontend=reorder --duration=0.1 --out="$tmp/reorder.json"
  ;;
*)
  "$bin" --workload=ycsb --frontend=strife --threads=2 --warmup=0 --duration=0.2 --table_size=1000 --theta=0.9 \
    --batch_size=500 --verify --out="$tmp/strife.json" 2>/dev/null || fail "strife run exited $?"
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); f = d["frontend"]
assert d["serializable"] and d["invariants_ok"] and d["cc_free_check"]["ok"], d["cc_free_check"]
assert f["name"] == "strife" and f["batches"] > 0 and set(f["phase_share"]) == {"analysis", "conflict_free", "residual"}
assert set(f["analysis_steps_us"]) == {"prepare", "spot", "fuse", "merge", "allocate"}' "$tmp/strife.json" \
    || fail "strife run: wrong result"
  ;;
esac

# The partitioner baselines SCHISM and HORTICULTURE (TSKD §3, §6.1): one
# partition per worker, run under the protocol (no CC-free transaction, no
# residual: the extraction is TSKD's), verified; the partitioning time and
# part sizes are reported, and --partition_time is echoed in config (outside
# by default: the partitioning is not in the measured interval).
$bundle && for fe in schism horticulture; do
  "$bin" --workload=ycsb --frontend=$fe --threads=2 --warmup=0 --duration=0.2 --table_size=1000 --theta=0.9 \
    --partitions=2 --batch_size=500 --verify --out="$tmp/$fe.json" 2>/dev/null || fail "$fe run exited $?"
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); f = d["frontend"]
assert d["serializable"] and d["invariants_ok"] and d["cc_free_check"]["ok"], d["cc_free_check"]
assert f["name"] == f["partitioner"] == sys.argv[2] and f["parts"] == 2 and f["batches"] > 0
assert set(f["analysis_steps_us"]) == {"partition"} and f["analysis_steps_us"]["partition"] > 0
assert f["partitions_cc"] is True and d["cc_free_check"]["cc_free_txns"] == 0, f
assert d["config"]["partition_time"] == f["partition_time"] == "outside" and f["partition_s"] > 0, f
b = f["per_batch"]
assert 0 <= b["part_min"] <= b["part_max"] and b["worklist_queues"] == 0 and b["residuals"] == 0
assert abs(b["part_min"] + b["part_max"] - 500) < 1e-6, b  # 2 parts = the batch' \
    "$tmp/$fe.json" $fe || fail "$fe run: wrong result"
done

# TSKD over Schism's partition (partitioners/tspar): with --partition_time=outside
# (the default) TSKD's schedule is an input as the partition is (TSKD §6.1),
# left out of the analysis phase and reported as schedule_s, of it TSgen's
# time and overheadR (§6.2); --min_batches is the measured batches' floor.
$bundle && {
  "$bin" --workload=ycsb --frontend=tskd-c --threads=2 --warmup=0 --duration=0.001 --table_size=1000 --theta=0.9 \
    --batch_size=200 --min_batches=5 --out="$tmp/tskd-c.json" 2>/dev/null || fail "tskd-c run exited $?"
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); f = d["frontend"]
assert d["config"]["partition_time"] == f["partition_time"] == "outside" and f["batches"] >= 5, f
assert f["partition_s"] > 0 and 0 < f["tsgen_s"] <= f["schedule_s"] and f["overhead_r"] > 0, f
assert f["phase_s"]["analysis"] < f["schedule_s"], f' "$tmp/tskd-c.json" || fail "tskd-c run: wrong result"
}

# A saved history is read back by the offline checker.
"$bin" --workload=ycsb --threads=2 --warmup=0 --duration=0.2 --table_size=100 --verify \
  --history_out="$tmp/h.bin" --out="$tmp/h.json" 2>/dev/null || fail "history run exited $?"
"$(dirname "$bin")/check_history" --history="$tmp/h.bin" >/dev/null || fail "check_history rejected the saved history"

# --list_flags: one flag name per line, for the harness (exit 0).
"$bin" --list_flags >"$tmp/flags" || fail "--list_flags exited non-zero"
grep -qx theta "$tmp/flags" && grep -qx workload "$tmp/flags" || fail "--list_flags lacks theta or workload"
grep -qx batch_size "$tmp/flags" || fail "--list_flags lacks rundb/'s own flags (batch_size)"
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
assert "profile" not in r and r["config"]["profile"] is False  # --profile off: no profile object
PY

# TSKD[CC] (--frontend=tsdefer): a bad TsDEFER knob is exit 2 naming it, nothing written; a run reports
# frontend.tsdefer, and every run the contended latch acquisitions.
for args in "--frontend=tsdefer --tsdefer_deferp=1.5" "--tsdefer_lookups=65" "--access_set_accuracy=0"; do
  # shellcheck disable=SC2086
  "$bin" $args --out="$tmp/bad.json" 2>"$tmp/err"; rc=$?
  [[ $rc -eq 2 ]] || fail "'$args' exited $rc, want 2"
  grep -q -- "--$(echo "${args##* --}" | sed 's/^--//; s/=.*//')" "$tmp/err" || fail "'$args' error does not name its flag: $(cat "$tmp/err")"
  [[ ! -e $tmp/bad.json ]] || fail "'$args' wrote an output file"
done
"$bin" --workload=ycsb --threads=2 --warmup=0.05 --duration=0.2 --table_size=1000 --theta=0.9 --frontend=tsdefer \
  --verify --out="$tmp/tsdefer.json" 2>/dev/null || fail "tsdefer run exited $?"
python3 - "$tmp/tsdefer.json" <<'PY' || fail "tsdefer result JSON lacks its fields"
import json, sys
r = json.load(open(sys.argv[1]))
t = r["frontend"]["tsdefer"]
assert r["frontend"]["name"] == "tsdefer" and r["config"]["tsdefer_lookups"] == 2
assert t["candidates"] > 0 and t["lookups"] == 2 * t["candidates"], t
for k in ["items", "hits", "hit_candidates", "deferrals", "forced_runs", "deferrals_per_100k"]:
    assert k in t, k
assert r["contended_latch_acquisitions"] >= 0 and "contended_latch_acquisitions_per_100k" in r
assert r["serializable"] is True and r["invariants_ok"] is True
PY
# --attempt_latency_type: a type the workload lacks is exit 2 naming the
# flag (no file); a known one adds attempt_latency_us, the attempts filed by
# outcome (every commit of the type is one committed or saved attempt).
bad_type=(--workload=ycsb --threads=2 --table_size=100 --duration=0.1 --attempt_latency_type=NewOrder)
"$bin" "${bad_type[@]}" --out="$tmp/bad.json" 2>"$tmp/err"; rc=$?
[[ $rc -eq 2 ]] || fail "unknown --attempt_latency_type exited $rc, want 2"
grep -q -- "--attempt_latency_type: invalid value 'NewOrder'; allowed: .*ycsb" "$tmp/err" ||
  fail "unknown --attempt_latency_type: $(cat "$tmp/err")"
[[ ! -e $tmp/bad.json ]] || fail "unknown --attempt_latency_type wrote an output file"
"$bin" --workload=ycsb --threads=2 --warmup=0.05 --duration=0.2 --table_size=1000 --theta=0.9 \
  --attempt_latency_type=ycsb --out="$tmp/attempts.json" 2>/dev/null || fail "attempt latency run exited $?"
python3 - "$tmp/attempts.json" <<'PY' || fail "attempt_latency_us is wrong"
import json, sys
r = json.load(open(sys.argv[1]))
a = r["attempt_latency_us"]
assert a["type"] == "ycsb" and r["config"]["attempt_latency_type"] == "ycsb"
assert a["committed"]["count"] + a["saved"]["count"] == r["commits"], (a, r["commits"])
assert a["aborted"]["count"] == r["aborts"], (a, r["aborts"])
assert a["committed"]["avg"] > 0 and a["committed"]["p50"] <= a["committed"]["p99"]
if r["config"]["cc"] != "bcc":
    assert a["saved"]["count"] == 0 and a["saved"]["avg"] is None
assert r["per_txn_type"]["ycsb"]["throughput"] > 0
PY
# --bcc_breakdown: bcc only (exit 2 elsewhere); under bcc, cc_stats.breakdown.
if [[ $name == rundb-bcc ]]; then
  "$bin" --workload=ycsb --threads=2 --warmup=0 --duration=0.2 --table_size=1000 --bcc_breakdown \
    --out="$tmp/breakdown.json" 2>/dev/null || fail "--bcc_breakdown run exited $?"
  python3 -c "import json, sys; b = json.load(open(sys.argv[1]))['cc_stats']['breakdown']; \
assert b['mm_s'] > 0 and b['clock_s'] > 0 and b['cycles_per_ns'] > 0, b" "$tmp/breakdown.json" ||
    fail "cc_stats.breakdown missing or empty"
else
  "$bin" --workload=ycsb --table_size=100 --bcc_breakdown --out="$tmp/bad.json" 2>"$tmp/err"; rc=$?
  [[ $rc -eq 2 ]] && grep -q -- "--bcc_breakdown" "$tmp/err" || fail "--bcc_breakdown outside bcc: exit $rc"
fi
# --bcc_fence: bcc only, per_read or asymmetric; each is echoed in config, the
# ordering in effect is cc_stats.fence (asymmetric falls back to per_read where
# membarrier is unavailable), and a verified contended run is serializable.
if [[ $name == rundb-bcc ]]; then
  refused bcc_fence "$tmp/f.json" --workload=ycsb --table_size=100 --bcc_fence=seq_cst --out="$tmp/f.json"
  for fence in per_read asymmetric; do
    "$bin" --workload=ycsb --threads=2 --warmup=0 --duration=0.2 --table_size=1000 --theta=0.9 --verify \
      --bcc_fence=$fence --out="$tmp/fence.json" 2>/dev/null || fail "--bcc_fence=$fence run exited $?"
    python3 -c "import json, sys; d = json.load(open(sys.argv[1])); \
assert d['config']['bcc_fence'] == sys.argv[2] and d['commits'] > 0, d['config']; \
assert d['cc_stats']['fence'] in ({'per_read'} if sys.argv[2] == 'per_read' else {'per_read', 'asymmetric'}), d['cc_stats']" \
      "$tmp/fence.json" $fence || fail "--bcc_fence=$fence not echoed, not in effect, or no commits"
  done
else
  refused bcc_fence "$tmp/f.json" --workload=ycsb --table_size=100 --bcc_fence=per_read --out="$tmp/f.json"
fi

# MOCC's knobs: mocc only, in range; a partitioned-only protocol (PartCC)
# refuses every workload without partitions.
if [[ $name == rundb-mocc ]]; then
  refused mocc_decay_ms "$tmp/m.json" --workload=ycsb --table_size=100 --mocc_decay_ms=10 --out="$tmp/m.json"
  "$bin" --workload=ycsb --threads=2 --warmup=0 --duration=0.2 --table_size=1000 --mocc_temperature_threshold=0 \
    --out="$tmp/mocc.json" 2>/dev/null || fail "--mocc_temperature_threshold=0 run exited $?"
  python3 -c "import json, sys; s = json.load(open(sys.argv[1]))['cc_stats']; \
assert s['temperature_threshold'] == 0 and s['hot_writes_locked'] > 0, s" "$tmp/mocc.json" ||
    fail "cc_stats of mocc missing or no hot-row locks with threshold 0"
else
  refused mocc_temperature_threshold "$tmp/m.json" --workload=ycsb --table_size=100 --mocc_temperature_threshold=3 \
    --out="$tmp/m.json"
fi
# Orthrus's wait: orthrus only, poll or sleep; both run and are echoed.
if [[ $name == rundb-orthrus ]]; then
  refused orthrus_wait "$tmp/o.json" --workload=ycsb --table_size=100 --orthrus_wait=spin --out="$tmp/o.json"
  for wait in poll sleep; do
    "$bin" --workload=ycsb --threads=2 --warmup=0 --duration=0.2 --table_size=1000 --orthrus_wait=$wait \
      --out="$tmp/orthrus.json" 2>/dev/null || fail "--orthrus_wait=$wait run exited $?"
    python3 -c "import json, sys; d = json.load(open(sys.argv[1])); \
assert d['config']['orthrus_wait'] == sys.argv[2] and d['commits'] > 0, d['config']" "$tmp/orthrus.json" $wait ||
      fail "--orthrus_wait=$wait not echoed in config or no commits"
  done
else
  refused orthrus_wait "$tmp/o.json" --workload=ycsb --table_size=100 --orthrus_wait=poll --out="$tmp/o.json"
fi
if $partitioned_only; then
  for wl in $unpartitioned; do refused cc "$tmp/p.json" --workload="$wl" --out="$tmp/p.json"; done
fi

# The options tables' schema fragments (engine/core/options.h) are the
# schema's $defs/<table>_flags, so the flags and the documented config cannot
# drift apart; a protocol's own table is printed by its binary only.
"$py" "$root/tests/engine/config_schema_check.py" "$bin" "$root/docs/result.schema.json" engine_flags tsdefer_flags \
  ycsb_flags key_skew_flags tpcc_flags extension_flags || fail "docs/result.schema.json differs from the options tables"

# Every document this test wrote matches the schema.
match_schema "$tmp"/*.json
echo "cli contract ok"
