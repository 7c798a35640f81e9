// One attempt of a transaction and its outcome, shared by the two executors
// (OnlineExecutor's worker, engine/exec/online_executor.h, and
// BundleWorkerLoop::execute, engine/exec/bundle_worker.h), which keep only
// what differs around it (which request, retry or not, backoff, TsDEFER's
// regPos, OLLP deferral, cost history).
//
//   run_attempt     begin; lock the predicted access set (acquire_all(),
//                   where the protocol has one and the caller gives the set);
//                   the stored procedure; commit, or abort on failure; the
//                   execution profile's attempt (AttemptProfiler: no-ops
//                   unless --profile). The history is recorded by the
//                   transaction itself (engine/verify/recorder.h).
//   finish_attempt  classifies the return code (committed; rolled back by
//                   design, RC::kUser or RC::kNotFound, never retried; or a
//                   conflict abort, retried by the caller's rule), calls the
//                   workload's on_commit() after a commit, and, in the
//                   measured interval, counts it in the worker's ThreadStats:
//                   commits with their latency (and --timeline's second),
//                   aborts by reason and by transaction type.
//
// Both are inline templates over the protocol, the workload, the transaction
// type (Txn<CC> or the profiled Txn<CC, true>) and the profiler: the hot
// loops call them without a virtual call or a std::function, and compile to
// what each executor wrote out before.
//
// Thread safety: a worker's own transaction, statistics and workload state.
#pragma once

#include <cstdint>

#include "engine/txn/protocol.h"
#include "engine/core/clock.h"
#include "engine/core/rc.h"
#include "engine/sim/sim.h"
#include "engine/core/txn_desc.h"
#include "engine/stats/thread_stats.h"

namespace ccb {

// Runs one attempt of `req` on `txn` (retry number `retries`). `predicted`:
// the access set acquire_all() locks first; nullptr (or a protocol without
// acquire_all()) locks nothing up front. Returns the attempt's code: RC::kOk
// after a commit, else why it aborted (the transaction is cleaned up).
template <class CC, class W, class TxnT, class Profiler>
inline RC run_attempt(CC& cc, W& w, TxnT& txn, Profiler& profiler, const typename W::Request& req, uint32_t retries,
                      bool read_only, const TxnDesc* predicted) {
  profiler.start();
  sim::work_type(req.type);  // under sim, the type's --sim_work_scale (engine/sim/sim.h)
  txn.begin(retries, read_only);
  RC rc = RC::kOk;
  if constexpr (HasAcquireAll<CC>) {
    if (predicted != nullptr) rc = profiler.acquire([&] { return cc.acquire_all(txn, *predicted); });
  }
  if (rc == RC::kOk) rc = w.run(txn, req);
  if (rc == RC::kOk) {
    rc = txn.commit();  // cleans up itself on failure
  } else {
    txn.abort();
  }
  profiler.end(rc == RC::kOk);
  return rc;
}

// How an attempt ended, for the caller's next step.
enum class Attempted : uint8_t {
  kCommitted,   // done
  kRolledBack,  // the procedure rolled back by design (RC::kUser, RC::kNotFound): done, not retried
  kConflict,    // aborted by the protocol: the caller retries (or drops, or defers) it
};

// Where a commit's latency starts and the measured interval's clock.
struct AttemptClock {
  bool measuring = false;      // count in `ThreadStats` (the measured interval)
  uint64_t since_ns = 0;       // the commit's latency runs from here (online: first attempt; bundle: batch start)
  uint64_t measure_start_ns = 0;  // --timeline: the commit's second since this
  bool timeline = false;       // --timeline
};

// After run_attempt(): on_commit() for a commit, and the outcome counted in
// `st` while measuring.
template <class W>
inline Attempted finish_attempt(W& w, typename W::ThreadState& ws, ThreadStats& st, const typename W::Request& req,
                                RC rc, const AttemptClock& clock) {
  if (rc == RC::kOk) {
    sim::committed();  // progress, for the simulation's stall watchdog
    w.on_commit(ws, req);
    if (clock.measuring) {
      const uint64_t end = now_ns(), latency = end - clock.since_ns;
      ++st.commits;
      st.latency.record(latency);
      ++st.per_type[req.type].commits;
      st.per_type[req.type].latency_ns_sum += latency;
      if (clock.timeline) st.add_to_timeline(end - clock.measure_start_ns);
    }
    return Attempted::kCommitted;
  }
  const bool by_design = rc == RC::kUser || rc == RC::kNotFound;
  if (clock.measuring) {
    ++st.aborts_by_reason[static_cast<size_t>(rc)];
    if (by_design) {
      ++st.user_aborts;
      ++st.per_type[req.type].user_aborts;
    } else {
      ++st.aborts;
      ++st.per_type[req.type].aborts;
    }
  }
  return by_design ? Attempted::kRolledBack : Attempted::kConflict;
}

}  // namespace ccb
