#!/usr/bin/env bash
# The sim build's binaries end to end (label sim; docs/sim.md), at 32 virtual
# cores on one OS thread, a few to 22 virtual milliseconds per run:
#   sim_run_test.sh verify <bin/sim/rundb-cc> <workload> [<workload flags>...]
#       at the given workload flags (the registry's high-contention flags,
#       workloads/workloads.txt; default: sizes below): --verify passes (exit
#       0), the history was checked and is serializable, the workload's
#       invariants were checked and hold, transactions committed and the
#       history has dependency edges to get wrong, the result matches
#       docs/result.schema.json and carries the "sim" object;
#   sim_run_test.sh determinism <rundb-cc>
#       two runs of one configuration and seed: the same commits, aborts and
#       history (byte for byte); another seed: another history;
#   sim_run_test.sh lost_updates <rundb-nocc>
#       NoCC's lost updates are caught by --verify (exit 3);
#   sim_run_test.sh waitdie <rundb-waitdie>
#       a deadlock-prone schedule (every request writes hot rows in random
#       order, upgrades included) ends in virtual time, wait-die aborts seen;
#   sim_run_test.sh bundle_verify <rundb-cc> <frontend> <workload>
#       the bundle executor under sim (workers, coordinator, Strife's analysis
#       team as fibers): --verify passes, the CC-free queues did not
#       conflict, the result carries the "sim" object and the analysis took
#       virtual time (a TSKD front-end's: its schedule, schedule_s);
#   sim_run_test.sh bundle_determinism <rundb-cc> <frontend>
#       as determinism, through the bundle executor and the front-end;
#   sim_run_test.sh reorder_plans <rundb-cc>
#       --frontend=reorder at 32 virtual cores (16 distinct batches of 128,
#       planned before the warm-up): the thread-aware policy's work takes
#       virtual time (reorder_ns_per_txn > 0; it read 0 before issue 45 item
#       8), the planning (some 13 virtual ms) does not trip a stall watchdog
#       set to 5 ms (as planning 1024 batches tripped the default 0.1 s),
#       and --verify passes;
#   sim_run_test.sh orthrus_waits <rundb-orthrus>
#       one configuration and seed with --orthrus_wait=poll and =sleep: both
#       verify, and polling commits more, since a thread that sleeps in its
#       queue pays a wake-up on every message and a polling one does not;
#   sim_run_test.sh partcc_livelock <rundb-partcc>
#       issue 46's livelock: TPC-C NewOrder+Payment under PartCC without
#       backoff, with the cost table a 2-vCPU VM's calibration wrote, at 2
#       threads on 32 warehouses (the issue's command) and 4 threads on 4:
#       each commits (a Payment of a remote customer by last name missed its
#       partition, and its retries took the predicted one again forever);
#   sim_run_test.sh tskd_partition_time <rundb-cc>
#       TSKD[C]'s schedule is outside the analysis phase (and the measured
#       interval) with --partition_time=outside and inside it with
#       schedule-inside (issue 60 item 1);
#   sim_run_test.sh refusals <rundb-cc>
#       configurations whose threads the sim build does not simulate, and bad
#       --sim_* values, are refused with exit 2 naming the flag; a
#       --sim_work_scale is recorded by type; a run whose measured interval
#       commits nothing exits 4 naming where each core last spun, and writes
#       no result; the result's time breakdown adds up per core; a run's
#       sim.model and last log line name its model (the built-in table said
#       plainly; a calibrated table by its SHA-256; the machine and its ops).
set -u
case_name=$1
source "$(dirname "${BASH_SOURCE[0]}")/../engine/contract_lib.sh" "$2"
wl=${3:-ycsb}

sizes() {
  case $1 in
    ycsb) echo "--table_size=20000 --theta=0.9 --req_per_txn=16 --read_ratio=0.5" ;;
    tpcc) echo "--warehouses=2" ;;
    # The bundle executor's YCSB: 4 accesses, so that Strife's batch of 1000
    # falls into tens of CF queues run in parallel and hundreds of residuals
    # that abort (16 accesses at θ 0.9 make one cluster: a serial run).
    bundle-ycsb) echo "--table_size=20000 --theta=0.9 --req_per_txn=4 --read_ratio=0.5" ;;
  esac
}
common="--threads=32 --warmup=0.0005 --duration=0.003 --txn_buffer=64 --load_threads=1"
# The --verify matrix's run (tests/sim/CMakeLists.txt): at the registry's
# high-contention flags, 400 to 190,000 commits per point, 0.4 to 2 s of
# wall time (docs/sim.md, "Tests").
matrix="--threads=32 --warmup=0.002 --duration=0.02 --txn_buffer=64 --load_threads=1"
# The bundle executor: batches of 1000 (2 distinct ones), at least one measured.
bundle="--threads=32 --warmup=0.0002 --duration=0.0005 --txn_buffer=64 --batch_size=1000 --load_threads=1"
field() { "$py" -c "import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

case $case_name in
  verify)
    if [[ $# -gt 3 ]]; then
      run=("$bin" --workload="$wl" "${@:4}" $matrix)
    else
      run=("$bin" --workload="$wl" $(sizes "$wl") $common)
    fi
    "${run[@]}" --verify --out="$tmp/r.json"
    rc=$?
    [[ $rc -eq 0 ]] || fail "$name $wl under sim: --verify exited $rc: ${run[*]} --verify"
    # One Python for the checks (cheaper than one per field).
    "$py" - "$tmp/r.json" <<'EOF' || fail "$name $wl under sim: ${run[*]} --verify"
import json, sys
d = json.load(open(sys.argv[1]))
v, sim = d["verify"], d["sim"]
bad = [what for what, ok in [
    ("sim.virtual_cores is not 32", sim["virtual_cores"] == 32),
    ("no commits or no events", d["commits"] > 0 and sim["events"] > 0),
    ("the history was not checked, has no edges or is not serializable: %s" % v,
     v["serializable"] and v["counts"]["graph_edges"] > 0),
    ("the workload's invariants were not checked or are broken: %s" % d["invariants"],
     d["invariants_ok"] and d["invariants"] and all(i["ok"] for i in d["invariants"])),
] if not ok]
for b in bad:
    print("FAIL:", b)
print("%d commits, %d aborts, %d transactions checked, %d invariants, %.4f virtual s, %.2f wall s" % (
    d["commits"], d["aborts"], v["counts"]["txns"], len(d["invariants"]), sim["virtual_seconds"], sim["wall_seconds"]))
sys.exit(1 if bad else 0)
EOF
    match_schema "$tmp/r.json"
    ;;
  determinism)
    for run in a b; do
      "$bin" --workload=ycsb $(sizes ycsb) $common --seed=7 --verify --history_out="$tmp/$run.hist" \
        --out="$tmp/$run.json" || fail "run $run exited $?"
    done
    # The sim binary runs itself again with the address space's randomization off (sim::fix_address_layout):
    # BCC's schedule follows absolute addresses. Only a kernel that refuses it (a seccomp profile) leaves it on,
    # and BCC's runs then cannot agree: a skip (77) saying so, not a pass.
    if [[ $(field "$tmp/a.json" "d['sim']['address_randomization']") == True ]]; then
      [[ $name != rundb-bcc ]] || { echo "SKIP: this kernel refused ADDR_NO_RANDOMIZE; BCC's runs follow the layout"; exit 77; }
    fi
    "$bin" --workload=ycsb $(sizes ycsb) $common --seed=8 --verify --history_out="$tmp/c.hist" --out="$tmp/c.json" ||
      fail "run c exited $?"
    for f in commits aborts; do
      [[ $(field "$tmp/a.json" "d['$f']") == $(field "$tmp/b.json" "d['$f']") ]] || fail "$f differ between two runs of one seed"
    done
    [[ $(field "$tmp/a.json" "d['sim']['events']") == $(field "$tmp/b.json" "d['sim']['events']") ]] ||
      fail "sim.events differ between two runs of one seed"
    cmp -s "$tmp/a.hist" "$tmp/b.hist" || fail "the histories of two runs of one seed differ"
    ! cmp -s "$tmp/a.hist" "$tmp/c.hist" || fail "two seeds gave the same history (the seed is not used?)"
    ;;
  orthrus_waits)
    for wait in poll sleep; do
      "$bin" --workload=tpcc $(sizes tpcc) $common --seed=7 --orthrus_wait=$wait --verify --out="$tmp/$wait.json" ||
        fail "--orthrus_wait=$wait exited $?"
      [[ $(field "$tmp/$wait.json" "d['config']['orthrus_wait']") == "$wait" ]] || fail "--orthrus_wait=$wait not echoed"
    done
    poll=$(field "$tmp/poll.json" "d['commits']")
    sleep=$(field "$tmp/sleep.json" "d['commits']")
    echo "commits: poll $poll, sleep $sleep"
    [[ $poll -gt $sleep ]] || fail "polling threads committed $poll, sleeping ones $sleep: the wake-ups cost nothing?"
    ;;
  bundle_verify)
    fe=$3
    wl=$4
    "$bin" --workload="$wl" $(sizes "${wl/ycsb/bundle-ycsb}") $bundle --frontend="$fe" --verify --out="$tmp/r.json"
    rc=$?
    [[ $rc -eq 0 ]] || fail "$name --frontend=$fe $wl under sim: --verify exited $rc"
    [[ $(field "$tmp/r.json" "d['sim']['virtual_cores']") == 32 ]] || fail "sim.virtual_cores is not 32"
    [[ $(field "$tmp/r.json" "d['commits'] > 0 and d['frontend']['batches'] >= 1") == True ]] ||
      fail "no commits or no measured batch"
    # A TSKD front-end's schedule is an input, outside the analysis phase (--partition_time=outside, issue 60
    # item 1): its virtual time is the result's schedule_s.
    [[ $(field "$tmp/r.json" "d['frontend'].get('schedule_s', d['frontend']['phase_s']['analysis']) > 0") == True ]] ||
      fail "the analysis took no virtual time: $(field "$tmp/r.json" "d['frontend']['phase_s']")"
    match_schema "$tmp/r.json"
    ;;
  reorder_plans)
    "$bin" --workload=ycsb $(sizes ycsb) $common --sim_watchdog_stall_s=0.005 --frontend=reorder --verify \
      --out="$tmp/r.json"
    rc=$?
    [[ $rc -eq 0 ]] || fail "$name --frontend=reorder under sim: --verify exited $rc"
    [[ $(field "$tmp/r.json" "d['verify']['serializable'] and d['commits'] > 0") == True ]] ||
      fail "not serializable or no commits"
    [[ $(field "$tmp/r.json" "d['frontend']['reorder']['reorder_ns_per_txn'] > 0") == True ]] ||
      fail "the planning took no virtual time: $(field "$tmp/r.json" "d['frontend']['reorder']")"
    match_schema "$tmp/r.json"
    ;;
  bundle_determinism)
    fe=$3
    extra=${4:-}  # more flags (TSKD: --access_set_accuracy, the lanes' alpha-sampling on the team)
    for run in a b; do
      "$bin" --workload=ycsb $(sizes bundle-ycsb) $bundle --frontend="$fe" $extra --seed=7 --verify \
        --history_out="$tmp/$run.hist" --out="$tmp/$run.json" || fail "run $run exited $?"
    done
    "$bin" --workload=ycsb $(sizes bundle-ycsb) $bundle --frontend="$fe" $extra --seed=8 --verify \
      --history_out="$tmp/c.hist" --out="$tmp/c.json" || fail "run c exited $?"
    # Something to interleave: Strife's worklist holds several queues; TSKD's
    # workers run their own queues and R_s.
    interleaved="d['frontend']['per_batch']['worklist_queues'] > 1"
    [[ $fe == strife ]] || interleaved="d['frontend']['per_batch']['rs'] > 0"
    [[ $(field "$tmp/a.json" "d['aborts'] > 0 and $interleaved") == True ]] ||
      fail "no aborts or nothing interleaved: the schedule has nothing to interleave"
    for f in commits aborts; do
      [[ $(field "$tmp/a.json" "d['$f']") == $(field "$tmp/b.json" "d['$f']") ]] || fail "$f differ between two runs of one seed"
    done
    for f in "['sim']['events']" "['sim']['virtual_seconds']" "['frontend']['phase_s']"; do
      [[ $(field "$tmp/a.json" "d$f") == $(field "$tmp/b.json" "d$f") ]] || fail "$f differs between two runs of one seed"
    done
    cmp -s "$tmp/a.hist" "$tmp/b.hist" || fail "the histories of two runs of one seed differ"
    ! cmp -s "$tmp/a.hist" "$tmp/c.hist" || fail "two seeds gave the same history (the seed is not used?)"
    ;;
  lost_updates)
    "$bin" --workload=ycsb $(sizes ycsb) $common --verify --out="$tmp/r.json"
    rc=$?
    [[ $rc -eq 3 ]] || fail "NoCC at 32 virtual cores: --verify exited $rc, want 3 (lost updates caught)"
    [[ $(field "$tmp/r.json" "d['verify']['serializable']") == False ]] || fail "the history was judged serializable"
    ;;
  waitdie)
    "$bin" --workload=ycsb --table_size=64 --theta=0.99 --req_per_txn=8 --read_ratio=0.5 $common --verify \
      --sim_watchdog_events=100000 --out="$tmp/r.json"
    rc=$?
    [[ $rc -eq 0 ]] || fail "WaitDie on 64 hot rows at 32 virtual cores exited $rc"
    [[ $(field "$tmp/r.json" "d['commits'] > 100 and d['aborts_by_reason']['wait_die'] > 0") == True ]] ||
      fail "no wait-die aborts or too few commits: $(field "$tmp/r.json" "(d['commits'], d['aborts_by_reason'])")"
    ;;
  abort_buffer)
    # --abort_policy=buffer (engine/exec/abort_buffer.h): at 16 virtual cores on 4 warehouses NoWait aborts
    # often; with the backoff its cores idle after each abort, with DBx1000's buffer they run new requests
    # meanwhile, so the cores' sleep share must fall and the commits rise; both runs stay serializable.
    # With a front-end (the flags after the binary: TsDEFER's picks, or a bundle front-end's queues and
    # residual phase) the same, except that a bundle run commits whole batches, the same number under both
    # policies: there the commits must not fall.
    front_end=("${@:3}")
    declare -A sleep_share commits
    for policy in backoff buffer; do
      "$bin" --workload=tpcc --mix=neworder_payment --warehouses=4 --threads=16 --sim_physical_cores=16 \
        --duration=0.01 --warmup=0.002 --seed=3 --load_threads=1 --abort_policy=$policy --verify \
        "${front_end[@]}" --out="$tmp/$policy.json" || fail "${front_end[*]} --abort_policy=$policy: exited $?"
      [[ $(field "$tmp/$policy.json" "d['config']['abort_policy']") == "$policy" ]] || fail "abort_policy not echoed"
      sleep_share[$policy]=$(field "$tmp/$policy.json" \
        "round(1000 * (lambda c: c['sleep'] / sum(c.values()))(d['sim']['time_breakdown']['cores']))")
      commits[$policy]=$(field "$tmp/$policy.json" "d['commits']")
      echo "--abort_policy=$policy: sleep share ${sleep_share[$policy]}/1000, commits ${commits[$policy]}"
    done
    # Measured (seed 3, the built-in table): NoWait 729 and 588 per mille, 9,067 and 11,585 commits; NoWait
    # under TsDEFER 731 and 591; OCC under TSKD[C] 142 and 13, 9,943 commits both.
    [[ ${sleep_share[buffer]} -lt $((sleep_share[backoff] * 9 / 10)) ]] ||
      fail "the buffer's sleep share ${sleep_share[buffer]} is not 10 % under the backoff's ${sleep_share[backoff]}"
    if [[ " ${front_end[*]} " == *" --frontend=tskd-"* ]]; then
      [[ ${commits[buffer]} -ge ${commits[backoff]} ]] ||
        fail "the buffer committed ${commits[buffer]}, the backoff ${commits[backoff]}"
    else
      [[ ${commits[buffer]} -gt ${commits[backoff]} ]] ||
        fail "the buffer committed ${commits[buffer]}, the backoff ${commits[backoff]}"
    fi
    ;;
  tskd_partition_time)
    # --partition_time (engine/exec/bundle_coordinator.h, issue 60 item 1): TSKD[C] at 16 virtual cores.
    # outside: the partitioner's plan and TSKD's queues are inputs (TSKD §6.1), so the analysis phase holds
    # neither the model's charge nor TSKD's own probes (estimates, TSgen, TsDEFER's lanes), which the result
    # reports as schedule_s; schedule-inside (the measurement before the issue): they are analysis.
    declare -A analysis schedule
    for where in outside schedule-inside; do
      "$bin" --workload=ycsb $(sizes bundle-ycsb) --frontend=tskd-c --threads=16 --warmup=0.0002 --duration=0.0005 \
        --txn_buffer=64 --batch_size=1000 --min_batches=3 --load_threads=1 --seed=3 --partition_time=$where \
        --out="$tmp/$where.json" || fail "--partition_time=$where: exited $?"
      [[ $(field "$tmp/$where.json" "d['frontend']['partition_time']") == "$where" ]] || fail "$where not reported"
      [[ $(field "$tmp/$where.json" "d['frontend']['batches'] >= 3") == True ]] || fail "$where: fewer than 3 batches"
      analysis[$where]=$(field "$tmp/$where.json" "d['frontend']['phase_s']['analysis']")
      schedule[$where]=$(field "$tmp/$where.json" "d['frontend']['schedule_s']")
      echo "--partition_time=$where: analysis ${analysis[$where]} s, schedule ${schedule[$where]} s"
    done
    "$py" -c 'import sys; a, s = map(float, sys.argv[1:3]); sys.exit(not (s > 0 and a < s / 10))' \
      "${analysis[outside]}" "${schedule[outside]}" || fail "outside: the analysis holds TSKD's schedule"
    "$py" -c 'import sys; a, s = map(float, sys.argv[1:3]); sys.exit(not (s > 0 and a >= s))' \
      "${analysis[schedule-inside]}" "${schedule[schedule-inside]}" || fail "schedule-inside: the schedule is not analysis"
    ;;
  partcc_livelock)
    echo '{"txn_begin": 2.76, "index_probe": 13.67, "row_read": 36.72, "row_write": 53.56, "row_install": 16.14,
      "insert": 50.0, "commit": 2.76, "abort": 0.5, "atomic_rmw": 5.77, "atomic_load": 0.65, "spin_round": 14.3,
      "line_transfer": 64.37, "wake_up": 34353.11}' >"$tmp/ct.json"
    for point in "32 2" "4 4"; do
      read -r warehouses threads <<<"$point"
      "$bin" --workload=tpcc --mix=neworder_payment --warehouses="$warehouses" --threads="$threads" --backoff_max_us=0 \
        --duration=0.02 --warmup=0.01 --seed=2 --load_threads=1 --sim_cost_table="$tmp/ct.json" --out="$tmp/r.json" ||
        fail "PartCC, $warehouses warehouses, $threads threads: exited $?"
      commits=$(field "$tmp/r.json" "d['commits']")
      echo "PartCC, $warehouses warehouses, $threads threads: $commits commits"
      [[ $commits -gt 1000 ]] || fail "PartCC, $warehouses warehouses, $threads threads: $commits commits (the livelock)"
    done
    ;;
  refusals)
    refused() {  # refused <flag> <args...>: exit 2, one line naming --flag
      local flag=$1
      shift
      "$bin" --workload=ycsb --table_size=1000 "$@" >"$tmp/out" 2>"$tmp/err"
      local rc=$?
      [[ $rc -eq 2 ]] || fail "$* exited $rc, want 2"
      grep -q -- "--$flag" "$tmp/err" || fail "$* did not name --$flag: $(cat "$tmp/err")"
    }
    refused pin --pin
    refused sim_smt_factor --sim_smt_factor=0.5
    refused sim_physical_cores --sim_physical_cores=0
    refused sim_sockets --sim_sockets=0
    refused sim_sockets --sim_sockets=3  # 16 physical cores do not split evenly into 3 sockets
    echo '{"index_probe": 1}' >"$tmp/partial.json"
    refused sim_cost_table --sim_cost_table="$tmp/partial.json"
    refused sim_cost_table --sim_cost_table="$tmp/missing.json"
    # The calibration writes a table that a run then reads and records.
    "$bin" --sim_calibrate="$tmp/costs.json" 2>/dev/null || fail "--sim_calibrate exited $?"
    "$bin" --workload=ycsb $(sizes ycsb) $common --sim_cost_table="$tmp/costs.json" --out="$tmp/r.json" ||
      fail "a run with the calibrated table exited $?"
    [[ $(field "$tmp/r.json" "d['sim']['cost_table_source']") == "$tmp/costs.json" ]] || fail "cost_table_source not recorded"
    match_schema "$tmp/r.json"
    # --sim_work_scale: a bad spec is refused naming the flag and the
    # workload's types; a good one is applied to its type only and recorded.
    refused sim_work_scale --sim_work_scale=nope:2
    grep -q "one of ycsb|analysis " "$tmp/err" || fail "the refusal did not list ycsb's types and the analysis: $(cat "$tmp/err")"
    refused sim_work_scale --sim_work_scale=0
    "$bin" --workload=tpcc --warehouses=2 $common --sim_work_scale=payment:3 --out="$tmp/w.json" ||
      fail "a run with --sim_work_scale=payment:3 exited $?"
    [[ $(field "$tmp/w.json" "float(d['sim']['work_scale']['payment']), float(d['sim']['work_scale']['new_order'])") == "(3.0, 1.0)" ]] ||
      fail "work_scale not recorded: $(field "$tmp/w.json" "d['sim']['work_scale']")"
    match_schema "$tmp/w.json"
    # Which model produced the number (issue 46, item 2): a run by hand on the
    # built-in table says so plainly in its last log line and its sim.model;
    # one with a calibrated table and a machine's flags names the table's
    # SHA-256 and the machine, and the machine's ops replace the table's.
    refused sim_wake_up_ns --sim_wake_up_ns=-1
    refused sim_atomic_rmw_ns --sim_atomic_rmw_ns=nope
    "$bin" --workload=ycsb $(sizes ycsb) $common --out="$tmp/b.json" 2>"$tmp/err" || fail "a built-in run exited $?"
    tail -n 1 "$tmp/err" | grep -q "sim model: the BUILT-IN cost table" ||
      fail "the last log line did not say the built-in table: $(tail -n 1 "$tmp/err")"
    [[ $(field "$tmp/b.json" "d['sim']['model']['builtin_cost_table'], d['sim']['model']['cost_table_sha256'], d['sim']['model']['work_scale_source']") == "(True, '', 'none')" ]] ||
      fail "sim.model of a built-in run: $(field "$tmp/b.json" "d['sim']['model']")"
    "$bin" --workload=ycsb $(sizes ycsb) $common --sim_cost_table="$tmp/costs.json" --sim_machine=m5.8xlarge \
      --sim_wake_up_ns=5126 --sim_spin_round_ns=56 --sim_work_scale=2 --sim_work_scale_source="fit store" \
      --out="$tmp/m.json" 2>"$tmp/err" || fail "a run with a machine's flags exited $?"
    digest=$(sha256sum "$tmp/costs.json" | cut -d' ' -f1)
    tail -n 1 "$tmp/err" | grep -q "sim model: cost table $tmp/costs.json (sha256 ${digest:0:12}); machine m5.8xlarge .*spin_round,wake_up from the machine.*work scale 2 (fit store)" ||
      fail "the last log line did not name the model: $(tail -n 1 "$tmp/err")"
    [[ $(field "$tmp/m.json" "(lambda m: (m['cost_table_sha256'], m['machine'], m['op_sources']['wake_up'], m['op_sources']['row_read'], m['op_sources']['line_transfer'], d['sim']['cost_table']['wake_up']))(d['sim']['model'])") == "('$digest', 'm5.8xlarge', 'machine', 'cost_table', 'cost_table', 5126)" ]] ||
      fail "sim.model of a run with a machine: $(field "$tmp/m.json" "d['sim']['model']")"
    match_schema "$tmp/m.json"
    # No silent zero (issue 46): a measured interval too short for a commit.
    "$bin" --workload=ycsb $(sizes ycsb) --threads=2 --warmup=0.0001 --duration=1e-9 --load_threads=1 \
      --out="$tmp/zero.json" 2>"$tmp/err"
    rc=$?
    [[ $rc -eq 4 ]] || fail "a measured interval with no commit exited $rc, want 4: $(cat "$tmp/err")"
    grep -q "committed nothing" "$tmp/err" && grep -q "core 1: last spun or parked at .*:[0-9]" "$tmp/err" ||
      fail "the message did not say so or name the cores' sites: $(cat "$tmp/err")"
    [[ ! -e $tmp/zero.json ]] || fail "a run that committed nothing wrote its result"
    # The time breakdown of the run above ($tmp/r.json, 32 cores): per core the kinds add up to the window
    # (within a backoff of up to --backoff_max_us, 100 us, that a core may be into at either mark).
    "$py" - "$tmp/r.json" <<'EOF' || fail "sim.time_breakdown"
import json, sys
b = json.load(open(sys.argv[1]))["sim"]["time_breakdown"]
assert b["window"] == "measured" and len(b["per_core"]) == 32, (b["window"], len(b["per_core"]))
for i, core in enumerate(b["per_core"]):
    total = sum(core.values())
    assert abs(total - b["window_seconds"]) < 2.5e-4, (i, total, b["window_seconds"])
assert b["cores"]["local_work"] > 0 and b["cores"]["rmw"] > 0 and b["cores"]["line_transfer"] > 0, b["cores"]
EOF
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "sim $case_name ok"
