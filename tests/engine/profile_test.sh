#!/usr/bin/env bash
# The profile build's rundb binary (make CC=<cc> VARIANT=profile,
# build/profile/bin/rundb-<cc>): it always reports the execution profile
# (strife-fig07), refuses --profile=false (exit 2 naming --profile, nothing
# written), and its documents match docs/result.schema.json.
# usage: profile_test.sh <path-to-profile-build-rundb-binary>
source "$(dirname "$0")/contract_lib.sh" "$1"

"$bin" --workload=ycsb --profile=false --out="$tmp/bad.json" 2>"$tmp/err"; rc=$?
[[ $rc -eq 2 ]] || fail "--profile=false exited $rc, want 2"
grep -q -- "--profile:" "$tmp/err" || fail "--profile=false: error does not name --profile: $(cat "$tmp/err")"
[[ ! -e $tmp/bad.json ]] || fail "--profile=false wrote an output file"

# --profile: the execution profile (strife-fig07), six shares summing to 1 and their seconds; under the online
# executor no analysis, under the bundle executor (Strife) the analysis phase.
profile_fields='import json, sys
r = json.load(open(sys.argv[1])); p = r["profile"]; cats = ["abort", "lock", "execute", "index", "validation", "analysis"]
assert r["config"]["profile"] is True and set(p) == set(cats) | {"seconds", "abort_seconds"}, p
assert set(p["seconds"]) == set(cats) and set(p["abort_seconds"]) == {"attempts", "backoff"}, p
assert abs(sum(p["abort_seconds"].values()) - p["seconds"]["abort"]) <= 1e-9 + 1e-6 * p["seconds"]["abort"], p
assert abs(sum(p[c] for c in cats) - 1) < 1e-9 and all(p[c] >= 0 and p["seconds"][c] >= 0 for c in cats), p
assert p["execute"] > 0 and p["index"] > 0 and p["lock"] > 0 and p["validation"] > 0, p
assert (p["analysis"] > 0) == (sys.argv[2] == "bundle"), p'
"$bin" --workload=ycsb --threads=2 --warmup=0 --duration=0.2 --table_size=1000 --theta=0.9 \
  --out="$tmp/profile.json" 2>/dev/null || fail "--profile run exited $?"
python3 -c "$profile_fields" "$tmp/profile.json" online || fail "--profile run: wrong profile object"
if $bundle; then
  "$bin" --workload=ycsb --frontend=strife --threads=2 --warmup=0 --duration=0.2 --table_size=1000 --theta=0.9 \
    --batch_size=500 --out="$tmp/profile_strife.json" 2>/dev/null || fail "--profile strife run exited $?"
  python3 -c "$profile_fields" "$tmp/profile_strife.json" bundle || fail "--profile strife run: wrong profile object"
fi
match_schema "$tmp"/profile*.json
echo "profile build contract ok"
