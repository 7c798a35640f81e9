// A worker of the bundle executor (bundle_executor.h, the overview): per
// batch, the analysis (worker 0 leads it as the coordinator,
// bundle_coordinator.h; the others serve its parallel loops, PhaseTeam in
// engine/core/phase_team.h, until it releases them), the queue phase (its own per-thread queues first, then the shared
// worklist, popped one queue at a time with an atomic ticket), a barrier,
// the residual phase (its round-robin share, TsDEFER's lane or residuals
// taken one at a time with a ticket, under the protocol), and a barrier.
// kWithoutCC queues run with Txn::set_cc_free (NoCC's operations), kWithCC
// ones under the binary's protocol. With TsDEFER (a plan's tsdefer_queues
// or tsdefer_residuals) the worker asks TsDEFER for its next transaction
// instead of walking its list (TSKD §5).
//
// Conflict aborts are retried until the transaction commits: after the
// online executor's backoff, or, with --abort_policy=buffer (DBx1000's abort
// buffer, abort_buffer.h), parked for a penalty while the worker goes on
// with the next transaction of the same queue, lane or residual share;
// a parked one runs again once its penalty is over, before a new one, and
// every parked one before its queue or phase ends (a queue's mode and the
// checker's queue tags stay its own). Logical aborts (RC::kUser,
// RC::kNotFound) end it. A wrong OLLP prediction (RC::kPredictionMismatch, HasReconnaissance in
// bundle_coordinator.h) ends it too, and the coordinator moves it to the next
// batch. An attempt and the counting of its outcome are the online
// executor's (engine/exec/attempt.h). Read-only requests run as ordinary
// transactions (txn.read_only() is false): the CC-free phase writes rows
// without a protocol's version bookkeeping, which snapshot reads (Silo, BCC)
// rely on.
//
// --profile (engine/stats/exec_profile.h): the loop is instantiated with
// Txn<CC, true> and AttemptProfiler<true>, which time every attempt; without
// it with Txn<CC> and AttemptProfiler<false>, which read no clock.
//
// Thread safety: a worker's members are its own thread's while a batch runs;
// the coordinator (worker 0) reads them (deferred requests, counters, queue
// times, waits) between batches, after the residual phase's barrier, while
// the worker serves the analysis (which touches no Worker).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/txn/protocol.h"
#include "engine/txn/txn.h"
#include "engine/config.h"
#include "engine/core/clock.h"
#include "engine/core/random.h"
#include "engine/exec/abort_buffer.h"
#include "engine/exec/attempt.h"
#include "engine/exec/bundle_plan.h"
#include "engine/exec/bundle_round.h"
#include "engine/exec/runtime.h"
#include "engine/exec/tsdefer.h"
#include "engine/stats/exec_profile.h"
#include "engine/stats/thread_stats.h"
#include "engine/verify/cf_check.h"
#include "engine/verify/recorder.h"

namespace ccb {

template <class CC, class W>
struct BundleWorker {
  BundleWorker(CC& cc, int tid, const EngineConfig& cfg, size_t types, verify::HistoryLog* log)
      : txn(cc, tid, log), rng(seed_for(cfg.seed, tid)), stats(types), tid(tid) {
    txn.set_prefetch(cfg.prefetch);
    if (cfg.abort_buffer()) parked.emplace(cfg.abort_buffer_size);
  }
  // A transaction of the batch in the abort buffer: the next attempt's retry count.
  struct Parked {
    uint32_t i = 0;
    uint32_t retries = 0;
  };
  Txn<CC> txn;
  std::unique_ptr<Txn<CC, true>> profiled_txn;  // run<true>() (--profile): the one loop<true> runs
  Random rng;
  ThreadStats stats;
  std::vector<verify::QueueTag> tags;
  std::vector<uint32_t> deferred;  // this batch's prediction mismatches (OLLP)
  std::optional<AbortBuffer<Parked>> parked;  // --abort_policy=buffer; empty between queues and phases
  // Measured commits and conflict aborts (retries) per phase.
  uint64_t queue_commits = 0, queue_retries = 0, residual_commits = 0, residual_retries = 0;
  // Measured time waiting at the barrier that ends each phase (the worker had nothing left to run).
  uint64_t queue_wait_ns = 0, residual_wait_ns = 0;
  uint64_t own_queues_ns = 0;  // this batch: the time its own (per_thread) queues took
  int tid;
};

// The workers' loop over the batches a BundleRound hands them.
template <class CC, class W>
class BundleWorkerLoop {
 public:
  using Worker = BundleWorker<CC, W>;

  // REQUIRES: every argument outlives the loops run().
  BundleWorkerLoop(const EngineConfig& cfg, CC& cc, W& workload, BundleRound<W>& round, Runtime<CC>& runtime)
      : cfg_(cfg), cc_(cc), w_(workload), round_(round), runtime_(runtime) {}

  // Worker wk's batches, until the coordinator stops the run. Between
  // batches worker 0 calls lead() (the coordinator's step: the previous
  // batch's bookkeeping, the next one's analysis, then the team's release),
  // and the others serve the team until that release.
  template <bool kProfile, class Lead>
  void run(Worker& wk, typename W::ThreadState& ws, Lead&& lead) {
    auto& txn = txn_of<kProfile>(wk);
    AttemptProfiler<kProfile> profiler(wk.stats.profile);
    profiler.attach(txn);
    if constexpr (HasAcquireAll<CC> && HasTableById<W, CC>) register_tables<CC>(w_, txn);
    const BundlePlan& plan = round_.plan;
    bool measured_before = false;
    for (;;) {
      if (wk.tid == 0) lead();
      else round_.team.serve(wk.tid);
      if (round_.stop) return;
      if (round_.measuring && !measured_before) {
        measured_before = true;
        if constexpr (HasProtocolStats<CC>) cc_.reset_stats(wk.tid);
        if constexpr (kProfile) wk.stats.profile = {};
        if (round_.tsdefer_q) round_.tsdefer_q->stats(wk.tid) = round_.tsdefer_r->stats(wk.tid) = {};
        runtime_.measuring(wk.tid);
      }
      uint64_t commits = wk.stats.commits, aborts = wk.stats.aborts;
      // Queue phase: this worker's own queues, then the shared worklist.
      const auto& own = plan.per_thread[wk.tid];
      const uint64_t own_start = now_ns();
      for (size_t j = 0; j < own.size(); ++j) {
        const uint64_t queue_id = (uint64_t{1} << 63) | (uint64_t(wk.tid) << 32) | j;
        if (plan.tsdefer_queues)
          run_deferred(wk, ws, profiler, *round_.tsdefer_q, round_.lanes_q[wk.tid], own[j].mode, queue_id);
        else run_queue(wk, ws, profiler, own[j], queue_id);
      }
      wk.own_queues_ns = now_ns() - own_start;
      for (size_t q; (q = round_.worklist_next.fetch_add(1, std::memory_order_relaxed)) < plan.worklist.size();)
        run_queue(wk, ws, profiler, plan.worklist[q], q);
      wk.queue_commits += wk.stats.commits - commits;
      wk.queue_retries += wk.stats.aborts - aborts;
      commits = wk.stats.commits, aborts = wk.stats.aborts;
      wait_at_barrier(wk.queue_wait_ns, 0);
      // Residual phase, under the protocol.
      txn.set_cc_free(false);
      if (plan.tsdefer_residuals) {
        run_deferred(wk, ws, profiler, *round_.tsdefer_r, round_.lanes_r[wk.tid], BundleQueue::Mode::kWithCC,
                     std::nullopt);
      } else if (plan.residuals_round_robin) {
        size_t r = wk.tid;
        run_all(wk, ws, profiler, [&]() -> std::optional<uint32_t> {
          if (r >= plan.residuals.size()) return std::nullopt;
          const uint32_t i = plan.residuals[r];
          r += cfg_.threads;
          return i;
        });
      } else {
        run_all(wk, ws, profiler, [&]() -> std::optional<uint32_t> {
          const size_t r = round_.residual_next.fetch_add(1, std::memory_order_relaxed);
          if (r >= plan.residuals.size()) return std::nullopt;
          return plan.residuals[r];
        });
      }
      wk.residual_commits += wk.stats.commits - commits;
      wk.residual_retries += wk.stats.aborts - aborts;
      wait_at_barrier(wk.residual_wait_ns, 1);
    }
  }

 private:
  // The phase's closing barrier (phase 0: queues, 1: residuals); a measured
  // batch adds to `wait_ns` the worker's idle time in the phase: from its
  // arrival to the phase's end (the last arrival's stamp, not the moment
  // this worker sees it: a descheduled worker is late, not idle in the phase).
  // `measuring` is read before the arrival: once the last worker arrives at
  // the residuals' barrier, worker 0 goes on to the next batch and may set it.
  void wait_at_barrier(uint64_t& wait_ns, int phase) {
    const bool measuring = round_.measuring;
    const uint64_t arrival = now_ns();
    round_.barrier.arrive_and_wait();
    const uint64_t end = round_.phase_end_ns[phase];  // written before the release; the next one after this read
    if (measuring && end > arrival) wait_ns += end - arrival;
  }

  // The worker's transaction of the loop compiled with(out) --profile.
  template <bool kProfile>
  static auto& txn_of(Worker& wk) {
    if constexpr (kProfile) return *wk.profiled_txn;
    else return wk.txn;
  }

  template <bool kProfile>
  void run_queue(Worker& wk, typename W::ThreadState& ws, AttemptProfiler<kProfile>& profiler, const BundleQueue& q,
                 uint64_t queue_id) {
    const bool cc_free = q.mode == BundleQueue::Mode::kWithoutCC;
    auto& txn = txn_of<kProfile>(wk);
    txn.set_cc_free(cc_free);
    size_t next = 0;
    run_all(
        wk, ws, profiler,
        [&]() -> std::optional<uint32_t> {
          if (next == q.txns.size()) return std::nullopt;
          return q.txns[next++];
        },
        [](uint32_t) {},
        [&] {
          if (txn.log_enabled()) wk.tags.push_back(verify::QueueTag{txn.id(), round_.seq, queue_id, cc_free});
        });
  }

  // Runs the lane's transactions in the order TsDEFER picks (TSKD §5): an
  // aborted one is retried at once (inside execute), or parked, then regPos.
  template <bool kProfile>
  void run_deferred(Worker& wk, typename W::ThreadState& ws, AttemptProfiler<kProfile>& profiler, TsDefer& td,
                    const std::vector<uint32_t>& lane, BundleQueue::Mode mode, std::optional<uint64_t> queue_id) {
    const bool cc_free = mode == BundleQueue::Mode::kWithoutCC;
    auto& txn = txn_of<kProfile>(wk);
    txn.set_cc_free(cc_free);
    run_all(
        wk, ws, profiler,
        [&]() -> std::optional<uint32_t> {
          const std::optional<uint32_t> id = td.next(wk.tid, wk.rng);
          if (!id) return std::nullopt;
          return lane[*id];
        },
        [&](uint32_t) { td.reg_pos(wk.tid); },
        [&] {
          if (queue_id && txn.log_enabled())
            wk.tags.push_back(verify::QueueTag{txn.id(), round_.seq, *queue_id, cc_free});
        });
  }

  // Runs the transactions `next` yields (std::nullopt: no more) under the
  // run's abort policy, until each one committed or ended: `tried(i)` after
  // a new transaction's first run (it committed, ended or was parked),
  // `committed()` right after any commit (the worker's txn still holds it).
  // With an abort buffer, a parked transaction whose penalty is over runs
  // before a new one; with every slot taken the worker idles until the
  // first is ready; and the buffer is empty when this returns.
  template <bool kProfile, class Next, class Tried = void (*)(uint32_t), class Committed = void (*)()>
  void run_all(Worker& wk, typename W::ThreadState& ws, AttemptProfiler<kProfile>& profiler, Next&& next,
               Tried&& tried = [](uint32_t) {}, Committed&& committed = [] {}) {
    AbortBuffer<typename Worker::Parked>* parked = wk.parked ? &*wk.parked : nullptr;
    bool more = true;
    while (more || (parked != nullptr && !parked->empty())) {
      if (parked != nullptr && !parked->empty()) {
        if (const auto ready = parked->take_ready(now_ns())) {
          if (execute(wk, ws, profiler, ready->i, ready->retries) == Ran::kCommitted) committed();
          continue;
        }
        if (parked->full() || !more) {  // every slot waits, or nothing new is left: idle until the first is ready
          profiler.backoff([&] { idle_until_ns(cfg_, parked->earliest_ready_ns()); });
          continue;
        }
      }
      const std::optional<uint32_t> i = next();
      if (!i) {
        more = false;
        continue;
      }
      const Ran ran = execute(wk, ws, profiler, *i, 0);
      tried(*i);
      if (ran == Ran::kCommitted) committed();
    }
  }

  enum class Ran { kCommitted, kEnded, kParked };

  // Runs transaction i of the batch, from its attempt number `retries`,
  // until it commits, aborts logically (kEnded), or, with an abort buffer,
  // a conflict abort parks it for a penalty uniform in [0,
  // --abort_penalty_us] (kParked; run_all() takes a slot out before it runs
  // a transaction, so one is free).
  template <bool kProfile>
  Ran execute(Worker& wk, typename W::ThreadState& ws, AttemptProfiler<kProfile>& profiler, uint32_t i,
              uint32_t retries) {
    const auto& req = round_.batch->requests[i];
    auto& txn = txn_of<kProfile>(wk);
    ThreadStats& st = wk.stats;
    // A transaction's latency runs from its batch's start (bundle_executor.h).
    const AttemptClock clock{round_.measuring, round_.start_ns, round_.measure_start_ns, cfg_.timeline};
    for (;; ++retries) {
      const uint64_t attempt_start = round_.record_costs ? now_ns() : 0;
      // A CC-free queue locks nothing up front (engine/exec/attempt.h).
      const TxnDesc* predicted = HasAcquireAll<CC> && !txn.cc_free() ? &round_.batch->descs[i] : nullptr;
      const RC rc = run_attempt(cc_, w_, txn, profiler, req, retries, false, predicted);
      if (rc == RC::kOk && round_.record_costs) round_.exec_ns[i] = now_ns() - attempt_start;  // this worker's slot
      const Attempted outcome = finish_attempt(w_, ws, st, req, rc, clock);
      if (outcome == Attempted::kCommitted) return Ran::kCommitted;
      if (outcome == Attempted::kRolledBack) return Ran::kEnded;  // rolled back by design: not retried
      if (rc == RC::kPredictionMismatch) {  // OLLP: to the next batch's analysis (§5.6.4)
        wk.deferred.push_back(i);
        return Ran::kEnded;
      }
      if (wk.parked) {
        wk.parked->park_for_penalty({i, retries + 1}, now_ns(), wk.rng, cfg_.abort_penalty_us);
        return Ran::kParked;
      }
      profiler.backoff([&] { backoff_after_abort<CC>(cfg_, wk.rng, retries); });
    }
  }

  const EngineConfig& cfg_;
  CC& cc_;
  W& w_;
  BundleRound<W>& round_;
  Runtime<CC>& runtime_;
};

}  // namespace ccb
