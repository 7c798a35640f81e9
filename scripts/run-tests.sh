#!/usr/bin/env bash
# The README's second command (and what CI runs): installs what is missing,
# builds every variant the tests need and runs all test tiers:
#   release: ctest (unit + stress + the binaries' contract and --verify runs)
#            and pytest (the harness); then every figure at the smoke
#            profile through the real binaries;
#   profile: the execution profile's binaries (make test-profile);
#   tsan:    the multi-threaded stress tests under ThreadSanitizer;
#   asan:    the unit tests under AddressSanitizer + UndefinedBehaviorSanitizer.
# SKIP_SANITIZERS=1 skips the last two (for a quick local run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
make --no-print-directory test
# The harness end to end on the real engine: every figure at the smoke profile
# (strife-fig07's runs use the profile build, which the harness builds).
make --no-print-directory figures PROFILE=smoke
# The profile build's binaries against their contract.
make --no-print-directory test-profile
if [[ -z "${SKIP_SANITIZERS:-}" ]]; then
  make --no-print-directory test-sanitizers
fi
