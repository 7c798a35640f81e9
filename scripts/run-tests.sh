#!/usr/bin/env bash
# The README's second command (and what CI runs): installs what is missing,
# builds every variant the tests need and runs all test tiers:
#   release: ctest (stress, mutation, the binaries' contract and --verify
#            runs; the unit tier too with SKIP_SANITIZERS=1) and pytest (the
#            harness); then every figure at the smoke profile through the
#            real binaries;
#   profile: the execution profile's binaries (make test-profile);
#   sim:     the many-core simulation's tests and binaries (make test-sim);
#   tsan:    the multi-threaded stress tests under ThreadSanitizer;
#   asan:    the unit tests under AddressSanitizer + UndefinedBehaviorSanitizer
#            (the unit tier's only run in CI).
# SKIP_SANITIZERS=1 skips the last two (for a quick local run).
# Each stage's wall time and CPU time (user + sys of everything it ran) are
# printed at the end, so that CI's log says where its time goes (CONTRIBUTING.md,
# "CI time"). pytest, which mostly waits, runs beside the release ctest.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each stage runs in a subshell that ends by writing bash's `times` (its
# children's user and sys time) to a file, so a stage's CPU seconds are its own
# even when another stage runs beside it.
tmp=$(mktemp -d)
stages=()
run_timed() {  # run_timed <cpu file> <command...>
  local cpu_file=$1
  shift
  ( rc=0; "$@" || rc=$?; times >"$cpu_file"; echo "$EPOCHREALTIME" >>"$cpu_file"; exit "$rc" )
}
record_stage() {  # record_stage <name> <wall0> <cpu file> <rc> [note]: wall time to the command's own end
  stages+=("$(awk -v n="$1" -v w0="$2" -v w1="$EPOCHREALTIME" -v rc="$4" -v note="${5:-}" \
    'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); c = u[1] * 60 + u[2] + s[1] * 60 + s[2] }
     NR == 3 { w1 = $1 }
     END { printf "%-16s %8.1f %8.1f%s%s", n, w1 - w0, c, note ? "  " note : "", rc ? "  failed (exit " rc ")" : "" }' "$3")")
}
stage() {  # stage <name> <command...>: runs it now
  local name=$1 wall0=$EPOCHREALTIME rc=0
  shift
  run_timed "$tmp/$name.cpu" "$@" || rc=$?
  record_stage "$name" "$wall0" "$tmp/$name.cpu" "$rc"
  return "$rc"
}
# A stage that mostly waits (pytest: Ray's start-up, a private PostgreSQL
# server, timeouts) runs beside a CPU-bound one: start_beside <name> <command...>
# starts it in its own process group with its output in a file; finish_beside
# waits for it, prints its output and records it.
beside_pid='' beside_name='' beside_wall0=''
start_beside() {
  beside_name=$1 beside_wall0=$EPOCHREALTIME
  shift
  set -m  # its own process group, so that an early exit can stop all of it
  run_timed "$tmp/$beside_name.cpu" "$@" >"$tmp/$beside_name.log" 2>&1 &
  beside_pid=$!
  set +m
}
finish_beside() {  # finish_beside <the stage it ran beside>
  local rc=0
  wait "$beside_pid" || rc=$?
  beside_pid=''
  cat "$tmp/$beside_name.log"
  record_stage "$beside_name" "$beside_wall0" "$tmp/$beside_name.cpu" "$rc" "(beside $1)"
  return "$rc"
}
start=$EPOCHREALTIME
summary() {
  if [[ -n $beside_pid ]]; then  # an earlier stage failed: stop the one beside it
    kill -- "-$beside_pid" 2>/dev/null || true
    wait "$beside_pid" 2>/dev/null || true
    echo "run-tests.sh: stopped $beside_name, which ran beside the failed stage; its output so far:"
    cat "$tmp/$beside_name.log"
  fi
  printf '\n%-16s %8s %8s\n' "stage" "wall_s" "cpu_s"
  printf '%s\n' "${stages[@]}"
  awk -v w0="$start" -v w1="$EPOCHREALTIME" 'BEGIN { printf "%-16s %8.1f\n", "total", w1 - w0 }'
  rm -rf "$tmp"
}
trap summary EXIT

# CI builds each variant's programs for what it runs there, and no more:
#  - the profile variant compiles only the workloads its test and the smoke
#    figures run (Makefile, WORKLOADS_<variant>; the harness's own `make`
#    calls inherit it); the sim variant compiles every workload (test-sim's
#    --verify matrix runs them all), at -O1 (OPT_<variant>: about a third
#    less CPU per binary than -O2, the same simulated results; docs/sim.md,
#    "Tests");
#  - the unit tier's programs are built and run once, under ASan+UBSan (the
#    asan stage), so the release stage builds the binaries, the tools and the
#    stress and mutation programs (make build-ci) and runs every other tier
#    (make test-cpp-ci). With SKIP_SANITIZERS=1 the release stage builds and
#    runs every tier, the unit tier included.
export WORKLOADS_profile="ycsb hot" OPT_sim=-O1
if [[ -z "${SKIP_SANITIZERS:-}" ]]; then
  release_build=build-ci release_tests=test-cpp-ci
else
  release_build=build-all release_tests=test-cpp
fi

stage deps bash scripts/install-deps.sh
stage check-cc bash scripts/check-cc-primitives.sh
stage build-release make --no-print-directory $release_build
# One pytest process beside ctest (PYTEST_WORKERS=0): with 3 xdist workers the
# two stages overloaded the 2 cores and timing-bound tests failed (an Orthrus
# stress test under its commit floor, Ray's packing test).
start_beside pytest make --no-print-directory test-python PYTEST_WORKERS=0

stage ctest-release make --no-print-directory $release_tests
finish_beside ctest-release
# The harness end to end on the real engine: every figure at the smoke profile
# (strife-fig07's runs use the profile build, which the harness builds).
stage figures-smoke make --no-print-directory figures PROFILE=smoke
# The profile build's binaries against their contract.
stage test-profile make --no-print-directory test-profile
# The simulation build's tests: the scheduler, the cost model, the watchdog and
# every serializable protocol x workload under --verify at 32 virtual cores.
stage test-sim make --no-print-directory test-sim
if [[ -z "${SKIP_SANITIZERS:-}" ]]; then
  stage build-tsan make --no-print-directory build-tests-tsan
  stage ctest-tsan make --no-print-directory test-tsan
  stage build-asan make --no-print-directory build-tests-asan
  stage ctest-asan make --no-print-directory test-asan
fi
