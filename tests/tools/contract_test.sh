#!/usr/bin/env bash
# Contract of the stand-alone tools (CONTRIBUTING.md, tier "contract"): each
# parses its flags as the engine does (engine/core/cli.h), declared as the
# rows of its options table (engine/core/options.h), and writes its JSON
# with the engine's JsonWriter. For the tool named by $1, binary $2
# (check_history also needs bench_checker, $3, to write a history; the
# middle tier, bin/middletier, is checked here for its refusals only, as a
# run needs a PostgreSQL server: tests/python/test_middletier_pg.py):
#   --help exits 0 and lists the tool's flags;
#   an unknown flag and an out-of-range value each exit 2 with one line on
#   stderr naming the flag, nothing on stdout and no output file;
#   a good run's JSON parses and has the fields its readers use;
#   paths with a quote and a backslash work, and a string field that carries
#   one (bench_checker's config.file) reads back exactly.
set -u
tool=$1 bin=$2 bench_checker=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/out"
fail() { echo "FAIL [$tool]: $*" >&2; exit 1; }
odd='q"b\s'  # a quote and a backslash, in file names

# expect_bad FLAG ARGS...: exit 2, one line on stderr naming --FLAG, nothing
# on stdout, nothing in $tmp/out (where the runs' output files would go).
expect_bad() {
  local flag=$1 rc
  shift
  "$bin" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  rc=$?
  [ $rc -eq 2 ] || fail "$* exited $rc, not 2 ($(cat "$tmp/stderr"))"
  [ "$(wc -l <"$tmp/stderr")" -eq 1 ] || fail "$*: stderr is not one line: $(cat "$tmp/stderr")"
  grep -q -- "^error: --$flag: " "$tmp/stderr" || fail "$*: the error does not name --$flag: $(cat "$tmp/stderr")"
  [ ! -s "$tmp/stdout" ] || fail "$*: wrote to stdout: $(head -c 200 "$tmp/stdout")"
  [ -z "$(ls -A "$tmp/out")" ] || fail "$*: wrote $(ls -A "$tmp/out")"
}

# expect_help FLAG...: --help exits 0 and lists each --FLAG.
expect_help() {
  "$bin" --help >"$tmp/help" 2>"$tmp/stderr" || fail "--help exited $? ($(cat "$tmp/stderr"))"
  for flag in "$@"; do
    grep -q -- "^  --$flag " "$tmp/help" || fail "--help does not list --$flag"
  done
}

# check_json FILE PYTHON: FILE is one JSON document (json.tool), and the
# assertions in PYTHON hold for it as `d` (the odd string is `odd`).
check_json() {
  python3 -m json.tool "$1" >/dev/null || fail "$1 is not JSON: $(head -c 300 "$1")"
  python3 -c "import json, sys
d = json.load(open(sys.argv[1])); odd = sys.argv[2]
$2" "$1" "$odd" || fail "$1: wrong document: $(head -c 600 "$1")"
}

case "$tool" in
bench_fvs)
  expect_help thetas theta algorithm source out format
  point=(--theta=0.9 --algorithm=greedy_sort --graphs=20 --time_reps=1)
  expect_bad bogus "${point[@]}" --bogus=1 --out="$tmp/out/p.json"
  expect_bad graphs "${point[@]}" --graphs=0 --out="$tmp/out/p.json"
  expect_bad theta --theta=11 --algorithm=greedy_sort --out="$tmp/out/p.json"
  expect_bad thetas --thetas=0.5,x --format=json
  expect_bad source "${point[@]}" --source=pipelines --out="$tmp/out/p.json"
  expect_bad out "${point[@]}" --out="$tmp/no/such/dir/p.json"
  "$bin" "${point[@]}" --out="$tmp/out/$odd.json" || fail "a good --out run exited $?"
  check_json "$tmp/out/$odd.json" '
assert d["benchmark"] == "bench_fvs" and d["theta"] == 0.9 and d["algorithm"] == "greedy_sort", d
c = d["config"]
assert c["theta"] == 0.9 and c["algorithm"] == "greedy_sort" and c["source"] == "fresh" and c["graphs"] == 20, c
assert d["completed"] is True and d["graphs_solved"] == 20 and d["capped_graphs"] == 0, d
assert d["avg_fvs_size"] >= 0 and d["us_per_graph"] > 0 and d["avg_nodes"] == 40, d
assert "git_revision" in d["provenance"], d["provenance"]'
  "$bin" --thetas=0.5,0.9 --algorithms=greedy_sort,random --graphs=10 --time_reps=1 --format=json \
    >"$tmp/all.json" || fail "a good --format=json run exited $?"
  check_json "$tmp/all.json" '
assert d["benchmark"] == "bench_fvs" and d["config"]["graphs"] == 10, d["config"]
assert [g["theta"] for g in d["graphs"]] == [0.5, 0.9], d["graphs"]
assert [(r["theta"], r["algorithm"]) for r in d["results"]] == [(t, a) for t in (0.5, 0.9) for a in ("greedy_sort", "random")]
assert all(set(r) >= {"completed", "capped_graphs", "avg_fvs_size", "us_per_graph"} for r in d["results"])'
  ;;
bench_strife)
  expect_help experiments fig05_points alphas batch threads pack format
  expect_bad bogus --bogus=1 --format=json
  expect_bad batch --batch=0 --format=json
  expect_bad alphas --alphas=0,2 --format=json
  expect_bad threads --threads=1,0 --format=json
  expect_bad fig05_points --fig05_points=tpcc:0 --format=json
  expect_bad experiments --experiments=fig05,fig11 --format=json
  "$bin" --format=json --batch=300 --reps=1 --threads=1,2 --experiments=fig05,fig09,fig10 \
    --fig05_points=tpcc:2,ycsb:0.9,hot:10 --fig09_points=ycsb:0.5 --fig10_points=tpcc:2 --alphas=0,0.5 \
    >"$tmp/strife.json" || fail "a good run exited $?"
  check_json "$tmp/strife.json" '
c = d["config"]
assert d["bench"] == "strife" and c["batch"] == 300 and c["threads"] == [1, 2] and c["pack"] is True, c
assert c["batches"] == "workloads/{tpcc,ycsb,hot}: generate() + describe() (tools/bench_batches.h)", c
assert [(r["workload"], r["param"]) for r in d["fig05"]] == [("tpcc", 2), ("ycsb", 0.9), ("hot", 10)], d["fig05"]
for r in d["fig05"]:
    assert r["batch_size"] == 300 and r["cf_clusters"] >= 1 and 0 <= r["residuals"] <= 300, r
    assert r["queue_min"] <= r["queue_max"] and set(r["time_us"]) == {"prepare", "spot", "fuse", "merge", "allocate", "total"}, r
assert [r["threads"] for r in d["fig09"]] == [1, 2] and all(r["txn_per_s"] > 0 for r in d["fig09"]), d["fig09"]
assert [(r["workload"], r["alpha"]) for r in d["fig10"]] == [("tpcc", 0), ("tpcc", 0.5)], d["fig10"]'
  ;;
bench_checker)
  expect_help txns accesses keys theta file json
  expect_bad bogus --bogus --json --file="$tmp/out/h.bin"
  expect_bad accesses --accesses=0 --json --file="$tmp/out/h.bin"
  expect_bad theta --theta=1 --json --file="$tmp/out/h.bin"
  expect_bad accesses --keys=10 --accesses=11 --json
  expect_bad file --file="$tmp/no/such/dir/h.bin" --json
  "$bin" --txns=500 --keys=1000 --theta=0.5 --json --file="$tmp/out/$odd.bin" >"$tmp/checker.json" \
    || fail "a good run exited $?"
  check_json "$tmp/checker.json" '
c = d["config"]
assert d["benchmark"] == "bench_checker" and c["txns"] == 500 and c["theta"] == 0.5, c
assert c["file"].endswith("/" + odd + ".bin"), c["file"]
assert d["check"]["serializable"] is True and d["check"]["counts"]["txns"] == 500, d["check"]
assert d["write_history_seconds"] >= 0 and d["read_history_seconds"] >= 0 and d["wall_seconds_per_million_txns"] > 0, d'
  # Its config is its options table's echo: the fields --config_schema names.
  "$bin" --config_schema >"$tmp/schema.json" || fail "--config_schema exited $?"
  python3 -c "import json, sys
s = json.load(open(sys.argv[1]))['bench_checker_flags']; c = json.load(open(sys.argv[2]))['config']
assert list(c) == s['required'] == list(s['properties']), (list(c), s['required'])" "$tmp/schema.json" "$tmp/checker.json" \
    || fail "config is not the options table's echo"
  "$bin" --txns=200 --keys=100 --stale_read_pct=50 --json >"$tmp/stale.json" || fail "a stale-read run exited $?"
  check_json "$tmp/stale.json" 'assert d["check"]["serializable"] is False and d["write_history_seconds"] is None, d'
  ;;
check_history)
  expect_help history json
  "$bench_checker" --txns=300 --keys=500 --file="$tmp/$odd.bin" >/dev/null || fail "bench_checker exited $?"
  echo "not a history" >"$tmp/text.bin"
  expect_bad bogus --bogus --history="$tmp/$odd.bin"
  expect_bad history --json
  expect_bad history --history="$tmp/missing.bin" --json
  expect_bad history --history="$tmp/text.bin" --json
  expect_bad "?" "$tmp/$odd.bin"  # the file is --history's value, not an argument
  "$bin" --json --history="$tmp/$odd.bin" >"$tmp/check.json" || fail "a good run exited $?"
  check_json "$tmp/check.json" '
assert d["serializable"] is True and d["violation"] is None and d["counts"]["txns"] == 300, d
assert set(d["phases"]) == {"group_seconds", "graph_seconds", "scc_seconds", "witness_seconds"} and d["check_seconds"] >= 0'
  "$bin" --history="$tmp/$odd.bin" >"$tmp/summary" || fail "a summary run exited $?"
  grep -qF "$tmp/$odd.bin: 300 transactions" "$tmp/summary" && grep -qx serializable "$tmp/summary" \
    || fail "wrong summary: $(cat "$tmp/summary")"
  ;;
bench_tsgen)
  expect_help points ks partitioner batch reps partitions seed
  expect_bad bogus --bogus=1
  expect_bad batch --batch=0
  expect_bad reps --reps=100001
  expect_bad partitions --partitions=0
  expect_bad partitioner --partitioner=metis
  expect_bad ks --ks=2,0
  expect_bad points --points=ycsb
  "$bin" --points=ycsb:0.5,tpcc:2 --ks=2,4 --batch=200 --reps=2 --partitioner=strife >"$tmp/tsgen.txt" \
    || fail "a good run exited $?"
  [ "$(grep -cE '^(ycsb|tpcc):' "$tmp/tsgen.txt")" -eq 4 ] || fail "not one row per (point, k): $(cat "$tmp/tsgen.txt")"
  ;;
middletier)
  expect_help mode connections batch_size fvs_algorithm pg_host pg_port pg_user pg_database mutation
  ok=(--workload=smallbank --pg_host=/nonexistent --pg_port=5432 --out="$tmp/out/m.json")
  expect_bad pg_port --workload=smallbank --pg_host=/nonexistent --out="$tmp/out/m.json"  # required
  expect_bad pg_port "${ok[@]}" --pg_port=65536
  expect_bad connections "${ok[@]}" --connections=0
  expect_bad batch_size "${ok[@]}" --batch_size=10001
  expect_bad mode "${ok[@]}" --mode=fast
  expect_bad mutation "${ok[@]}" --mutation=other
  expect_bad fvs_algorithm "${ok[@]}" --fvs_algorithm=greedy
  expect_bad pg_user "${ok[@]}" --pg_user=
  expect_bad threads "${ok[@]}" --threads=2
  ;;
*)
  fail "unknown tool; allowed: bench_fvs, bench_strife, bench_checker, check_history, bench_tsgen, middletier"
  ;;
esac
echo "ok"
