#!/usr/bin/env bash
# The README's second command (and what CI runs): installs what is missing,
# builds every variant the tests need and runs all test tiers:
#   release: ctest (unit + stress + the binaries' contract and --verify runs)
#            and pytest (the harness); then every figure at the smoke
#            profile through the real binaries;
#   profile: the execution profile's binaries (make test-profile);
#   sim:     the many-core simulation's tests and binaries (make test-sim);
#   tsan:    the multi-threaded stress tests under ThreadSanitizer;
#   asan:    the unit tests under AddressSanitizer + UndefinedBehaviorSanitizer.
# SKIP_SANITIZERS=1 skips the last two (for a quick local run).
# Each stage's wall time and CPU time (user + sys of everything it ran) are
# printed at the end, so that CI's log says where its time goes (CONTRIBUTING.md,
# "CI time").
set -euo pipefail
cd "$(dirname "$0")/.."

# CPU seconds of this shell's finished children so far, into $cpu_s: bash's
# `times`, run in this shell (in a subshell, as in $(...), it would count only
# the subshell's own children).
times_file=$(mktemp)
read_children_cpu() {
  times >"$times_file"
  read -r cpu_s < <(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$times_file")
}
stages=()
stage() {
  local name=$1 wall0=$EPOCHREALTIME cpu0 rc=0
  shift
  read_children_cpu
  cpu0=$cpu_s
  "$@" || rc=$?
  read_children_cpu
  stages+=("$(awk -v n="$name" -v w0="$wall0" -v w1="$EPOCHREALTIME" -v c0="$cpu0" -v c1="$cpu_s" -v rc="$rc" \
    'BEGIN { printf "%-16s %8.1f %8.1f%s", n, w1 - w0, c1 - c0, rc ? "  failed (exit " rc ")" : "" }')")
  return "$rc"
}
start=$EPOCHREALTIME
summary() {
  printf '\n%-16s %8s %8s\n' "stage" "wall_s" "cpu_s"
  printf '%s\n' "${stages[@]}"
  read_children_cpu
  awk -v w0="$start" -v w1="$EPOCHREALTIME" -v c="$cpu_s" 'BEGIN { printf "%-16s %8.1f %8.1f\n", "total", w1 - w0, c }'
  rm -f "$times_file"
}
trap summary EXIT

stage deps bash scripts/install-deps.sh
stage build-release make --no-print-directory build-all
stage ctest-release make --no-print-directory test-cpp
stage pytest make --no-print-directory test-python
# The harness end to end on the real engine: every figure at the smoke profile
# (strife-fig07's runs use the profile build, which the harness builds).
stage figures-smoke make --no-print-directory figures PROFILE=smoke
# The profile build's binaries against their contract.
stage test-profile make --no-print-directory test-profile
# The simulation build's tests: the scheduler, the cost model, the watchdog and
# the sim binaries of six protocols under --verify at 32 virtual cores.
stage test-sim make --no-print-directory test-sim
if [[ -z "${SKIP_SANITIZERS:-}" ]]; then
  stage build-tsan make --no-print-directory build-tests-tsan
  stage ctest-tsan make --no-print-directory test-tsan
  stage build-asan make --no-print-directory build-tests-asan
  stage ctest-asan make --no-print-directory test-asan
fi
