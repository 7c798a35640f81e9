#!/usr/bin/env bash
# Protocol code touches shared state only through the core's primitives
# (CONTRIBUTING.md, "Adding a protocol"): engine/core/shared.h's Shared<T>
# for protocol metadata, engine/core/latch.h's latches, engine/core/spin.h,
# engine/core/message_queue.h, engine/core/clock.h, engine/core/thread_group.h,
# engine/core/local_work.h. Those carry the simulation's cost-model hooks; a
# raw std::atomic in a protocol is a shared word that no hook names, which the
# simulation silently does not charge (docs/sim.md, "Limits").
#
# check-cc-primitives.sh [dir ...]: every C++ file under the dirs (default:
# engine/cc, the protocols, engine/cc_helpers, the building blocks they share,
# and engine/txn, the transaction engine that calls them; a protocol's tests,
# *_test.cpp in its folder, are not protocol
# code: their threads are the test's own) is checked for a raw std::atomic type, a call into the
# simulator (sim::) or an include of engine/sim/; each one found is printed as
# file:line: text, and the exit status is 1. std::atomic_thread_fence and
# std::atomic_signal_fence (fences, not shared words) are allowed.
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=("$@")
[[ ${#dirs[@]} -gt 0 ]] || dirs=(engine/cc engine/cc_helpers engine/txn)

pattern='std::atomic<|std::atomic_ref|std::atomic_flag|\bsim::|#include[[:space:]]*"engine/sim/'
found=$(grep -rnE --include='*.h' --include='*.hpp' --include='*.cc' --include='*.cpp' --exclude='*_test.cpp' "$pattern" "${dirs[@]}" |
  grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)
# A mention inside a comment after code is not a use: drop what follows //.
found=$(printf '%s\n' "$found" | awk -F: 'NF >= 3 { line = $0; sub(/^[^:]+:[0-9]+:/, "", line); sub(/\/\/.*/, "", line);
  if (line ~ /std::atomic<|std::atomic_ref|std::atomic_flag|(^|[^a-z_])sim::|#include[ \t]*"engine\/sim\//) print $0 }')
if [[ -n $found ]]; then
  echo "check-cc-primitives: protocol code must use the core's primitives, not raw atomics or the simulator:" >&2
  printf '%s\n' "$found" >&2
  echo "use Shared<T> (engine/core/shared.h) and the latches of engine/core/latch.h; CONTRIBUTING.md, \"Adding a protocol\"" >&2
  exit 1
fi
echo "check-cc-primitives: ${dirs[*]}: ok"
