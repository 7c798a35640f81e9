// BundlePlan: what a front-end hands the bundle executor for one batch
// (README.md, "Executors" (b)), and BundleFrontend, the interface of a
// front-end as the executor sees it.
//
// A plan has two phases, separated by a barrier:
//   1. Queues. Worker t first runs per_thread[t] in order, then pops queues
//      from the shared worklist until it is empty. A queue runs in order, on
//      one worker, start to end. Each queue is marked:
//        kWithCC      its transactions run under the binary's protocol (they
//                     may conflict with transactions of other queues);
//        kWithoutCC   they run with no concurrency control (NoCC's operations,
//                     engine/cc/nocc/nocc.h). The front-end guarantees that no
//                     transaction of such a queue conflicts with any
//                     transaction of another queue of the same phase.
//   2. Residuals, after every queue has finished: any worker takes the next
//      residual (one at a time) and runs it under the binary's protocol; with
//      residuals_round_robin, worker t runs residuals t, t + n, t + 2n, ...
//      (n workers) in order instead (TSKD §3's default assignment).
// TsDEFER (engine/exec/tsdefer.h; only when the front-end's tsdefer() gives
// options): with tsdefer_queues each worker's per_thread queue (at most one)
// is its TsDEFER queue, with tsdefer_residuals its round-robin share of the
// residuals is; TsDEFER then picks the order (TSKD §5).
// The next batch starts after phase 2 (no overlap between batches, as in
// Strife §2). Who uses what:
//   Strife (§2)                  worklist of kWithoutCC queues (CF clusters) + residuals
//   TSKD (TsPAR, TsDEFER)        per_thread kWithCC queues + residuals
//   STRIFE (strife-static)       per_thread kWithoutCC queues (one partition per thread) + residuals
//   SCHISM / HORTICULTURE        per_thread kWithCC queues (one partition per thread), no residuals
//                                (partitioners/partitioner_frontend.h)
// Transactions are indices into the batch. Every index of the batch appears
// exactly once in the plan (validate() checks this; the executor calls it
// under --verify only, bundle_coordinator.h).
//
// Thread safety: a plan is built by the front-end on one thread, published to
// the workers by the executor's phase barrier, and then only read.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/phase_team.h"
#include "engine/core/txn_desc.h"
#include "engine/tsdefer_options.h"

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
  bool residuals_round_robin = false;                // phase 2: worker t runs residuals[t + j·n]
  bool tsdefer_queues = false;                       // phase 1 per_thread queues through TsDEFER
  bool tsdefer_residuals = false;                    // phase 2 (round-robin) through TsDEFER
  // The front-end's estimate of each worker's per_thread queue time, in its
  // cost model's units (TSKD: TSgen's load); empty: it has none. The executor
  // compares them with the measured times (engine/stats/estimate_fit.h).
  std::vector<double> queue_estimates;

  // What the front-end reports about this batch, summed (counters) and
  // averaged (both) by the executor over the measured batches: the analysis
  // steps' wall time in microseconds (Strife: prepare, spot, fuse, merge,
  // allocate) and counters (Strife: special clusters, CF clusters, ...).
  std::vector<std::pair<std::string, double>> step_us;
  std::vector<std::pair<std::string, double>> counters;
  // The time plan() spent in its input partitioner (TSKD §4: the
  // partitioner's plan is TSKD's input), on the executor's clock (now_ns:
  // virtual under sim); 0: the front-end has none (Strife's own, whose
  // clustering is its analysis). With FrontendSpec::PartitionTime::kOutside
  // the executor keeps it out of the measured interval
  // (engine/exec/bundle_coordinator.h).
  uint64_t input_partition_ns = 0;
  // Whether the plan is the input partition as it is, with no analysis of
  // the front-end's own (the partitioner baselines): then, with kOutside,
  // the sim's analysis model charges nothing for it (bundle_coordinator.h).
  bool input_as_is = false;
  // The time plan() spent, beyond its input partitioner, on a schedule that
  // the TSKD paper counts as an input too (TSKD §6.1: "each thread local
  // buffer receives the transaction queue generated by the partitioner and
  // TSKD"): TSKD's residual extraction, cost estimates and TSgen
  // (partitioners/tspar), on now_ns's clock; with `input_schedule` set, the
  // executor keeps it, and TsDEFER's lane set-up the plan asks for, out of
  // the measured interval under FrontendSpec::PartitionTime::kOutside, and
  // under sim charges the plan no analysis model (bundle_coordinator.h).
  bool input_schedule = false;
  uint64_t schedule_ns = 0;
  // Of schedule_ns, TSgen's (Algorithm 1; 0: no TSgen, e.g. TsDEFER[x]).
  uint64_t tsgen_ns = 0;
  // TSKD §6.2's overheadR, "the ratio of the runtime of TsGen to the
  // partitioning time of the partitioners", from TSgen's and the input
  // partitioner's times on the host's steady clock: natively the executor's
  // clock; under sim the partitioners charge no virtual time (their
  // partition_ns is 0 there), so the ratio is of the host's times of the
  // same code.
  uint64_t tsgen_host_ns = 0, input_partition_host_ns = 0;

  // Appends a queue to the worklist whose buffer is one that clear() kept
  // from an earlier batch (issue 44 item 3: Strife's plan has up to one
  // queue per transaction; allocating each anew cost 0.3 ms per batch of
  // 10K single-transaction clusters, serially on worker 0).
  BundleQueue& add_to_worklist(BundleQueue::Mode mode) {
    if (spare_queues_.empty()) {
      worklist.emplace_back();
    } else {
      worklist.push_back(std::move(spare_queues_.back()));
      spare_queues_.pop_back();
    }
    worklist.back().mode = mode;
    return worklist.back();
  }

  void clear() {
    for (auto& q : per_thread) q.clear();
    // Kept: at most as many buffers as the largest worklist so far (a
    // front-end that resizes the worklist itself takes none of them).
    spare_limit_ = std::max(spare_limit_, worklist.size());
    for (BundleQueue& q : worklist) {
      if (spare_queues_.size() >= spare_limit_) break;
      q.txns.clear();
      spare_queues_.push_back(std::move(q));
    }
    worklist.clear();
    residuals.clear();
    residuals_round_robin = tsdefer_queues = tsdefer_residuals = false;
    queue_estimates.clear();
    input_partition_ns = 0;
    input_as_is = false;
    input_schedule = false;
    schedule_ns = tsgen_ns = tsgen_host_ns = input_partition_host_ns = 0;
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
    if (queue_estimates.size() > static_cast<size_t>(threads))
      return "plan has queue estimates for " + std::to_string(queue_estimates.size()) + " threads, the executor has " +
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
    if (tsdefer_residuals && !residuals_round_robin) return "TsDEFER on residuals needs residuals_round_robin";
    if (tsdefer_queues)
      for (const auto& qs : per_thread)
        if (qs.size() > 1) return "TsDEFER on queues allows one queue per thread";
    return {};
  }

 private:
  std::vector<BundleQueue> spare_queues_;  // cleared worklist queues, their buffers kept (add_to_worklist)
  size_t spare_limit_ = 0;
};

// A front-end as the bundle executor sees it: one call per batch, on the
// executor's worker 0, which coordinates (the call is the analysis phase and
// is timed as such). A virtual call per batch, never per row access.
class BundleFrontend {
 public:
  virtual ~BundleFrontend() = default;
  // Fills `plan` (cleared by the caller, per_thread sized to the workers) for
  // `batch`, whose ids are 0..size-1 and whose key sets are sorted.
  virtual void plan(std::span<const TxnDesc> batch, BundlePlan& plan) = 0;
  // The front-end's parameters, as members of the result's "frontend" object.
  virtual void params_json(JsonWriter&) const {}
  // TsDEFER's knobs when the plans may ask for it (tsdefer_queues /
  // tsdefer_residuals); nullptr: never (no TsDEFER state is built).
  virtual const TsDeferOptions* tsdefer() const { return nullptr; }
  // Whether the front-end wants the serial execution time of the warm-up's
  // committed transactions (TSKD's cost history): then, after each warm-up
  // batch, observe_costs(batch, ns) with ns[i] the duration of transaction
  // i's committing attempt (0: it did not commit).
  virtual bool wants_costs() const { return false; }
  virtual void observe_costs(std::span<const TxnDesc>, std::span<const uint64_t>) {}
  // The executor's workers as the analysis's team (engine/core/phase_team.h),
  // given once before the run; worker 0 calls plan() and leads the team's
  // loops, the others serve them (Strife §4: the analysis runs on the cores
  // that execute). A front-end whose parts run loops of their own on the
  // team (Strife's clusterer, an input partitioner) overrides this to hand
  // the team on, calling this one too.
  virtual void use_team(PhaseTeam& team) { team_ = &team; }
  // Runs body(begin, end) over chunks of [0, n) that together cover it once,
  // on the executor's workers (the team of use_team()), else on the calling
  // thread; returns when every chunk is done. The executor's OLLP
  // reconnaissance and the sim's analysis charge run here, as part of the
  // analysis; a front-end runs its own parallel steps here too.
  void for_chunks(size_t n, const std::function<void(size_t begin, size_t end)>& body) {
    if (team_ == nullptr) return body(0, n);
    team_->for_chunks(n, [&](size_t, size_t begin, size_t end) { body(begin, end); });
  }

 private:
  PhaseTeam* team_ = nullptr;
};

}  // namespace ccb
