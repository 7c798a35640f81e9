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
// Optional protocol hooks (engine/cc/protocol.h) are used where present: the
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
// The front-end comes resolved (engine/exec/frontend_spec.h, OnlineOrder):
// with TsDEFER (--frontend=tsdefer, TSKD[CC]) each worker's buffer is its
// TsDEFER queue (engine/exec/tsdefer.h), replayed in a cycle: TsDEFER picks
// the next request and regPos follows each commit. Without it the worker
// loop is compiled without TsDEFER (a template parameter), so DbCC pays
// nothing. With thread-aware reordering (--frontend=reorder, Ding et al.
// §5.5; the spec carries the program's policy) the workers run batches of
// 4 x threads requests taken from all buffers, 4 per worker as the
// thread-aware policy assigns them, every batch planned before the warm-up
// and no barrier between batches (engine/exec/thread_reorder.h); also a
// template parameter, so the other front-ends pay nothing for it.
// Each worker also reports its contended latch acquisitions in the measured
// interval (engine/core/latch_contention.h). With --profile the worker loop is
// instantiated with Txn<CC, true> and AttemptProfiler<true>
// (engine/stats/exec_profile.h), which time every attempt; without it with
// Txn<CC> and AttemptProfiler<false>, which read no clock (a template
// parameter, like TsDEFER's).
//
// An attempt and the counting of its outcome are engine/exec/attempt.h's,
// shared with the bundle executor.
//
// Under sim (engine/sim/sim.h) the workers are virtual cores and the epoch
// ticker and the controller (the part of run() that times the phases) are
// fibers beside them (sim::ThreadGroup); their sleeps, waits and the backoff
// after an abort follow virtual time, so --warmup and --duration are virtual
// seconds.
//
// Thread safety: run() is called once, from the main thread.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <sched.h>

#include "engine/cc/attempt_outcome.h"
#include "engine/core/latch_contention.h"
#include "engine/cc/protocol.h"
#include "engine/cc/txn.h"
#include "engine/config.h"
#include "engine/core/random.h"
#include "engine/core/clock.h"
#include "engine/sim/sim.h"
#include "engine/core/sim_sync.h"
#include "engine/exec/abort_buffer.h"
#include "engine/exec/frontend_spec.h"
#include "engine/exec/thread_reorder.h"
#include "engine/exec/tsdefer.h"
#include "engine/core/topology.h"
#include "engine/exec/attempt.h"
#include "engine/stats/exec_profile.h"
#include "engine/stats/thread_stats.h"
#include "engine/verify/cf_check.h"
#include "engine/verify/recorder.h"
#include "engine/workload.h"

namespace ccb {

template <class W, class CC>
concept HasTableById = requires(W w, uint32_t id) {
  { w.table_by_id(id) } -> std::convertible_to<Table<CC>*>;
};

// Registers every table of the workload with a transaction whose protocol
// locks the predicted access set (acquire_all() finds a key's table by its id).
template <class CC, class W, class TxnT>
  requires HasTableById<W, CC>
void register_tables(W& w, TxnT& txn) {
  for (uint32_t id = 0; id < (1u << kTableIdBits); ++id)
    if (Table<CC>* t = w.table_by_id(id)) txn.register_table(*t);
}

template <class W>
concept HasReadOnlyRequests = requires(const W w, const typename W::Request& r) {
  { w.read_only(r) } -> std::same_as<bool>;
};

// The optional workload members for requests that change with time (above).
template <class W>
concept HasMeasureClock = requires(W w, uint64_t t) { w.on_measure_start(t); };
template <class W>
concept HasDescriptionEpoch = requires(const W w) {
  { w.description_epoch() } -> std::convertible_to<uint64_t>;
};

template <class W>
struct RunOutcome {
  ThreadStats stats;
  double measured_s = 0;
  double warmup_s = 0;
  std::vector<typename W::ThreadState> workload_states;
  std::vector<verify::HistoryLog> history_logs;  // one per worker, empty unless --verify
  std::vector<int> worker_cpus;                  // pinned CPU per worker, empty if not pinned
  std::optional<TsDeferStats> tsdefer;           // with online TsDEFER (--frontend=tsdefer), measured interval
  std::optional<ThreadReorderStats> reorder;     // with thread-aware reordering (--frontend=reorder), measured interval
  uint64_t contended_latch_acquisitions = 0;     // measured interval, all workers
  // Bundle executor only (engine/exec/bundle_executor.h): the result's whole
  // "frontend" object, and with --verify where each queue-phase transaction ran.
  std::string frontend_json;
  std::vector<verify::QueueTag> queue_tags;
};

// The threads that run transactions: --threads, less the lock servers of a
// protocol with a lock service (Orthrus's CC threads; protocol.h).
template <class CC>
int worker_threads(const EngineConfig& cfg) {
  if constexpr (HasLockService<CC>) return cfg.threads - CC::lock_server_threads(cfg.threads);
  else return cfg.threads;
}

// Shared by the executors (this one and engine/exec/bundle_executor.h).
// Configuration errors of the protocol x workload x threads combination.
template <class CC, class W>
void check_executor_support(const EngineConfig& cfg) {
  if constexpr (HasLockService<CC>) {
    if (worker_threads<CC>(cfg) < 1)
      throw ConfigError("threads", "protocol " + std::string(CC::kName) + " needs at least one execution thread " +
                                       "besides its " + std::to_string(CC::lock_server_threads(cfg.threads)) +
                                       " lock-server thread(s); give more threads");
  }
  if constexpr (HasMaxThreads<CC>) {
    if (cfg.threads > CC::kMaxThreads)
      throw ConfigError("threads", "protocol " + std::string(CC::kName) + " supports at most " +
                                       std::to_string(CC::kMaxThreads) + " threads");
  }
  if constexpr (HasAcquireAll<CC> && !HasTableById<W, CC>) {
    throw ConfigError("cc", "protocol " + std::string(CC::kName) + " locks the predicted access set, which needs " +
                                "the workload to expose its tables (table_by_id); workload " +
                                std::string(W::kName) + " does not");
  }
}

// A worker's idle wait until `deadline` (now_ns() time): the backoff after
// an abort, and the abort buffer's wait when every slot waits.
inline void idle_until_ns(const EngineConfig& cfg, uint64_t deadline) {
  if constexpr (kSimBuild) {
    if (sim::in_fiber()) return sim::sleep_until_ns(deadline);  // a virtual wait, no spin rounds
  }
  while (now_ns() < deadline) {
    if (cfg.threads > static_cast<int>(Topology::get().cpus.size())) sched_yield();  // let the holder run
    else cpu_relax();
  }
}

// Randomized exponential backoff after an abort: wait uniformly in
// [0, min(--backoff_max_us, 1us * 2^retries)].
inline void backoff_after_abort(const EngineConfig& cfg, Random& rng, uint32_t retries) {
  if (cfg.backoff_max_us == 0) return;
  const uint64_t cap_ns = uint64_t{cfg.backoff_max_us} * 1000;
  const uint64_t window = std::min<uint64_t>(cap_ns, uint64_t{1000} << std::min<uint32_t>(retries, 20));
  idle_until_ns(cfg, now_ns() + rng.below(window + 1));
}

template <class CC, class W>
  requires Protocol<CC> && Workload<W, CC>
class OnlineExecutor {
 public:
  // frontend: how a worker picks its next request (engine/exec/frontend_spec.h;
  // the default: its buffer in order). REQUIRES: frontend.executor is kOnline,
  // and frontend.thread_assign is non-null with kThreadReorder.
  OnlineExecutor(const EngineConfig& cfg, CC& cc, W& workload, FrontendSpec frontend = {})
      : cfg_(cfg), cc_(cc), w_(workload), frontend_(std::move(frontend)) {}

  // kProfile: --profile (cfg.profile must match). A compile-time parameter
  // chosen at the top (run_online), so a binary's unprofiled translation units
  // instantiate no profiled code at all, and their inlining stays as it was.
  template <bool kProfile = false>
  RunOutcome<W> run() {
    check_executor_support<CC, W>(cfg_);
    check_profile_matches<kProfile>(cfg_);
    const int n = workers_ = worker_threads<CC>(cfg_);
    attempt_type_ = attempt_latency_type_index(cfg_.attempt_latency_type, w_.txn_types(), W::kName);
    RunOutcome<W> out;
    out.workload_states.resize(n);
    if (cfg_.verify) out.history_logs.resize(n);
    std::vector<ThreadStats> stats(n, ThreadStats(w_.txn_types().size()));
    if (cfg_.pin) {
      const auto order = Topology::get().pinning_order();
      for (int i = 0; i < n; ++i) out.worker_cpus.push_back(order[i % order.size()].cpu);
    }

    if (frontend_.online_order == FrontendSpec::OnlineOrder::kTsDefer)
      tsdefer_ = std::make_unique<TsDefer>(cfg_.tsdefer, n);
    if constexpr (HasLockService<CC>) cc_.open(cfg_.threads - n, n);
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
      shared_buffers_.resize(n);
    }
    std::vector<uint64_t> contended(n);
    // Under sim each worker keeps its own copy of the thread-local counters.
    sim::fiber_local(&tls_contended_latch_acquisitions);
    sim::fiber_local(&contended_at_measure_start_);
    sim::ThreadGroup threads;
    for (int i = 0; i < n; ++i) {
      threads.spawn([&, i] {
        if (cfg_.pin) pin_current_thread(out.worker_cpus[i]);
        verify::HistoryLog* log = cfg_.verify ? &out.history_logs[i] : nullptr;
        if (tsdefer_) worker<true, false, kProfile>(i, stats[i], out.workload_states[i], log);
        else if (reorder_) worker<false, true, kProfile>(i, stats[i], out.workload_states[i], log);
        else worker<false, false, kProfile>(i, stats[i], out.workload_states[i], log);
        if constexpr (HasLockService<CC>) cc_.worker_done(static_cast<uint32_t>(i));
        contended[i] = tls_contended_latch_acquisitions - contended_at_measure_start_;
      });
    }
    if constexpr (kSimBuild && HasLockService<CC>) {
      // Under sim the protocol's own threads (Orthrus's CC threads) are
      // virtual cores too, after the workers (message_locks.h).
      sim::LentThreads lent;
      cc_.lend_threads(lent);
      for (auto& body : lent.bodies) threads.spawn(std::move(body));
    }
    if constexpr (HasEpochTick<CC>) {
      threads.spawn(
          [this] {
            while (phase_.load(std::memory_order_acquire) != kDone) {
              sim::sleep_for(std::chrono::milliseconds(CC::kEpochMillis));
              cc_.tick();
            }
          },
          /*core=*/false);
    }
    uint64_t end = 0;
    threads.run([&] { end = control(out, n); });  // joins the workers and the ticker
    if constexpr (HasLockService<CC>) cc_.close();

    out.measured_s = (end - measure_start_ns_.load()) * 1e-9;
    for (auto& s : stats) out.stats.merge(s);
    for (uint64_t c : contended) out.contended_latch_acquisitions += c;
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
    return end;
  }

  static void sleep_seconds(double s) {
    sim::sleep_for(std::chrono::nanoseconds(static_cast<int64_t>(s * 1e9)));
  }

  // Whether an attempt locks its request's predicted access set first
  // (acquire_all(); the workload exposes its tables).
  static constexpr bool kLocksPredicted = HasAcquireAll<CC> && HasTableById<W, CC>;

  // A worker's requests: its buffer and, where built, their predicted access
  // sets (for acquire_all() and the reorder policy; with reorder both are
  // shared with the policy and the other workers).
  struct Requests {
    std::vector<typename W::Request>& buffer;
    std::vector<TxnDesc>& predicted;
    uint64_t described_epoch = 0;  // the workload's description epoch when `predicted` was built
  };
  // The request a worker runs next, and its predicted access set (nullptr
  // where none is built).
  struct Pick {
    const typename W::Request* req = nullptr;
    const TxnDesc* predicted = nullptr;
  };
  // A request to run: a new pick, or one resumed from the abort buffer
  // (--abort_policy=buffer) with its retries so far and its first start.
  struct Resume {
    Pick pick;
    uint32_t retries = 0;
    uint64_t start_ns = 0;  // with retries > 0: when it was first tried
  };
  using Parked = AbortBuffer<Resume>;

  // A worker: its requests and transaction set up, the start awaited, then
  // one request after another until the run ends.
  template <bool kDefer, bool kReorder, bool kProfile>
  void worker(int tid, ThreadStats& st, typename W::ThreadState& ws, verify::HistoryLog* log) {
    Random rng(seed_for(cfg_.seed, tid));
    std::vector<typename W::Request> own_buffer;
    std::vector<TxnDesc> own_predicted;
    Requests requests{kReorder ? shared_buffers_[tid] : own_buffer, kReorder ? reorder_->descs(tid) : own_predicted};
    generate_buffer<kDefer>(tid, rng, requests.buffer);
    Txn<CC, kProfile> txn(cc_, tid, log);
    txn.set_prefetch(cfg_.prefetch);
    AttemptProfiler<kProfile> profiler(st.profile);
    profiler.attach(txn);
    if constexpr (kLocksPredicted) register_tables<CC>(w_, txn);
    if constexpr (kReorder || kLocksPredicted) {
      if constexpr (HasDescriptionEpoch<W>) requests.described_epoch = w_.description_epoch();
      requests.predicted.resize(requests.buffer.size());
      describe_buffer(requests);
    }
    const uint64_t quota = quota_of(tid);
    std::optional<Parked> parked;  // --abort_policy=buffer (not with reorder's batches: rundb/frontends.cpp checks)
    if (cfg_.abort_buffer()) {
      if (kReorder) throw std::logic_error("--abort_policy=buffer with reorder's batches");
      parked.emplace(cfg_.abort_buffer_size);
    }
    wait_for_start();

    bool measuring = false;
    uint64_t measure_start = 0;
    size_t next = 0;                             // the buffer's next position (neither TsDEFER nor reorder)
    uint64_t batch_no = 0;                       // kReorder: the batch this worker is in (no barrier)
    uint64_t measured_parts = 0;                 // kReorder: batch parts started in the measured interval
    std::span<const ThreadReorder::Slot> batch;  // kReorder: this worker's part of it
    size_t in_batch = 0;
    for (;;) {
      const int phase = phase_.load(std::memory_order_acquire);
      if (phase == kDone) break;
      if constexpr (kReorder) {
        if (in_batch == batch.size()) {
          if (!batch.empty()) ++batch_no;
          batch = reorder_->plan(tid, batch_no);
          in_batch = 0;
          measured_parts += phase == kMeasure;
        }
      }
      if (phase == kMeasure && !measuring) {
        measuring = true;
        measure_start = start_measuring<kDefer, kProfile>(tid, st, quota);
      }
      Resume next_request;
      if constexpr (kReorder) {
        next_request.pick = reordered_request(batch[in_batch++]);
      } else if (parked) {  // DBx1000's order: a parked request whose penalty is over, else a new one (TsDEFER's)
        if (auto ready = parked->take_ready(now_ns())) {
          next_request = *ready;
        } else if (parked->full()) {  // every slot waits: idle until the first is ready
          profiler.backoff([&] { idle_until_ns(cfg_, parked->earliest_ready_ns()); });
          continue;
        } else {
          next_request.pick = buffered_request<kDefer>(tid, rng, requests, next);
        }
      } else {
        next_request.pick = buffered_request<kDefer>(tid, rng, requests, next);
      }
      if (!run_request<kDefer, kReorder>(tid, rng, txn, profiler, st, ws, next_request, measuring, measure_start,
                                         requests, parked ? &*parked : nullptr))
        break;  // the run ended between its attempts
      if (measuring && quota > 0 && st.commits == quota) {
        finish_quota();
        // Keep running so the others see the same contention until all finish.
      }
    }
    if constexpr (kReorder) reorder_->finish(tid, batch_no, measured_parts);
  }

  // The worker's buffer of requests, generated from its own stream; with
  // TsDEFER also its queue, replayed in a cycle (the sets sample the
  // predicted access sets from the same stream, after the requests).
  template <bool kDefer>
  void generate_buffer(int tid, Random& rng, std::vector<typename W::Request>& buffer) {
    buffer.resize(cfg_.txn_buffer);
    for (auto& r : buffer) w_.generate(rng, tid, r);
    if constexpr (kDefer) {
      std::vector<TsDeferSet> sets;
      sets.reserve(buffer.size());
      for (const auto& r : buffer) sets.push_back(TsDeferSet::from_desc(w_.describe(r), cfg_.tsdefer.accuracy, rng));
      tsdefer_->assign(tid, std::move(sets), TsDefer::Replay::kYes);
    }
  }

  // Every buffered request's predicted access set, described again.
  void describe_buffer(Requests& requests) const {
    for (size_t i = 0; i < requests.buffer.size(); ++i) describe_sorted(requests.buffer[i], requests.predicted[i]);
  }

  // Worker tid's share of --measure_txns (0: measured by --duration).
  uint64_t quota_of(int tid) const {
    return cfg_.measure_txns == 0 ? 0
                                  : cfg_.measure_txns / workers_ + (uint64_t(tid) < cfg_.measure_txns % workers_);
  }

  // Reports the worker ready, then waits for the controller's start signal.
  void wait_for_start() {
    ready_.fetch_add(1, std::memory_order_acq_rel);
    while (phase_.load(std::memory_order_acquire) == kLoad) sim::yield_thread();
  }

  // The worker's first step into the measured interval: its counters start
  // from zero. Returns the interval's start.
  template <bool kDefer, bool kProfile>
  uint64_t start_measuring(int tid, ThreadStats& st, uint64_t quota) {
    const uint64_t measure_start = measure_start_ns_.load(std::memory_order_acquire);
    if (quota == 0 && cfg_.measure_txns > 0) finish_quota();
    if constexpr (HasProtocolStats<CC>) cc_.reset_stats(tid);
    if constexpr (kDefer) tsdefer_->stats(tid) = {};
    if constexpr (kProfile) st.profile = {};
    contended_at_measure_start_ = tls_contended_latch_acquisitions;
    return measure_start;
  }

  // The next request of a reorder batch: any worker's buffer.
  Pick reordered_request(ThreadReorder::Slot slot) const {
    return {&shared_buffers_[slot.owner][slot.index], &reorder_->desc(slot)};
  }

  // The next request of the worker's own buffer: TsDEFER's pick, or the
  // buffer's next position, cycling.
  template <bool kDefer>
  Pick buffered_request(int tid, Random& rng, const Requests& requests, size_t& next) {
    size_t index = next;
    if constexpr (kDefer) index = *tsdefer_->next(tid, rng);  // a replay queue never drains
    else next = next + 1 == requests.buffer.size() ? 0 : next + 1;
    Pick pick{&requests.buffer[index]};
    if constexpr (kLocksPredicted) pick.predicted = &requests.predicted[index];
    return pick;
  }

  // Runs a request until it commits or rolls back by design (or, with
  // --retry_aborted=false, until its first conflict abort drops it),
  // retrying after a backoff, or, with an abort buffer (`parked`), until
  // its next conflict abort parks it there; returns false if the run ended
  // between its attempts. With TsDEFER, headp moves past a request when it
  // leaves the worker's hands the first time: it finished, was dropped, or
  // was parked (a parked request is retried from the buffer, not from
  // TsDEFER's queue, and the lookups see the queue's next one as active
  // [INF: the TSKD paper, in DBx1000, does not say how TsDEFER meets
  // DBx1000's abort buffer]).
  template <bool kDefer, bool kReorder, class TxnT, class Profiler>
  bool run_request(int tid, Random& rng, TxnT& txn, Profiler& profiler, ThreadStats& st,
                   typename W::ThreadState& ws, Resume resume, bool measuring, uint64_t measure_start,
                   Requests& requests, Parked* parked) {
    const Pick pick = resume.pick;
    const auto& req = *pick.req;
    bool read_only = false;
    if constexpr (HasReadOnlyRequests<W>) read_only = w_.read_only(req);
    const bool resumed = resume.retries > 0;  // from the abort buffer: TsDEFER's headp moved past it when parked
    const uint64_t start = resumed ? resume.start_ns : now_ns();  // the latency counts from the first try
    const bool time_attempts = measuring && req.type == attempt_type_;  // --attempt_latency_type
    for (uint32_t retries = resume.retries;; ++retries) {
      if constexpr (kLocksPredicted && HasDescriptionEpoch<W> && !kReorder) {
        if (const uint64_t e = w_.description_epoch(); e != requests.described_epoch) {  // see the header
          describe_buffer(requests);
          requests.described_epoch = e;
        }
      }
      const uint64_t attempt_start = time_attempts ? now_ns() : 0;
      const RC rc = run_attempt(cc_, w_, txn, profiler, req, retries, read_only, pick.predicted);  // attempt.h
      if (time_attempts && rc != RC::kUser && rc != RC::kNotFound)
        st.attempts.record(classify_attempt(cc_, txn, rc), now_ns() - attempt_start);
      if (finish_attempt(w_, ws, st, req, rc, {measuring, start, measure_start, cfg_.timeline}) !=
          Attempted::kConflict) {  // committed, or rolled back by design: not retried
        if constexpr (kDefer) if (!resumed) tsdefer_->reg_pos(tid);
        return true;
      }
      if (phase_.load(std::memory_order_relaxed) == kDone) return false;
      if (!cfg_.retry_aborted) {  // --retry_aborted=false: dropped, as Silo's benchmark does
        if constexpr (kDefer) tsdefer_->reg_pos(tid);  // TsDEFER's headp moves past it, else next() runs it again
        return true;
      }
      if (parked != nullptr) {  // DBx1000: park it for a penalty uniform in [0, --abort_penalty_us]
        parked->park_for_penalty({pick, retries + 1, start}, now_ns(), rng, cfg_.abort_penalty_us);
        if constexpr (kDefer) if (!resumed) tsdefer_->reg_pos(tid);
        return true;
      }
      profiler.backoff([&] { backoff(rng, retries); });
    }
  }

  // A request's predicted access set, key sets sorted (acquire_all() and
  // the reorder policy rely on the order).
  void describe_sorted(const typename W::Request& r, TxnDesc& d) const {
    d = w_.describe(r);
    std::sort(d.read_set.begin(), d.read_set.end());
    std::sort(d.write_set.begin(), d.write_set.end());
  }

  void finish_quota() {
    const uint64_t t = now_ns();
    uint64_t prev = last_finish_ns_.load(std::memory_order_relaxed);
    while (prev < t && !last_finish_ns_.compare_exchange_weak(prev, t, std::memory_order_acq_rel)) {
    }
    finished_.fetch_add(1, std::memory_order_acq_rel);
  }

  void backoff(Random& rng, uint32_t retries) { backoff_after_abort(cfg_, rng, retries); }

  const EngineConfig& cfg_;
  CC& cc_;
  W& w_;
  int workers_ = 0;  // worker_threads<CC>(cfg_)
  std::atomic<int> phase_{kLoad};
  std::atomic<int> ready_{0};
  std::atomic<int> finished_{0};
  std::atomic<uint64_t> measure_start_ns_{0};
  std::atomic<uint64_t> last_finish_ns_{0};
  const FrontendSpec frontend_;
  std::unique_ptr<TsDefer> tsdefer_;  // with OnlineOrder::kTsDefer
  std::unique_ptr<ThreadReorder> reorder_;  // with OnlineOrder::kThreadReorder
  std::vector<std::vector<typename W::Request>> shared_buffers_;  // with reorder: every worker's buffer
  // This worker's contended latch count when its measured interval started.
  static inline thread_local uint64_t contended_at_measure_start_ = 0;
  uint32_t attempt_type_ = kNoAttemptType;  // --attempt_latency_type's index
};

}  // namespace ccb
