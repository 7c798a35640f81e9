// The bundle executor (README.md, "Executors" (b)): batches of transaction
// descriptions, a front-end's plan per batch, three synchronous phases.
//
// Per batch (Strife §2, "Execution": analysis -> conflict-free -> residual,
// no overlap between batches), every phase on the same n = --threads
// workers (Strife §4: n threads are n cores in every phase; no coordinator
// thread, no analysis team of its own):
//   analysis   worker 0 (the coordinator) hands the batch's descriptions to
//              the front-end, which fills a BundlePlan (bundle_plan.h); its
//              parallel steps (BundleFrontend::for_chunks: Strife's prepare,
//              fuse, allocate; the OLLP reconnaissance) run on all n workers
//              (engine/core/phase_team.h), the others serving them until
//              worker 0 releases them into the queue phase.
//   queues     the workers run the plan's queues (per-thread first, then the
//              shared worklist); kWithoutCC queues run CC-free, kWithCC
//              queues under the binary's protocol. Then a barrier.
//   residual   the workers run the residuals under the protocol. Then a
//              barrier, and the next batch.
// Between phases the workers spin (the team's wait and the barrier,
// SpinWait natively: no futex sleep; a poll that never sleeps under sim).
// TSKD (partitioners/tspar): a plan may ask for round-robin residuals and
// for TsDEFER (bundle_plan.h); without a front-end that offers TsDEFER no
// TsDEFER state exists and each phase picks its loop once.
//
// The parts, each in its own file:
//   bundle_coordinator.h  worker 0's step between batches: each batch's
//                         analysis (the plan, TsDEFER's lanes, the sim's
//                         analysis charge), the release into its phases,
//                         and the measured interval
//   bundle_batches.h      the batches: generation, OLLP reconnaissance,
//                         queue binding, requests carried to the next batch
//   bundle_worker.h       a worker's queue and residual phases, retries and
//                         OLLP deferral
//   bundle_round.h        what the coordinator hands the workers per batch,
//                         the team and the phase barrier
//   bundle_report.h       the measured batches and the result's "frontend"
//                         object
// and here the run: the workers and the threads they run on.
//
// Measurement: a transaction's latency runs from the start of its batch's
// analysis (when the batch closed) to its commit; --timeline counts each
// commit in its second since the first measured batch's start.
//
// --profile (engine/stats/exec_profile.h): the workers' loop is instantiated
// with Txn<CC, true> and AttemptProfiler<true>; the analysis phase counts as
// analysis for every worker (its wall time x workers).
//
// The run's threads are engine/exec/runtime.h's, as the online executor's:
// the workers (pinned with --pin) and the epoch ticker, which worker 0 stops
// when it leaves; under sim (engine/sim/sim.h, docs/sim.md) fibers, the
// workers the virtual cores in tid order. Each worker counts its contended
// latch acquisitions from the first measured batch on (runtime.h).
//
// Thread safety: run() is called once, from one thread.
#pragma once

#include <exception>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/txn/protocol.h"
#include "engine/txn/txn.h"
#include "engine/config.h"
#include "engine/sim/sim.h"
#include "engine/exec/bundle_coordinator.h"
#include "engine/exec/bundle_plan.h"
#include "engine/exec/bundle_report.h"
#include "engine/exec/bundle_round.h"
#include "engine/exec/bundle_worker.h"
#include "engine/exec/frontend_spec.h"
#include "engine/exec/runtime.h"
#include "engine/exec/tsdefer.h"
#include "engine/stats/exec_profile.h"
#include "engine/workload.h"

namespace ccb {

template <class CC, class W>
  requires Protocol<CC> && Workload<W, CC>
class BundleExecutor {
 public:
  // REQUIRES: frontend.executor is kBundle, frontend.batch_size >= 1;
  // `planner` (the front-end that plans each batch) outlives run().
  BundleExecutor(const EngineConfig& cfg, CC& cc, W& workload, BundleFrontend& planner, FrontendSpec frontend)
      : cfg_(cfg),
        cc_(cc),
        w_(workload),
        frontend_(planner),
        spec_(std::move(frontend)),
        runtime_(cfg, cc),
        round_(cfg.threads),
        loop_(cfg, cc, workload, round_, runtime_),
        coordinator_(cfg, workload, planner, spec_, round_, workers_, report_) {
    planner.use_team(round_.team);  // the analysis runs on the workers
  }

  // kProfile: --profile (cfg.profile must match), chosen at the top
  // (run_online) like OnlineExecutor::run's.
  template <bool kProfile = false>
  RunOutcome<W> run() {
    check_executor_support<CC, W>(cfg_);
    check_profile_matches<kProfile>(cfg_);
    const int n = cfg_.threads;
    coordinator_.generate_batches();
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
    out.worker_cpus = runtime_.worker_cpus();
    // The workers; worker 0 stops the epoch ticker when it leaves (the run is over).
    runtime_.run(
        [&](int i) {
          run_worker<kProfile>(i, out);
          if (i == 0) runtime_.stop_ticking();
        },
        [] {});
    out.contended_latch_acquisitions = runtime_.contended_latch_acquisitions();
    if (error_) std::rethrow_exception(error_);
    for (auto& wk : workers_) {
      out.stats.merge(wk->stats);
      out.queue_tags.insert(out.queue_tags.end(), wk->tags.begin(), wk->tags.end());
    }
    if constexpr (kProfile)
      out.stats.profile.add_ns(ExecProfile::kAnalysis, report_.analysis_ns() * static_cast<uint64_t>(n));
    out.frontend_json = frontend_json();
    return out;
  }

 private:
  using Worker = BundleWorker<CC, W>;

  // Worker i's loop (bundle_worker.h); worker 0 leads with the
  // coordinator's step. An exception of the analysis (the coordinator has
  // released the others to leave) is kept for run() to rethrow.
  template <bool kProfile>
  void run_worker(int i, RunOutcome<W>& out) {
    try {
      loop_.template run<kProfile>(*workers_[i], out.workload_states[i], [&] { coordinator_.lead(out); });
    } catch (...) {
      if (i != 0) throw;  // only the lead step's exceptions are expected
      error_ = std::current_exception();
    }
  }

  // The result's "frontend" object (bundle_report.h), with the workers'
  // commits and retries per phase and both phases' TsDEFER counters.
  std::string frontend_json() const {
    BundleReport::PhaseCounts counts;
    for (const auto& wk : workers_) {
      counts.queue_commits += wk->queue_commits, counts.queue_retries += wk->queue_retries;
      counts.residual_commits += wk->residual_commits, counts.residual_retries += wk->residual_retries;
      counts.queue_wait_ns += wk->queue_wait_ns, counts.residual_wait_ns += wk->residual_wait_ns;
    }
    std::optional<TsDeferStats> tsdefer;
    if (round_.tsdefer_q) {
      tsdefer = round_.tsdefer_q->total_stats();
      tsdefer->merge(round_.tsdefer_r->total_stats());
    }
    return report_.json(spec_, coordinator_.distinct_batches(), frontend_, counts, tsdefer);
  }

  const EngineConfig& cfg_;
  CC& cc_;
  W& w_;
  BundleFrontend& frontend_;
  const FrontendSpec spec_;
  std::vector<std::unique_ptr<Worker>> workers_;
  BundleReport report_;
  Runtime<CC> runtime_;  // the run's threads (runtime.h); lock-service protocols never run here (rundb/run.h)
  BundleRound<W> round_;
  BundleWorkerLoop<CC, W> loop_;
  BundleCoordinator<CC, W> coordinator_;
  std::exception_ptr error_;  // the analysis's exception (run_worker), rethrown by run()
};

}  // namespace ccb
