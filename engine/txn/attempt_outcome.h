// The outcome of a transaction attempt for --attempt_latency_type
// (engine/stats/attempt_latency.h says what each outcome means): committed,
// saved (committed although OCC's criterion failed: BCC paper §6.3), or
// aborted. Only the protocol knows whether a commit was saved.
//
// Thread safety: pure functions of the worker's own transaction.
#pragma once

#include <concepts>

#include "engine/txn/protocol.h"  // Txn's declaration
#include "engine/core/rc.h"
#include "engine/stats/attempt_latency.h"

namespace ccb {

// A protocol that tells whether its last commit was saved: ReportsSavedCommits
// (engine/txn/protocol.h).
// The outcome of an attempt that ended with `rc` (not kUser / kNotFound).
template <class CC, bool kProfiled>
AttemptOutcome classify_attempt(const CC& cc, Txn<CC, kProfiled>& txn, RC rc) {
  if (rc != RC::kOk) return AttemptOutcome::kAborted;
  if constexpr (ReportsSavedCommits<CC>) {
    if (cc.last_commit_saved(txn)) return AttemptOutcome::kSaved;
  }
  return AttemptOutcome::kCommitted;
}

}  // namespace ccb
