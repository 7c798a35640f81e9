// The bundle executor (README.md, "Executors" (b)): batches of transaction
// descriptions, a front-end's plan per batch, three synchronous phases.
//
// Per batch (Strife §2, "Execution": analysis -> conflict-free -> residual,
// no overlap between batches):
//   analysis   the coordinating thread (the caller of run()) hands the batch's
//              descriptions (the workload's describe(), key sets sorted) to
//              the front-end, which fills a BundlePlan (bundle_plan.h); the
//              front-end may use threads of its own (Strife's parallel steps).
//   queues     the workers run the plan's queues (per-thread first, then the
//              shared worklist, popped one queue at a time with an atomic
//              ticket); kWithoutCC queues run with Txn::set_cc_free (NoCC's
//              operations), kWithCC queues under the binary's protocol. Then a
//              barrier.
//   residual   the workers take residuals one at a time (atomic ticket) and
//              run them under the protocol. Then a barrier, and the next batch.
// TSKD (partitioners/tspar): a plan may ask for round-robin residuals and
// for TsDEFER (bundle_plan.h). The executor then keeps two TsDEFER instances
// (engine/exec/tsdefer.h), one for the queue phase and one for the residual
// phase, whose lanes the coordinator assigns (Replay::kNo) after the analysis
// while the workers wait at the barrier; a worker then asks TsDEFER for its
// next transaction instead of walking its list. Without a front-end that
// offers TsDEFER no TsDEFER state exists and each phase picks its loop once.
// The lane setup counts as analysis ("tsdefer_setup" step).
// Front-ends that want a cost history (wants_costs) get, after each warm-up
// batch, the duration of every transaction's committing attempt. Plans with
// queue_estimates are scored against the time each worker's own queues took
// (frontend.queue_estimates, engine/stats/estimate_fit.h).
// Conflict aborts are retried until the transaction commits (with the online
// executor's backoff); logical aborts (RC::kUser, RC::kNotFound) end it. An
// attempt and the counting of its outcome are the online executor's
// (engine/exec/attempt.h).
// A wrong OLLP prediction (RC::kPredictionMismatch, see HasReconnaissance)
// aborts the transaction and moves it to the next batch.
// OLLP reconnaissance (a workload with HasReconnaissance) is part of the
// analysis, run in parallel as Strife folds it into its parallel prepare
// step (§5.6.4): before the front-end's plan(), chunks of the batch are
// reconnoitered on the front-end's analysis threads (BundleFrontend::
// for_chunks: Strife's team; serially on the coordinator for a front-end
// without one), and only the requests whose prediction changed are
// described again (a batch is replayed, so an unchanged prediction keeps the
// description of the previous replay). Reported as "reconnaissance" (µs and
// requests described again, per measured batch). After the plan, predictions
// that depend on a transaction's position in its CC-free queue are bound to
// it (a workload with HasQueueBinding, engine/exec/queue_binding.h; TPC-C's
// Delivery); one that would then conflict with another queue moves to the
// residuals. Reported in "reconnaissance" too (µs, transactions bound and
// moved, per measured batch).
// Phases are separated by one std::barrier of the workers and the
// coordinator, whose completion step timestamps the phase ends.
//
// Under sim (engine/sim/sim.h, docs/sim.md) every thread of a run is a fiber
// of one sim::ThreadGroup: the workers (the virtual cores, in tid order), the
// epoch ticker, the front-end's own threads (Strife's analysis team,
// BundleFrontend::lend_threads) and the coordinator (the group's main body).
// The barrier is then sim::FiberBarrier (a waiting fiber parks: no spin
// rounds, however long the analysis), std::barrier natively. The analysis
// costs virtual time by a model, charged after the front-end's plan():
// one index probe (the cost table's index_probe) per key of each
// description, run through the front-end's for_chunks (on Strife's team in
// parallel; serially on the coordinator otherwise) — deterministic, unlike
// the plan's native duration.
//
// Batches: ceil(--txn_buffer x threads / batch_size) distinct batches (at
// least one) are generated before the run and replayed in a cycle, as the
// online executor replays its buffers. Transaction i of a batch is generated
// for client (worker) i mod threads, i.e. with the home warehouse / partition
// distribution of the online executor's workers [INF: the paper does not say
// how a batch spreads over clients; this keeps the comparison with the online
// executor like for like].
//
// Measurement: batches run during --warmup, then the measured interval is a
// whole number of batches (at least one): until --duration has passed, or
// until --measure_txns commits. A transaction's latency runs from the start
// of its batch's analysis (when the batch closed) to its commit; --timeline
// counts each commit in its second since the first measured batch's start.
// The workload's optional on_measure_start() (online_executor.h) is called
// then, before that batch's analysis; a workload whose requests change with
// time fixes each request's form for its batch in its reconnaissance (HOT,
// workloads/hot/hot.h), so that plans stay exact.
//
// --profile (engine/stats/exec_profile.h): the workers' loop is instantiated
// with Txn<CC, true> and AttemptProfiler<true>, which time every attempt; the
// analysis phase counts as analysis for every worker it holds at the barrier
// (its wall time x workers). Without it the loop is compiled with Txn<CC> and
// AttemptProfiler<false>, which read no clock.
//
// Read-only requests run as ordinary transactions (txn.read_only() is false):
// the CC-free phase writes rows without a protocol's version bookkeeping, which
// snapshot reads (Silo, BCC) rely on.
//
// Thread safety: run() is called once, from one thread.
#pragma once

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/cc/protocol.h"
#include "engine/cc/txn.h"
#include "engine/config.h"
#include "engine/core/clock.h"
#include "engine/core/random.h"
#include "engine/sim/sim.h"
#include "engine/core/sim_sync.h"
#include "engine/exec/attempt.h"
#include "engine/exec/bundle_plan.h"
#include "engine/exec/online_executor.h"
#include "engine/exec/queue_binding.h"
#include "engine/exec/tsdefer.h"
#include "engine/stats/estimate_fit.h"
#include "engine/stats/histogram.h"
#include "engine/core/json.h"
#include "engine/stats/thread_stats.h"
#include "engine/verify/cf_check.h"
#include "engine/verify/recorder.h"
#include "engine/workload.h"

namespace ccb {

// Optional workload member: `bool reconnoiter(Request&) const`, OLLP
// reconnaissance (Strife §5.6.4): called for every request in each batch's
// analysis, concurrently on distinct requests (no transaction runs then); it
// predicts the part of the access set the request cannot declare (e.g. TPC-C
// Payment's customer by last name) and stores it in the request, and returns
// whether the stored prediction changed (the request is then described
// again). The procedure checks the prediction and returns
// RC::kPredictionMismatch if it was wrong; the executor then moves the
// request to the next batch.
template <class W>
concept HasReconnaissance = requires(const W w, typename W::Request& r) {
  { w.reconnoiter(r) } -> std::same_as<bool>;
};

// Optional with it: `void begin_reconnaissance(std::span<Request>)`, called
// once per batch on the coordinator, before the batch's reconnoiter() calls,
// with all its requests: predictions that depend on the rest of the batch
// read (or note in the requests) what they need there (TPC-C's Delivery: its
// rank among the batch's Deliveries of its warehouse,
// workloads/tpcc/tpcc_reconnaissance.h).
template <class W>
concept HasBatchReconnaissance = HasReconnaissance<W> && requires(W& w, std::span<typename W::Request> b) {
  w.begin_reconnaissance(b);
};

template <class CC, class W>
  requires Protocol<CC> && Workload<W, CC>
class BundleExecutor {
 public:
  // REQUIRES: batch_size >= 1; `frontend` outlives run().
  BundleExecutor(const EngineConfig& cfg, CC& cc, W& workload, BundleFrontend& frontend, uint32_t batch_size,
                 std::string frontend_name)
      : cfg_(cfg),
        cc_(cc),
        w_(workload),
        frontend_(frontend),
        batch_size_(batch_size),
        frontend_name_(std::move(frontend_name)),
        barrier_(cfg.threads + 1, PhaseEnd{this}) {
    setup_rng_ = Random(seed_for(cfg.seed, uint64_t{3} << 32));  // a stream apart from batches and workers
    if (const TsDeferOptions* o = frontend_.tsdefer()) {
      tsdefer_q_ = std::make_unique<TsDefer>(*o, cfg.threads);
      tsdefer_r_ = std::make_unique<TsDefer>(*o, cfg.threads);
      lanes_q_.resize(cfg.threads);
      lanes_r_.resize(cfg.threads);
    }
  }

  // kProfile: --profile (cfg.profile must match), chosen at the top
  // (run_online) like OnlineExecutor::run's.
  template <bool kProfile = false>
  RunOutcome<W> run() {
    check_executor_support<CC, W>(cfg_);
    check_profile_matches<kProfile>(cfg_);
    const int n = cfg_.threads;
    generate_batches();
    RunOutcome<W> out;
    out.workload_states.resize(n);
    if (cfg_.verify) out.history_logs.resize(n);
    workers_.reserve(n);
    for (int i = 0; i < n; ++i)
      workers_.push_back(std::make_unique<Worker>(cc_, i, cfg_, w_.txn_types().size(),
                                                  cfg_.verify ? &out.history_logs[i] : nullptr));
    if constexpr (kProfile) {
      for (int i = 0; i < n; ++i) {
        workers_[i]->profiled_txn =
            std::make_unique<Txn<CC, true>>(cc_, i, cfg_.verify ? &out.history_logs[i] : nullptr);
        workers_[i]->profiled_txn->set_prefetch(cfg_.prefetch);
      }
    }
    if (cfg_.pin) {
      const auto order = Topology::get().pinning_order();
      for (int i = 0; i < n; ++i) out.worker_cpus.push_back(order[i % order.size()].cpu);
    }
    if constexpr (kSimBuild) {
      run_fibers<kProfile>(out);
    } else {  // the native threads (as before the sim build, instruction for instruction)
      std::vector<std::thread> threads;
      for (int i = 0; i < n; ++i) {
        threads.emplace_back([&, i] {
          if (cfg_.pin) pin_current_thread(out.worker_cpus[i]);
          worker_loop<kProfile>(*workers_[i], out.workload_states[i]);
        });
      }
      std::atomic<bool> ticking{true};
      std::thread ticker;
      if constexpr (HasEpochTick<CC>) {
        ticker = std::thread([&] {
          while (ticking.load(std::memory_order_acquire)) {
            std::this_thread::sleep_for(std::chrono::milliseconds(CC::kEpochMillis));
            cc_.tick();
          }
        });
      }

      coordinate(out);

      for (auto& t : threads) t.join();
      ticking.store(false, std::memory_order_release);
      if (ticker.joinable()) ticker.join();
    }
    for (auto& wk : workers_) {
      out.stats.merge(wk->stats);
      out.queue_tags.insert(out.queue_tags.end(), wk->tags.begin(), wk->tags.end());
    }
    if constexpr (kProfile) out.stats.profile.add_ns(ExecProfile::kAnalysis, analysis_ns_ * static_cast<uint64_t>(n));
    out.frontend_json = frontend_json();
    return out;
  }

 private:
  struct Batch {
    std::vector<typename W::Request> requests;
    std::vector<TxnDesc> descs;  // ids 0..size-1, key sets sorted
  };
  struct Worker {
    Worker(CC& cc, int tid, const EngineConfig& cfg, size_t types, verify::HistoryLog* log)
        : txn(cc, tid, log), rng(seed_for(cfg.seed, tid)), stats(types), tid(tid) {
      txn.set_prefetch(cfg.prefetch);
    }
    Txn<CC> txn;
    std::unique_ptr<Txn<CC, true>> profiled_txn;  // run<true>() (--profile): the one worker_loop<true> runs
    Random rng;
    ThreadStats stats;
    std::vector<verify::QueueTag> tags;
    std::vector<uint32_t> deferred;  // this batch's prediction mismatches (OLLP)
    // Measured commits and conflict aborts (retries) per phase.
    uint64_t queue_commits = 0, queue_retries = 0, residual_commits = 0, residual_retries = 0;
    uint64_t own_queues_ns = 0;  // this batch: the time its own (per_thread) queues took
    int tid;
  };
  // The barrier's completion step: runs once per phase, on one thread, while
  // every other participant is blocked, so it may write the timestamps.
  struct PhaseEnd {
    BundleExecutor* self;
    void operator()() noexcept { self->phase_end_ns_[self->phase_step_++ % 3] = now_ns(); }
  };
  // Per-batch analysis step times and counters, summed over measured batches.
  struct Sum {
    std::string name;
    double total = 0;
  };

  // Under sim: the run's threads as fibers of one sim::ThreadGroup (the
  // header): the workers (virtual cores 0..n-1), the epoch ticker, the
  // front-end's lent threads, and the coordinator as the group's main body.
  template <bool kProfile>
  void run_fibers(RunOutcome<W>& out) {
    sim::ThreadGroup threads;
    for (int i = 0; i < cfg_.threads; ++i)
      threads.spawn([&, i] { worker_loop<kProfile>(*workers_[i], out.workload_states[i]); });
    std::atomic<bool> ticking{true};
    if constexpr (HasEpochTick<CC>) {
      threads.spawn(
          [&] {
            while (ticking.load(std::memory_order_acquire)) {
              sim::sleep_for(std::chrono::milliseconds(CC::kEpochMillis));
              cc_.tick();
            }
          },
          /*core=*/false);
    }
    sim::LentThreads lent;
    frontend_.lend_threads(lent);
    for (auto& body : lent.bodies) threads.spawn(std::move(body), /*core=*/false);
    threads.run([&] {
      coordinate(out);
      for (auto& stop : lent.stops) stop();  // the lent threads return
      ticking.store(false, std::memory_order_release);
    });  // returns when every fiber has
  }

  void generate_batches() {
    const uint64_t want = uint64_t{cfg_.txn_buffer} * static_cast<uint64_t>(cfg_.threads);
    const size_t count = std::max<uint64_t>(1, (want + batch_size_ - 1) / batch_size_);
    batches_.resize(count);
    for (size_t b = 0; b < count; ++b) {
      Random rng(seed_for(cfg_.seed, (uint64_t{1} << 32) + b));  // streams apart from the workers'
      Batch& batch = batches_[b];
      batch.requests.resize(batch_size_);
      batch.descs.reserve(batch_size_);
      for (uint32_t i = 0; i < batch_size_; ++i) {
        w_.generate(rng, i % static_cast<uint32_t>(cfg_.threads), batch.requests[i]);
        batch.descs.push_back(describe_sorted(batch.requests[i], i));
      }
    }
  }

  TxnDesc describe_sorted(const typename W::Request& r, uint32_t index) const {
    TxnDesc d = w_.describe(r);
    d.id = index;
    std::sort(d.read_set.begin(), d.read_set.end());
    std::sort(d.write_set.begin(), d.write_set.end());
    return d;
  }
  void add_request(Batch& batch, const typename W::Request& r) {
    batch.requests.push_back(r);
    batch.descs.push_back(describe_sorted(r, static_cast<uint32_t>(batch.requests.size() - 1)));
  }

  // The coordinator: analysis of each batch, then the two execution phases.
  void coordinate(RunOutcome<W>& out) {
    const uint64_t t_start = now_ns();
    const uint64_t warmup_end = t_start + static_cast<uint64_t>(cfg_.warmup_s * 1e9);
    uint64_t measure_start = 0, measure_end = 0, measured_commits = 0;
    for (uint64_t seq = 0;; ++seq) {
      const uint64_t t0 = now_ns();
      if (!measuring_ && t0 >= warmup_end) {
        measuring_ = true;
        measure_start = measure_start_ns_ = t0;  // the workers read it after the barrier
        out.warmup_s = (t0 - t_start) * 1e-9;
        if constexpr (HasMeasureClock<W>) w_.on_measure_start(t0);  // before this batch's reconnaissance
      }
      if (measuring_ && measured_batches_ > 0) {
        const bool done = cfg_.measure_txns > 0 ? measured_commits >= cfg_.measure_txns
                                                : (t0 - measure_start) * 1e-9 >= cfg_.duration_s;
        if (done) break;
      }
      Batch& batch = batches_[seq % batches_.size()];
      // Transactions whose prediction failed in the previous batch join this
      // one; reconnaissance predicts again (both part of the analysis).
      for (const auto& r : deferred_) add_request(batch, r);
      deferred_.clear();
      const uint64_t recon_ns = reconnoiter_batch(batch);
      plan_.clear();
      plan_.per_thread.resize(cfg_.threads);
      frontend_.plan(batch.descs, plan_);
      const uint64_t bind_start = now_ns();
      const QueueBindingStats bound = bind_queue_positions(batch);
      if constexpr (kSimBuild) charge_analysis(batch);
      const uint64_t t1 = now_ns();
      if (const std::string bad = plan_.validate(batch.descs.size(), cfg_.threads); !bad.empty())
        throw std::logic_error("front-end " + frontend_name_ + ": " + bad);
      if ((plan_.tsdefer_queues || plan_.tsdefer_residuals) && !tsdefer_q_)
        throw std::logic_error("front-end " + frontend_name_ + " asks for TsDEFER but offers no TsDEFER options");
      const uint64_t setup_ns = setup_tsdefer(batch);
      record_costs_ = !measuring_ && frontend_.wants_costs();
      if (record_costs_) exec_ns_.assign(batch.descs.size(), 0);
      batch_ = &batch;
      batch_seq_ = seq;
      batch_start_ns_ = t0;
      worklist_next_.store(0, std::memory_order_relaxed);
      residual_next_.store(0, std::memory_order_relaxed);
      const uint64_t t_release = now_ns();
      barrier_.arrive_and_wait();  // the workers start the queue phase
      barrier_.arrive_and_wait();  // queue phase over
      barrier_.arrive_and_wait();  // residual phase over
      if (record_costs_) frontend_.observe_costs(batch.descs, exec_ns_);
      for (auto& wk : workers_) {
        for (uint32_t i : wk->deferred) deferred_.push_back(batch.requests[i]);
        wk->deferred.clear();
      }
      batch.requests.resize(batch_size_);  // drop the deferred transactions that joined this batch
      batch.descs.resize(batch_size_);
      if (!measuring_) continue;
      const uint64_t t2 = phase_end_ns_[1], t3 = phase_end_ns_[2];
      ++measured_batches_;
      recon_ns_ += recon_ns;
      recon_redescribed_ += recon_redescribed_batch_;
      bind_ns_ += t1 - bind_start;
      bind_rebound_ += bound.rebound;
      bind_demoted_ += bound.demoted;
      measure_end = t3;
      analysis_ns_ += t1 - t0 + setup_ns;
      queues_ns_ += t2 - t_release;
      residual_ns_ += t3 - t2;
      batch_latency_.record(t3 - t0);
      analysis_latency_.record(t1 - t0);
      if (tsdefer_q_) plan_.step_us.emplace_back("tsdefer_setup", setup_ns * 1e-3);
      add_sums(step_sums_, plan_.step_us);
      add_sums(counter_sums_, plan_.counters);
      if (!plan_.queue_estimates.empty()) {
        own_queues_ns_.clear();
        for (const auto& wk : workers_) own_queues_ns_.push_back(wk->own_queues_ns);
        estimate_fit_.add_batch(plan_.queue_estimates, own_queues_ns_);
      }
      residual_txns_ += plan_.residuals.size();
      deferred_total_ += deferred_.size();
      worklist_queues_ += plan_.worklist.size();
      measured_commits = 0;
      for (auto& wk : workers_) measured_commits += wk->stats.commits;
    }
    stop_ = true;
    barrier_.arrive_and_wait();  // releases the workers, which see stop_ and leave
    out.measured_s = (measure_end - measure_start) * 1e-9;
  }

  // The batch's OLLP reconnaissance on the front-end's analysis threads
  // (see the header); returns the ns it took.
  uint64_t reconnoiter_batch(Batch& batch) {
    if constexpr (!HasReconnaissance<W>) {
      return 0;
    } else {
      const uint64_t start = now_ns();
      if constexpr (HasBatchReconnaissance<W>)
        w_.begin_reconnaissance(std::span<typename W::Request>(batch.requests));
      std::atomic<uint64_t> redescribed{0};
      frontend_.for_chunks(batch.requests.size(), [&](size_t begin, size_t end) {
        uint64_t n = 0;
        for (size_t i = begin; i < end; ++i) {
          if (!w_.reconnoiter(batch.requests[i])) continue;
          batch.descs[i] = describe_sorted(batch.requests[i], static_cast<uint32_t>(i));
          ++n;
        }
        redescribed.fetch_add(n, std::memory_order_relaxed);
      });
      recon_redescribed_batch_ = redescribed.load(std::memory_order_relaxed);
      return now_ns() - start;
    }
  }

  // Binds the plan's CC-free queues' position-dependent predictions
  // (engine/exec/queue_binding.h), on the coordinator after plan(): part of
  // the analysis.
  QueueBindingStats bind_queue_positions(Batch& batch) {
    if constexpr (!HasQueueBinding<W>) {
      return {};
    } else {
      return bind_queues(w_, plan_, std::span<typename W::Request>(batch.requests), std::span<TxnDesc>(batch.descs),
                         [&](const typename W::Request& r, uint32_t i) { return describe_sorted(r, i); });
    }
  }

  // Under sim: the analysis's virtual time (the header's model), one index
  // probe per key of each description, on the front-end's analysis threads,
  // scaled by the "analysis" work type's factor (fitted by the harness to the
  // native analysis time per batch).
  void charge_analysis(const Batch& batch) {
    const uint32_t analysis = sim::analysis_work_type();
    frontend_.for_chunks(batch.descs.size(), [&](size_t begin, size_t end) {
      const sim::ScopedWorkType scope(analysis);
      for (size_t i = begin; i < end; ++i)
        for (size_t k = batch.descs[i].read_set.size() + batch.descs[i].write_set.size(); k > 0; --k)
          sim::charge(sim::Op::kIndexProbe);
    });
  }

  // TsDEFER's lanes for this batch (coordinator, workers parked at the
  // barrier, so no lookup reads a lane while it changes); returns the ns spent.
  uint64_t setup_tsdefer(const Batch& batch) {
    if (!tsdefer_q_) return 0;
    const uint64_t start = now_ns();
    const int n = cfg_.threads;
    const double accuracy = tsdefer_q_->options().accuracy;
    auto fill = [&](TsDefer& td, int t, const std::vector<uint32_t>& lane) {
      if (lane.empty()) return td.clear(t);
      std::vector<TsDeferSet> sets;
      sets.reserve(lane.size());
      for (uint32_t i : lane)
        sets.push_back(accuracy < 1.0 ? TsDeferSet::from_desc(batch.descs[i], accuracy, setup_rng_)
                                      : TsDeferSet::from_sorted_desc(batch.descs[i]));
      td.assign(t, std::move(sets), TsDefer::Replay::kNo);
    };
    for (int t = 0; t < n; ++t) {
      lanes_q_[t].clear();
      if (plan_.tsdefer_queues && t < static_cast<int>(plan_.per_thread.size()) && !plan_.per_thread[t].empty())
        lanes_q_[t] = plan_.per_thread[t][0].txns;
      fill(*tsdefer_q_, t, lanes_q_[t]);
      lanes_r_[t].clear();
      if (plan_.tsdefer_residuals)
        for (size_t r = t; r < plan_.residuals.size(); r += n) lanes_r_[t].push_back(plan_.residuals[r]);
      fill(*tsdefer_r_, t, lanes_r_[t]);
    }
    return now_ns() - start;
  }

  static void add_sums(std::vector<Sum>& sums, const std::vector<std::pair<std::string, double>>& values) {
    for (const auto& [name, v] : values) {
      auto it = std::find_if(sums.begin(), sums.end(), [&](const Sum& s) { return s.name == name; });
      if (it == sums.end()) sums.push_back(Sum{name, v});
      else it->total += v;
    }
  }

  // The worker's transaction of the loop compiled with(out) --profile.
  template <bool kProfile>
  static auto& txn_of(Worker& wk) {
    if constexpr (kProfile) return *wk.profiled_txn;
    else return wk.txn;
  }

  template <bool kProfile>
  void worker_loop(Worker& wk, typename W::ThreadState& ws) {
    auto& txn = txn_of<kProfile>(wk);
    AttemptProfiler<kProfile> profiler(wk.stats.profile);
    profiler.attach(txn);
    if constexpr (HasAcquireAll<CC> && HasTableById<W, CC>) {
      for (uint32_t id = 0; id < (1u << kTableIdBits); ++id)
        if (Table<CC>* t = w_.table_by_id(id)) txn.register_table(*t);
    }
    bool measured_before = false;
    for (;;) {
      barrier_.arrive_and_wait();
      if (stop_) return;
      if (measuring_ && !measured_before) {
        measured_before = true;
        if constexpr (HasProtocolStats<CC>) cc_.reset_stats(wk.tid);
        if constexpr (kProfile) wk.stats.profile = {};
        if (tsdefer_q_) tsdefer_q_->stats(wk.tid) = tsdefer_r_->stats(wk.tid) = {};
      }
      uint64_t commits = wk.stats.commits, aborts = wk.stats.aborts;
      // Queue phase: this worker's own queues, then the shared worklist.
      const auto& own = plan_.per_thread[wk.tid];
      const uint64_t own_start = now_ns();
      for (size_t j = 0; j < own.size(); ++j) {
        const uint64_t queue_id = (uint64_t{1} << 63) | (uint64_t(wk.tid) << 32) | j;
        if (plan_.tsdefer_queues) run_deferred(wk, ws, profiler, *tsdefer_q_, lanes_q_[wk.tid], own[j].mode, queue_id);
        else run_queue(wk, ws, profiler, own[j], queue_id);
      }
      wk.own_queues_ns = now_ns() - own_start;
      for (size_t q; (q = worklist_next_.fetch_add(1, std::memory_order_relaxed)) < plan_.worklist.size();)
        run_queue(wk, ws, profiler, plan_.worklist[q], q);
      wk.queue_commits += wk.stats.commits - commits;
      wk.queue_retries += wk.stats.aborts - aborts;
      commits = wk.stats.commits, aborts = wk.stats.aborts;
      barrier_.arrive_and_wait();
      // Residual phase, under the protocol.
      txn.set_cc_free(false);
      if (plan_.tsdefer_residuals) {
        run_deferred(wk, ws, profiler, *tsdefer_r_, lanes_r_[wk.tid], BundleQueue::Mode::kWithCC, std::nullopt);
      } else if (plan_.residuals_round_robin) {
        for (size_t r = wk.tid; r < plan_.residuals.size(); r += cfg_.threads)
          execute(wk, ws, profiler, plan_.residuals[r]);
      } else {
        for (size_t r; (r = residual_next_.fetch_add(1, std::memory_order_relaxed)) < plan_.residuals.size();)
          execute(wk, ws, profiler, plan_.residuals[r]);
      }
      wk.residual_commits += wk.stats.commits - commits;
      wk.residual_retries += wk.stats.aborts - aborts;
      barrier_.arrive_and_wait();
    }
  }

  template <bool kProfile>
  void run_queue(Worker& wk, typename W::ThreadState& ws, AttemptProfiler<kProfile>& profiler, const BundleQueue& q,
                 uint64_t queue_id) {
    const bool cc_free = q.mode == BundleQueue::Mode::kWithoutCC;
    auto& txn = txn_of<kProfile>(wk);
    txn.set_cc_free(cc_free);
    for (uint32_t i : q.txns) {
      if (execute(wk, ws, profiler, i) && txn.log_enabled())
        wk.tags.push_back(verify::QueueTag{txn.id(), batch_seq_, queue_id, cc_free});
    }
  }

  // Runs the lane's transactions in the order TsDEFER picks (TSKD §5): an
  // aborted one is retried at once (inside execute), then regPos.
  template <bool kProfile>
  void run_deferred(Worker& wk, typename W::ThreadState& ws, AttemptProfiler<kProfile>& profiler, TsDefer& td,
                    const std::vector<uint32_t>& lane, BundleQueue::Mode mode, std::optional<uint64_t> queue_id) {
    const bool cc_free = mode == BundleQueue::Mode::kWithoutCC;
    auto& txn = txn_of<kProfile>(wk);
    txn.set_cc_free(cc_free);
    while (const std::optional<uint32_t> id = td.next(wk.tid, wk.rng)) {
      const uint32_t i = lane[*id];
      if (execute(wk, ws, profiler, i) && queue_id && txn.log_enabled())
        wk.tags.push_back(verify::QueueTag{txn.id(), batch_seq_, *queue_id, cc_free});
      td.reg_pos(wk.tid);
    }
  }

  // Runs transaction i of the batch until it commits (true) or aborts
  // logically (false).
  template <bool kProfile>
  bool execute(Worker& wk, typename W::ThreadState& ws, AttemptProfiler<kProfile>& profiler, uint32_t i) {
    const auto& req = batch_->requests[i];
    auto& txn = txn_of<kProfile>(wk);
    ThreadStats& st = wk.stats;
    // A transaction's latency runs from its batch's start (the header).
    const AttemptClock clock{measuring_, batch_start_ns_, measure_start_ns_, cfg_.timeline};
    for (uint32_t retries = 0;; ++retries) {
      const uint64_t attempt_start = record_costs_ ? now_ns() : 0;
      // A CC-free queue locks nothing up front (engine/exec/attempt.h).
      const TxnDesc* predicted = HasAcquireAll<CC> && !txn.cc_free() ? &batch_->descs[i] : nullptr;
      const RC rc = run_attempt(cc_, w_, txn, profiler, req, retries, false, predicted);
      if (rc == RC::kOk && record_costs_) exec_ns_[i] = now_ns() - attempt_start;  // this worker's slot only
      const Attempted outcome = finish_attempt(w_, ws, st, req, rc, clock);
      if (outcome == Attempted::kCommitted) return true;
      if (outcome == Attempted::kRolledBack) return false;  // rolled back by design: not retried
      if (rc == RC::kPredictionMismatch) {  // OLLP: to the next batch's analysis (§5.6.4)
        wk.deferred.push_back(i);
        return false;
      }
      profiler.backoff([&] { backoff_after_abort(cfg_, wk.rng, retries); });
    }
  }

  std::string frontend_json() const {
    JsonWriter w;
    const double batches = static_cast<double>(measured_batches_);
    const double per = batches > 0 ? 1.0 / batches : 0.0;
    const double total_ns = static_cast<double>(analysis_ns_ + queues_ns_ + residual_ns_);
    auto share = [&](uint64_t ns) { return total_ns > 0 ? static_cast<double>(ns) / total_ns : 0.0; };
    auto latency_ms = [&](const LatencyHistogram& h) {
      w.begin_object();
      w.key("avg").value(h.mean() / 1e6);
      w.key("p50").value(h.quantile(0.5) / 1e6);
      w.key("p99").value(h.quantile(0.99) / 1e6);
      w.key("max").value(static_cast<double>(h.max()) / 1e6);
      w.end_object();
    };
    w.begin_object();
    w.key("name").value(frontend_name_);
    w.key("executor").value("bundle");
    w.key("batch_size").value(batch_size_);
    w.key("distinct_batches").value(static_cast<uint64_t>(batches_.size()));
    frontend_.params_json(w);
    w.key("batches").value(measured_batches_);
    w.key("deferred_txns").value(deferred_total_);
    w.key("reconnaissance").begin_object();
    w.key("us_per_batch").value(static_cast<double>(recon_ns_) * 1e-3 * per);
    w.key("redescribed_per_batch").value(static_cast<double>(recon_redescribed_) * per);
    w.key("binding_us_per_batch").value(static_cast<double>(bind_ns_) * 1e-3 * per);
    w.key("rebound_per_batch").value(static_cast<double>(bind_rebound_) * per);
    w.key("demoted_per_batch").value(static_cast<double>(bind_demoted_) * per);
    w.end_object();
    w.key("phase_s").begin_object();
    w.key("analysis").value(analysis_ns_ * 1e-9);
    w.key("conflict_free").value(queues_ns_ * 1e-9);
    w.key("residual").value(residual_ns_ * 1e-9);
    w.end_object();
    w.key("phase_share").begin_object();
    w.key("analysis").value(share(analysis_ns_));
    w.key("conflict_free").value(share(queues_ns_));
    w.key("residual").value(share(residual_ns_));
    w.end_object();
    w.key("analysis_steps_us").begin_object();
    for (const Sum& s : step_sums_) w.key(s.name).value(s.total * per);
    w.end_object();
    w.key("per_batch").begin_object();
    w.key("worklist_queues").value(static_cast<double>(worklist_queues_) * per);
    w.key("residuals").value(static_cast<double>(residual_txns_) * per);
    for (const Sum& s : counter_sums_) w.key(s.name).value(s.total * per);
    w.end_object();
    {
      uint64_t qc = 0, qr = 0, rc = 0, rr = 0;
      for (const auto& wk : workers_) {
        qc += wk->queue_commits, qr += wk->queue_retries, rc += wk->residual_commits, rr += wk->residual_retries;
      }
      auto per_10k = [](uint64_t retries, uint64_t commits) {
        return commits ? static_cast<double>(retries) * 1e4 / static_cast<double>(commits) : 0.0;
      };
      w.key("retries_per_10k").begin_object();
      w.key("queues").value(per_10k(qr, qc));
      w.key("residuals").value(per_10k(rr, rc));
      w.end_object();
      if (tsdefer_q_) {
        TsDeferStats t = tsdefer_q_->total_stats();
        t.merge(tsdefer_r_->total_stats());
        write_tsdefer_stats(w, t, qc + rc);
      }
    }
    if (!estimate_fit_.empty()) {
      w.key("queue_estimates");
      estimate_fit_.to_json(w);
    }
    w.key("batch_latency_ms");
    latency_ms(batch_latency_);
    w.key("analysis_latency_ms");
    latency_ms(analysis_latency_);
    w.end_object();
    return w.str();
  }

  const EngineConfig& cfg_;
  CC& cc_;
  W& w_;
  BundleFrontend& frontend_;
  const uint32_t batch_size_;
  const std::string frontend_name_;
  std::vector<Batch> batches_;
  std::vector<typename W::Request> deferred_;  // coordinator: prediction mismatches for the next batch
  std::vector<std::unique_ptr<Worker>> workers_;

  // Written by the coordinator before the barrier that starts a batch's
  // queue phase, read by the workers after it (the barrier orders them).
  BundlePlan plan_;
  const Batch* batch_ = nullptr;
  uint64_t batch_seq_ = 0;
  uint64_t batch_start_ns_ = 0;
  uint64_t measure_start_ns_ = 0;  // the first measured batch's start (--timeline)
  bool measuring_ = false;
  bool stop_ = false;
  std::atomic<size_t> worklist_next_{0};
  std::atomic<size_t> residual_next_{0};
  bool record_costs_ = false;         // this batch: time each committing attempt into exec_ns_
  std::vector<uint64_t> exec_ns_;     // per batch index, written by the worker that ran it
  EstimateFit estimate_fit_;          // the plans' queue_estimates against the measured queue times
  std::vector<uint64_t> own_queues_ns_;  // scratch: this batch's Worker::own_queues_ns
  std::unique_ptr<TsDefer> tsdefer_q_, tsdefer_r_;     // queue / residual phase (front-end offers TsDEFER)
  std::vector<std::vector<uint32_t>> lanes_q_, lanes_r_;  // lane id -> batch index, per worker
  Random setup_rng_;                  // α-sampling of the TsDEFER sets (coordinator)

  uint64_t phase_step_ = 0;      // barrier completions so far (PhaseEnd)
  uint64_t phase_end_ns_[3]{};   // [0] batch start, [1] queue phase end, [2] residual phase end
  sim::Barrier<PhaseEnd> barrier_;  // std::barrier natively

  // Coordinator-only measurement of the measured batches.
  uint64_t measured_batches_ = 0;
  uint64_t analysis_ns_ = 0, queues_ns_ = 0, residual_ns_ = 0;
  uint64_t residual_txns_ = 0, worklist_queues_ = 0, deferred_total_ = 0;
  uint64_t recon_ns_ = 0, recon_redescribed_ = 0, recon_redescribed_batch_ = 0;
  uint64_t bind_ns_ = 0, bind_rebound_ = 0, bind_demoted_ = 0;  // queue binding (queue_binding.h)
  LatencyHistogram batch_latency_, analysis_latency_;
  std::vector<Sum> step_sums_, counter_sums_;
};

}  // namespace ccb
