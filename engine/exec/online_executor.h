// The online executor: N worker threads, each replaying its own buffer of
// pre-generated requests under protocol CC, retrying aborted attempts until
// they commit: after an optional randomized exponential backoff
// (--abort_policy=backoff), or, with DBx1000's abort buffer
// (--abort_policy=buffer, engine/exec/abort_buffer.h), parked for a penalty
// while the worker runs new requests.
//
// Timeline of a run: load -> generate buffers -> warm-up (--warmup seconds)
// -> measured interval (--duration seconds, or until --measure_txns commits)
// -> stop. Statistics count the measured interval only; workload counters for
// invariants (ThreadState) and the recorded history cover the whole run.
//
// Optional protocol hooks (engine/txn/protocol.h) are used where present: the
// epoch ticker, the thread limit, the lock service (Dora, Orthrus: lock
// servers among --threads, opened before and closed after the workers),
// acquire_all() with the predicted access set of each buffered request
// (described when the buffer is generated, key sets sorted; again when the
// workload's description epoch changes, below), and per-thread protocol
// statistics reset at the start of the measured interval. Optional workload
// members: `Table<CC>* table_by_id(uint32_t)` (required by protocols with
// acquire_all()), `bool read_only(const Request&) const` (passed to each
// attempt as txn.read_only()), and, for workloads whose requests change with
// time (HOT's moving hot set, workloads/hot/hot.h): `void on_measure_start(
// uint64_t now_ns)`, called once as the measured interval starts, before any
// measured transaction (by both executors; it starts the workload's clock),
// and `uint64_t description_epoch() const`: describe() of one request may
// differ between epochs, so the predicted sets are described again, before
// an attempt's acquire_all(), once the epoch has changed (else they would go
// stale for the rest of the run). An attempt whose epoch changes between its
// prediction and its procedure touches a row the prediction missed, which
// every acquire_all() protocol locks at access (LockSorted and PreNoWait by
// NoWait's rule, PartCC its partition, Dora and Orthrus a NoWait row lock).
// The predicted sets of --frontend=reorder and TsDEFER are not described
// again: they only order transactions.
//
// The front-end comes resolved (engine/exec/frontend_spec.h, OnlineOrder)
// and is the worker's request source (engine/exec/request_sources.h): its
// own buffer in order, cycling; with TsDEFER (--frontend=tsdefer, TSKD[CC])
// its buffer as its TsDEFER queue (engine/exec/tsdefer.h), replayed in a
// cycle: TsDEFER picks the next request and regPos follows each commit; with
// thread-aware reordering (--frontend=reorder, Ding et al. §5.5; the spec
// carries the program's policy) batches of 4 x threads requests taken from
// all buffers, 4 per worker as the thread-aware policy assigns them, every
// batch planned before the warm-up and no barrier between batches
// (engine/exec/thread_reorder.h). The abort buffer wraps the source. The
// worker loop is a template over the source, so DbCC pays nothing for
// TsDEFER, reordering or the abort buffer.
// With --profile the worker loop is instantiated with Txn<CC, true> and
// AttemptProfiler<true> (engine/stats/exec_profile.h), which time every
// attempt; without it with Txn<CC> and AttemptProfiler<false>, which read no
// clock (a template parameter, like the source).
//
// An attempt and the counting of its outcome are engine/exec/attempt.h's;
// the run's threads (the workers, the lock service's lent threads, the
// epoch ticker, pinning) and each worker's contended latch acquisitions in
// the measured interval (engine/core/latch_contention.h) are
// engine/exec/runtime.h's; both shared with the bundle executor.
//
// Under sim (engine/sim/sim.h) the workers are virtual cores and the epoch
// ticker and the controller (the part of run() that times the phases) are
// fibers beside them (runtime.h); their sleeps, waits and the backoff after
// an abort follow virtual time, so --warmup and --duration are virtual
// seconds.
//
// Thread safety: run() is called once, from the main thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/txn/attempt_outcome.h"
#include "engine/txn/protocol.h"
#include "engine/txn/txn.h"
#include "engine/config.h"
#include "engine/core/clock.h"
#include "engine/core/random.h"
#include "engine/exec/attempt.h"
#include "engine/exec/frontend_spec.h"
#include "engine/exec/request_sources.h"
#include "engine/exec/runtime.h"
#include "engine/exec/thread_reorder.h"
#include "engine/exec/tsdefer.h"
#include "engine/sim/sim.h"
#include "engine/stats/attempt_latency.h"
#include "engine/stats/exec_profile.h"
#include "engine/stats/thread_stats.h"
#include "engine/verify/recorder.h"
#include "engine/workload.h"

namespace ccb {

template <class CC, class W>
  requires Protocol<CC> && Workload<W, CC>
class OnlineExecutor {
 public:
  // frontend: how a worker picks its next request (engine/exec/frontend_spec.h;
  // the default: its buffer in order). REQUIRES: frontend.executor is kOnline,
  // and frontend.thread_assign is non-null with kThreadReorder.
  OnlineExecutor(const EngineConfig& cfg, CC& cc, W& workload, FrontendSpec frontend = {})
      : cfg_(cfg), cc_(cc), w_(workload), runtime_(cfg, cc), frontend_(std::move(frontend)) {}

  // kProfile: --profile (cfg.profile must match). A compile-time parameter
  // chosen at the top (run_online), so a binary's unprofiled translation units
  // instantiate no profiled code at all, and their inlining stays as it was.
  template <bool kProfile = false>
  RunOutcome<W> run() {
    check_executor_support<CC, W>(cfg_);
    check_profile_matches<kProfile>(cfg_);
    const int n = runtime_.workers();
    attempt_type_ = attempt_latency_type_index(cfg_.attempt_latency_type, w_.txn_types(), W::kName);
    RunOutcome<W> out;
    out.workload_states.resize(n);
    if (cfg_.verify) out.history_logs.resize(n);
    out.worker_cpus = runtime_.worker_cpus();
    std::vector<ThreadStats> stats(n, ThreadStats(w_.txn_types().size()));

    if (frontend_.online_order == FrontendSpec::OnlineOrder::kTsDefer)
      tsdefer_ = std::make_unique<TsDefer>(cfg_.tsdefer, n);
    if (frontend_.online_order == FrontendSpec::OnlineOrder::kThreadReorder) {
      if (frontend_.thread_assign == nullptr)
        throw std::logic_error("FrontendSpec: OnlineOrder::kThreadReorder without a thread_assign policy");
      reorder_ = std::make_unique<ThreadReorder>(n, cfg_.txn_buffer, frontend_.thread_assign);
      // Every distinct batch is planned before the warm-up (thread_reorder.h): bound the plans' memory.
      constexpr uint64_t kMaxPlannedSlots = uint64_t{1} << 26;  // 512 MiB of slots
      if (reorder_->period() * ThreadReorder::kPerThread * n > kMaxPlannedSlots)
        throw ConfigError("txn_buffer", "with --frontend=reorder every distinct batch is planned ahead: " +
                                            std::to_string(reorder_->period()) + " batches of " +
                                            std::to_string(ThreadReorder::kPerThread * n) +
                                            " exceed the bound; allowed: a multiple of 4 or fewer threads");
      if (cfg_.abort_buffer())  // rundb/frontends.cpp refuses the pair: a batch part is not a buffer
        throw std::logic_error("--abort_policy=buffer with reorder's batches");
      shared_buffers_.resize(n);
    }
    uint64_t end = 0;
    runtime_.run(
        [&](int i) {
          run_worker<kProfile>(i, stats[i], out.workload_states[i], cfg_.verify ? &out.history_logs[i] : nullptr);
        },
        [&] { end = control(out, n); });

    out.measured_s = (end - measure_start_ns_.load()) * 1e-9;
    for (auto& s : stats) out.stats.merge(s);
    out.contended_latch_acquisitions = runtime_.contended_latch_acquisitions();
    if (tsdefer_) out.tsdefer = tsdefer_->total_stats();
    if (reorder_) out.reorder = reorder_->stats();
    return out;
  }

 private:
  enum Phase : int { kLoad, kWarmup, kMeasure, kDone };

  // The controller: starts the warm-up once every worker is ready, then the
  // measured interval, then stops the workers. Returns the interval's end.
  uint64_t control(RunOutcome<W>& out, int n) {
    // Workers generate their buffers, then wait for the start signal.
    while (ready_.load(std::memory_order_acquire) < n) sim::sleep_for(std::chrono::milliseconds(1));
    if (reorder_) reorder_->plan_all();  // the workers' predicted sets are complete; timed apart
    const uint64_t t0 = now_ns();
    phase_.store(kWarmup, std::memory_order_release);
    sleep_seconds(cfg_.warmup_s);
    measure_start_ns_.store(now_ns(), std::memory_order_release);
    sim::measured_interval(true);  // the simulation's time breakdown covers the measured interval
    if constexpr (HasMeasureClock<W>) w_.on_measure_start(measure_start_ns_.load(std::memory_order_relaxed));
    phase_.store(kMeasure, std::memory_order_release);
    out.warmup_s = (measure_start_ns_.load() - t0) * 1e-9;
    uint64_t end;
    if (cfg_.measure_txns > 0) {
      while (finished_.load(std::memory_order_acquire) < n) sim::sleep_for(std::chrono::microseconds(200));
      end = last_finish_ns_.load(std::memory_order_acquire);
    } else {
      sleep_seconds(cfg_.duration_s);
      end = now_ns();
    }
    sim::measured_interval(false);
    phase_.store(kDone, std::memory_order_release);
    runtime_.stop_ticking();
    return end;
  }

  static void sleep_seconds(double s) {
    sim::sleep_for(std::chrono::nanoseconds(static_cast<int64_t>(s * 1e9)));
  }

  // Whether an attempt locks its request's predicted access set first
  // (acquire_all(); the workload exposes its tables).
  static constexpr bool kLocksPredicted = HasAcquireAll<CC> && HasTableById<W, CC>;

  // Worker tid: its request source for the run's front-end (request_sources.h),
  // wrapped in the abort buffer with --abort_policy=buffer, then its loop.
  template <bool kProfile>
  void run_worker(int tid, ThreadStats& st, typename W::ThreadState& ws, verify::HistoryLog* log) {
    Random rng(seed_for(cfg_.seed, tid));
    auto work = [&]<class Source>(Source& source) {
      Worker<kProfile, Source>(*this, tid, rng, source, st, ws, log).run();
    };
    auto with_abort_policy = [&]<class Source>(Source& source) {
      if (!cfg_.abort_buffer()) return work(source);
      AbortBufferSource<W, Source> parked(source, cfg_, rng);
      work(parked);
    };
    switch (frontend_.online_order) {
      case FrontendSpec::OnlineOrder::kThreadReorder: {
        ReorderSource<W> source(w_, tid, rng, cfg_.txn_buffer, *reorder_, shared_buffers_);
        return work(source);
      }
      case FrontendSpec::OnlineOrder::kTsDefer: {
        TsDeferSource<W, kLocksPredicted> source(w_, tid, rng, cfg_, *tsdefer_);
        return with_abort_policy(source);
      }
      case FrontendSpec::OnlineOrder::kBuffer: {
        BufferSource<W, kLocksPredicted> source(w_, tid, rng, cfg_.txn_buffer);
        return with_abort_policy(source);
      }
    }
  }

  // A worker: its transaction set up, the start awaited, then one request
  // of its source after another until the run ends.
  template <bool kProfile, class Source>
    requires RequestSource<Source, W>
  class Worker {
   public:
    Worker(OnlineExecutor& exec, int tid, Random& rng, Source& source, ThreadStats& st, typename W::ThreadState& ws,
           verify::HistoryLog* log)
        : exec_(exec), tid_(tid), rng_(rng), source_(source), st_(st), ws_(ws), txn_(exec.cc_, tid, log),
          profiler_(st.profile), quota_(exec.quota_of(tid)) {
      txn_.set_prefetch(exec_.cfg_.prefetch);
      profiler_.attach(txn_);
      if constexpr (kLocksPredicted) register_tables<CC>(exec_.w_, txn_);
    }

    void run() {
      exec_.wait_for_start();
      for (;;) {
        const int phase = exec_.phase_.load(std::memory_order_acquire);
        if (phase == kDone) break;
        if (phase == kMeasure && !measuring_) start_measuring();
        const Ticket<W> ticket = source_.next(measuring_);
        if (ticket.req == nullptr) {  // every request the source holds waits: idle until the first is ready
          profiler_.backoff([&] { idle_until_ns(exec_.cfg_, source_.ready_ns()); });
          continue;
        }
        if (!run_request(ticket)) break;  // the run ended between its attempts
        if (measuring_ && quota_ > 0 && st_.commits == quota_) {
          exec_.finish_quota();
          // Keep running so the others see the same contention until all finish.
        }
      }
      source_.finish();
    }

   private:
    // The worker's first step into the measured interval: its counters start
    // from zero.
    void start_measuring() {
      measuring_ = true;
      measure_start_ = exec_.measure_start_ns_.load(std::memory_order_acquire);
      if (quota_ == 0 && exec_.cfg_.measure_txns > 0) exec_.finish_quota();
      if constexpr (HasProtocolStats<CC>) exec_.cc_.reset_stats(tid_);
      source_.start_measuring();
      if constexpr (kProfile) st_.profile = {};
      exec_.runtime_.measuring(tid_);
    }

    // Runs a request until it commits or rolls back by design (or, with
    // --retry_aborted=false, until its first conflict abort drops it),
    // retrying after a backoff unless the source takes it back (the abort
    // buffer parks it); returns false if the run ended between its attempts.
    bool run_request(const Ticket<W>& t) {
      const auto& req = *t.req;
      bool read_only = false;
      if constexpr (HasReadOnlyRequests<W>) read_only = exec_.w_.read_only(req);
      const uint64_t start = t.resumed() ? t.start_ns : now_ns();  // the latency counts from the first try
      const bool time_attempts = measuring_ && req.type == exec_.attempt_type_;  // --attempt_latency_type
      const AttemptClock clock{measuring_, start, measure_start_, exec_.cfg_.timeline};
      for (uint32_t retries = t.retries;; ++retries) {
        source_.refresh();
        const uint64_t attempt_start = time_attempts ? now_ns() : 0;
        const RC rc =
            run_attempt(exec_.cc_, exec_.w_, txn_, profiler_, req, retries, read_only, t.predicted);  // attempt.h
        if (time_attempts && rc != RC::kUser && rc != RC::kNotFound)
          st_.attempts.record(classify_attempt(exec_.cc_, txn_, rc), now_ns() - attempt_start);
        if (finish_attempt(exec_.w_, ws_, st_, req, rc, clock) != Attempted::kConflict) {
          source_.passed(t);  // committed, or rolled back by design: not retried
          return true;
        }
        if (exec_.phase_.load(std::memory_order_relaxed) == kDone) return false;
        if (!exec_.cfg_.retry_aborted) {  // --retry_aborted=false: dropped, as Silo's benchmark does
          source_.passed(t);
          return true;
        }
        if (source_.park(t, retries + 1, start)) return true;
        profiler_.backoff([&] { backoff_after_abort<CC>(exec_.cfg_, rng_, retries); });
      }
    }

    OnlineExecutor& exec_;
    const int tid_;
    Random& rng_;
    Source& source_;
    ThreadStats& st_;
    typename W::ThreadState& ws_;
    Txn<CC, kProfile> txn_;
    AttemptProfiler<kProfile> profiler_;
    const uint64_t quota_;  // this worker's share of --measure_txns (0: measured by --duration)
    bool measuring_ = false;
    uint64_t measure_start_ = 0;
  };

  // Worker tid's share of --measure_txns (0: measured by --duration).
  uint64_t quota_of(int tid) const {
    const uint64_t workers = runtime_.workers();
    return cfg_.measure_txns == 0 ? 0 : cfg_.measure_txns / workers + (uint64_t(tid) < cfg_.measure_txns % workers);
  }

  // Reports the worker ready, then waits for the controller's start signal.
  void wait_for_start() {
    ready_.fetch_add(1, std::memory_order_acq_rel);
    while (phase_.load(std::memory_order_acquire) == kLoad) sim::yield_thread();
  }

  void finish_quota() {
    const uint64_t t = now_ns();
    uint64_t prev = last_finish_ns_.load(std::memory_order_relaxed);
    while (prev < t && !last_finish_ns_.compare_exchange_weak(prev, t, std::memory_order_acq_rel)) {
    }
    finished_.fetch_add(1, std::memory_order_acq_rel);
  }

  const EngineConfig& cfg_;
  CC& cc_;
  W& w_;
  Runtime<CC> runtime_;  // the run's threads (runtime.h)
  std::atomic<int> phase_{kLoad};
  std::atomic<int> ready_{0};
  std::atomic<int> finished_{0};
  std::atomic<uint64_t> measure_start_ns_{0};
  std::atomic<uint64_t> last_finish_ns_{0};
  const FrontendSpec frontend_;
  std::unique_ptr<TsDefer> tsdefer_;  // with OnlineOrder::kTsDefer
  std::unique_ptr<ThreadReorder> reorder_;  // with OnlineOrder::kThreadReorder
  std::vector<std::vector<typename W::Request>> shared_buffers_;  // with reorder: every worker's buffer
  uint32_t attempt_type_ = kNoAttemptType;  // --attempt_latency_type's index
};

}  // namespace ccb
