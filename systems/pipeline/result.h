// What a run of the pipeline engine measured (engine.h; run.h collects it
// from the components after they stopped, pipeline_main.cc writes it as the
// result document): commits and aborts by reason in the measured interval,
// latency, each component thread's busy time, the reorder workers' counters,
// sampled queue lengths, and the accounting of every transaction over the
// whole run (the no-loss / no-duplicate invariant).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/stats/histogram.h"
#include "engine/verify/recorder.h"
#include "engine/workload.h"

namespace ccb::pipeline {

// Why a validator aborted a transaction.
enum class AbortReason { kValidation, kPrevalidation, kFvs, kFinalValidation, kCount };
inline const char* abort_reason_name(AbortReason r) {
  switch (r) {
    case AbortReason::kValidation: return "validation";
    case AbortReason::kPrevalidation: return "prevalidation";
    case AbortReason::kFvs: return "fvs";
    case AbortReason::kFinalValidation: return "final_validation";
    default: return "?";
  }
}

struct QueueSample {
  double sum = 0;
  int64_t max = 0;
  uint64_t samples = 0;
  void add(int64_t n) {
    n = std::max<int64_t>(n, 0);  // TBB counts waiting consumers as negative
    sum += static_cast<double>(n);
    max = std::max(max, n);
    ++samples;
  }
  double avg() const { return samples ? sum / static_cast<double>(samples) : 0.0; }
};

struct ReorderStats {
  uint64_t batches = 0, txns = 0, busy_ns = 0;
  uint64_t edge_limit_hits = 0, fvs_total = 0, fvs_max = 0, nodes_total = 0, edges_total = 0, nonviable_total = 0;
  void merge(const ReorderStats& o) {
    batches += o.batches, txns += o.txns, busy_ns += o.busy_ns, edge_limit_hits += o.edge_limit_hits;
    fvs_total += o.fvs_total, fvs_max = std::max(fvs_max, o.fvs_max), nodes_total += o.nodes_total;
    edges_total += o.edges_total, nonviable_total += o.nonviable_total;
  }
};

// Everything a run measured (pipeline_main.cc writes it as JSON).
struct PipelineResult {
  double measured_s = 0, run_s = 0;
  uint64_t commits = 0;            // in the measured interval (client-side)
  uint64_t restarts = 0;           // of the transactions committed in the interval
  uint64_t aborts_by_reason[static_cast<size_t>(AbortReason::kCount)] = {};  // in the interval
  LatencyHistogram latency;        // first submission -> commit reply, ns
  // Busy time (ns) per component thread over the whole run.
  uint64_t processor_busy_ns = 0, validator_busy_ns = 0, prep_busy_ns = 0, validation_busy_ns = 0;
  std::vector<uint64_t> storage_busy_ns, client_busy_ns, reorder_busy_ns;
  uint64_t storage_batches = 0, validator_batches = 0;
  ReorderStats reorder;
  // Queue lengths sampled every millisecond of the measured interval.
  QueueSample q_processor, q_storage, q_validator, q_reorder, q_validation;
  // Accounting over the whole run (the no-loss / no-duplicate invariant).
  uint64_t issued = 0, client_replies = 0, processor_commits = 0, validator_commits = 0, duplicate_commits = 0;
  uint64_t abandoned = 0;  // in flight at shutdown
  uint64_t all_aborts = 0;  // validator aborts over the whole run (warm-up and drain included)
  std::vector<InvariantResult> invariants;
  verify::HistoryLog history;  // with verify: the commit order, txn id = commit timestamp
  int threads = 0;
  uint64_t aborts() const {
    uint64_t a = 0;
    for (uint64_t n : aborts_by_reason) a += n;
    return a;
  }
};

}  // namespace ccb::pipeline
