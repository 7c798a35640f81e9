// BundlePlan: what a front-end hands the bundle executor for one batch
// (ARCHITECTURE "Executors" (b)), and BundleFrontend, the interface of a
// front-end as the executor sees it.
//
// A plan has two phases, separated by a barrier:
//   1. Queues. Worker t first runs per_thread[t] in order, then pops queues
//      from the shared worklist until it is empty. A queue runs in order, on
//      one worker, start to end. Each queue is marked:
//        kWithCC      its transactions run under the binary's protocol (they
//                     may conflict with transactions of other queues);
//        kWithoutCC   they run with no concurrency control (NoCC's operations,
//                     engine/cc/nocc.h). The front-end guarantees that no
//                     transaction of such a queue conflicts with any
//                     transaction of another queue of the same phase.
//   2. Residuals, after every queue has finished: any worker takes the next
//      residual (one at a time) and runs it under the binary's protocol.
// The next batch starts after phase 2 (no overlap between batches, as in
// Strife §2). Who uses what:
//   Strife (§2)                  worklist of kWithoutCC queues (CF clusters) + residuals
//   TSKD (TsPAR)                 per_thread queues, kWithoutCC or kWithCC, + residuals
//   Schism / Horticulture        per_thread kWithoutCC queues (one partition per thread) + residuals
//                                (partitioners/partitioner_frontend.h)
// Transactions are indices into the batch. Every index of the batch appears
// exactly once in the plan (validate() checks this).
//
// Thread safety: a plan is built by the front-end on one thread, published to
// the workers by the executor's phase barrier, and then only read.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/txn_desc.h"

namespace ccb {

class JsonWriter;

struct BundleQueue {
  enum class Mode : uint8_t { kWithCC, kWithoutCC };
  Mode mode = Mode::kWithCC;
  std::vector<uint32_t> txns;  // batch indices, run in this order
};

struct BundlePlan {
  std::vector<std::vector<BundleQueue>> per_thread;  // per_thread[t]: worker t's own queues (may be empty)
  std::vector<BundleQueue> worklist;                 // popped by idle workers, one queue per pop
  std::vector<uint32_t> residuals;                   // phase 2, under the protocol

  // What the front-end reports about this batch, summed (counters) and
  // averaged (both) by the executor over the measured batches: the analysis
  // steps' wall time in microseconds (Strife: prepare, spot, fuse, merge,
  // allocate) and counters (Strife: special clusters, CF clusters, ...).
  std::vector<std::pair<std::string, double>> step_us;
  std::vector<std::pair<std::string, double>> counters;

  void clear() {
    for (auto& q : per_thread) q.clear();
    worklist.clear();
    residuals.clear();
    step_us.clear();
    counters.clear();
  }
  size_t size() const {
    size_t n = residuals.size();
    for (const auto& qs : per_thread)
      for (const auto& q : qs) n += q.txns.size();
    for (const auto& q : worklist) n += q.txns.size();
    return n;
  }
  // Empty if every batch index in [0, batch_size) appears exactly once and
  // per_thread has at most `threads` entries; else what is wrong.
  std::string validate(size_t batch_size, int threads) const {
    if (per_thread.size() > static_cast<size_t>(threads))
      return "plan has queues for " + std::to_string(per_thread.size()) + " threads, the executor has " +
             std::to_string(threads);
    std::vector<uint8_t> seen(batch_size, 0);
    std::string error;
    auto mark = [&](std::span<const uint32_t> txns) {
      for (uint32_t t : txns) {
        if (!error.empty()) return;
        if (t >= batch_size) error = "plan lists transaction " + std::to_string(t) + " outside the batch";
        else if (seen[t]++) error = "plan lists transaction " + std::to_string(t) + " twice";
      }
    };
    for (const auto& qs : per_thread)
      for (const auto& q : qs) mark(q.txns);
    for (const auto& q : worklist) mark(q.txns);
    mark(residuals);
    if (!error.empty()) return error;
    for (size_t t = 0; t < batch_size; ++t)
      if (!seen[t]) return "plan omits transaction " + std::to_string(t);
    return {};
  }
};

// A front-end as the bundle executor sees it: one call per batch, on the
// executor's coordinating thread (the call is the analysis phase and is timed
// as such). A virtual call per batch, never per row access.
class BundleFrontend {
 public:
  virtual ~BundleFrontend() = default;
  // Fills `plan` (cleared by the caller, per_thread sized to the workers) for
  // `batch`, whose ids are 0..size-1 and whose key sets are sorted.
  virtual void plan(std::span<const TxnDesc> batch, BundlePlan& plan) = 0;
  // The front-end's parameters, as members of the result's "frontend" object.
  virtual void params_json(JsonWriter&) const {}
};

}  // namespace ccb
