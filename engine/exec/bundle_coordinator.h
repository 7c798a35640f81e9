// The bundle executor's coordinator (bundle_executor.h, the overview), run
// by worker 0 between batches (lead()): it has the batches generated
// (bundle_batches.h), analyses each one on the workers (the round's
// PhaseTeam, engine/core/phase_team.h: worker 0 leads, the others serve the
// parallel loops of the analysis until it releases them into the queue
// phase; Strife §4), and measures it (bundle_report.h). The workers
// (bundle_worker.h) end each execution phase at the round's barrier
// (bundle_round.h).
//
// Analysis of a batch, on worker 0 with the parallel loops on all workers
// (BundleFrontend::for_chunks; Strife's clustering steps): the requests whose
// OLLP prediction failed in the previous batch join it, OLLP reconnaissance
// (bundle_batches.h; reported as "reconnaissance": µs and requests described
// again, per measured batch), the front-end's plan() of the descriptions
// into a BundlePlan (bundle_plan.h), checked under --verify only (the check
// is O(batch) on worker 0 alone), the binding of position-dependent
// predictions in the CC-free queues (bundle_batches.h; reported in
// "reconnaissance" too: µs, transactions bound and moved), and, with a plan
// that asks for TsDEFER (TSKD, partitioners/tspar), the lanes of the two
// TsDEFER instances (one for the queue phase, one for the residual phase;
// Replay::kNo), built on the team (a lane per chunk) and assigned before the
// release (the "tsdefer_setup" step).
// Under sim (engine/sim/sim.h, docs/sim.md) the analysis costs virtual time
// by a model, charged after the front-end's plan(): one index probe (the cost
// table's index_probe) per key of each description, on all workers through
// for_chunks when the plan ran parallel loops (Strife), else on worker 0
// alone, deterministic, unlike the plan's native duration.
//
// The input partitioning (--partition_time, FrontendSpec::PartitionTime):
// a plan reports the time its input partitioner took
// (BundlePlan::input_partition_ns, on now_ns's clock, virtual under sim).
// With kOutside (the TSKD paper's measurement: the partitioner's plan is an
// input, §4; TSgen's overhead is a ratio to its time, §6) that time is kept
// out of the measured interval: subtracted from measured_s, from the
// analysis phase and from the batch's and its transactions' latencies (they
// start when the partition is there), and under sim a plan that is the input
// partition as it is (BundlePlan::input_as_is: the partitioner baselines) is
// not charged the analysis model, which otherwise models the whole plan();
// the harness fits that model's factor to the native analysis without the
// partitioning. The run's length (--duration) stays wall (or virtual) time,
// partitioning included, so a slow partitioner shortens the measured
// interval instead of lengthening the run. With kInside the partitioning
// is analysis, inside the interval. Either way the result reports the
// partitioning's total time (frontend.partition_s).
// Front-ends that want a cost history (wants_costs) get, after each warm-up
// batch, the duration of every transaction's committing attempt. Plans with
// queue_estimates are scored against the time each worker's own queues took.
//
// Measurement: batches run during --warmup, then the measured interval is a
// whole number of batches (at least one): until --duration has passed, or
// until --measure_txns commits. The workload's optional on_measure_start()
// (runtime.h) is called then, before that batch's analysis; a
// workload whose requests change with time fixes each request's form for its
// batch in its reconnaissance (HOT, workloads/hot/hot.h), so that plans stay
// exact.
//
// Thread safety: one coordinator per run, on worker 0's thread; what it
// shares with the workers is the round's (bundle_round.h), handed over by the
// team's release and the round's barrier.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/core/clock.h"
#include "engine/core/local_work.h"  // charge_analysis_probes
#include "engine/core/random.h"
#include "engine/sim/sim.h"
#include "engine/exec/bundle_batches.h"
#include "engine/exec/bundle_plan.h"
#include "engine/exec/bundle_report.h"
#include "engine/exec/bundle_round.h"
#include "engine/exec/bundle_worker.h"
#include "engine/exec/frontend_spec.h"
#include "engine/exec/runtime.h"  // RunOutcome, HasMeasureClock
#include "engine/exec/tsdefer.h"

namespace ccb {

template <class CC, class W>
class BundleCoordinator {
 public:
  using Worker = BundleWorker<CC, W>;

  // Creates the round's TsDEFER instances if the front-end offers TsDEFER.
  // REQUIRES: every argument outlives the coordinator; spec.batch_size >= 1.
  BundleCoordinator(const EngineConfig& cfg, W& workload, BundleFrontend& frontend, const FrontendSpec& spec,
                    BundleRound<W>& round, const std::vector<std::unique_ptr<Worker>>& workers, BundleReport& report)
      : cfg_(cfg),
        w_(workload),
        frontend_(frontend),
        spec_(spec),
        round_(round),
        workers_(workers),
        report_(report),
        batches_(cfg, workload, spec.batch_size) {
    setup_rng_ = Random(seed_for(cfg.seed, uint64_t{3} << 32));  // a stream apart from batches and workers
    if (const TsDeferOptions* o = frontend_.tsdefer()) {
      round_.tsdefer_q = std::make_unique<TsDefer>(*o, cfg.threads);
      round_.tsdefer_r = std::make_unique<TsDefer>(*o, cfg.threads);
      round_.lanes_q.resize(cfg.threads);
      round_.lanes_r.resize(cfg.threads);
    }
  }

  void generate_batches() { batches_.generate(); }
  size_t distinct_batches() const { return batches_.distinct(); }

  // Worker 0's step between two batches (BundleWorkerLoop::run's lead()):
  // the bookkeeping of the batch just run (none before the first), then,
  // unless the measured interval is over, the next batch's analysis; either
  // way the team's release, which starts the batch's queue phase or lets
  // the workers leave (round.stop). If either step throws, the workers are
  // released to leave and the exception propagates.
  void lead(RunOutcome<W>& out) {
    try {
      if (current_ != nullptr) finish_batch();
      if (start_batch(out)) {
        round_.team.release();
        return;
      }
    } catch (...) {
      round_.stop = true;
      round_.team.release();
      throw;
    }
    round_.stop = true;
    round_.team.release();  // the workers see stop and leave
    out.measured_s = (measure_end_ - measure_start_ - excluded_ns_) * 1e-9;
  }

 private:
  // Starts batch seq_: the measured interval's start and end, then its
  // analysis and the round's fields for its phases. False: the run is over.
  bool start_batch(RunOutcome<W>& out) {
    const uint64_t t0 = now_ns();
    if (seq_ == 0) {
      t_start_ = t0;
      warmup_end_ = t_start_ + static_cast<uint64_t>(cfg_.warmup_s * 1e9);
    }
    if (!round_.measuring && t0 >= warmup_end_) {
      round_.measuring = true;
      measure_start_ = round_.measure_start_ns = t0;  // the workers read it after the release
      out.warmup_s = (t0 - t_start_) * 1e-9;
      if constexpr (HasMeasureClock<W>) w_.on_measure_start(t0);  // before this batch's reconnaissance
    }
    if (round_.measuring && report_.measured_batches() > 0) {
      const bool done = cfg_.measure_txns > 0 ? measured_commits_ >= cfg_.measure_txns
                                              : (t0 - measure_start_) * 1e-9 >= cfg_.duration_s;
      if (done) return false;
    }
    current_ = &batches_.for_seq(seq_);
    timing_ = BundleReport::Batch{};
    timing_.start_ns = t0;
    const uint64_t busy_before = team_busy_ns();
    analyse(*current_, timing_);
    timing_.analysis_busy_ns = team_busy_ns() - busy_before;
    prepare_phases(*current_, seq_, timing_);
    return true;
  }

  // After the batch's residual phase (every worker passed its barrier): its
  // prediction mismatches set aside for the next batch, its measurement.
  void finish_batch() {
    BundleBatch<W>& batch = *current_;
    current_ = nullptr;
    if (round_.record_costs) frontend_.observe_costs(batch.descs, round_.exec_ns);
    for (auto& wk : workers_) {
      batches_.defer(batch, wk->deferred);
      wk->deferred.clear();
    }
    batches_.trim(batch);  // drop the deferred transactions that joined this batch
    timing_.queues_end_ns = round_.phase_end_ns[0];
    timing_.residuals_end_ns = round_.phase_end_ns[1];
    timing_.deferred = batches_.deferred();
    ++seq_;
    if (!round_.measuring) return;
    measure_end_ = timing_.residuals_end_ns;
    excluded_ns_ += timing_.excluded_ns;
    if (round_.tsdefer_q) round_.plan.step_us.emplace_back("tsdefer_setup", timing_.setup_ns * 1e-3);
    report_.add_batch(timing_, round_.plan, cfg_.threads);
    if (!round_.plan.queue_estimates.empty()) {
      own_queues_ns_.clear();
      for (const auto& wk : workers_) own_queues_ns_.push_back(wk->own_queues_ns);
      report_.fit_estimates(round_.plan.queue_estimates, own_queues_ns_);
    }
    measured_commits_ = 0;
    for (auto& wk : workers_) measured_commits_ += wk->stats.commits;
  }

  // The time the team's members other than the leader spent in chunks so
  // far (the analysis's parallel loops).
  uint64_t team_busy_ns() const {
    uint64_t ns = 0;
    for (size_t m = 1; m < round_.team.size(); ++m) ns += round_.team.busy_ns(m);
    return ns;
  }

  // The batch's analysis (the header), into the round's plan.
  void analyse(BundleBatch<W>& batch, BundleReport::Batch& timing) {
    // Transactions whose prediction failed in the previous batch join this
    // one; reconnaissance predicts again (both part of the analysis).
    batches_.add_deferred(batch);
    timing.recon_ns = batches_.reconnoiter(batch, frontend_, timing.redescribed);
    BundlePlan& plan = round_.plan;
    plan.clear();
    plan.per_thread.resize(cfg_.threads);
    const uint64_t loops = round_.team.loops();
    frontend_.plan(batch.descs, plan);
    const bool parallel_plan = round_.team.loops() != loops;
    timing.partition_ns = plan.input_partition_ns;
    const bool outside = spec_.partition_time == FrontendSpec::PartitionTime::kOutside;
    if (outside) timing.excluded_ns = plan.input_partition_ns;
    timing.bind_start_ns = now_ns();
    timing.bound = batches_.bind_queue_positions(batch, plan);
    // Under sim only: natively the plan's own time is the analysis's.
    if (sim::in_fiber() && !(outside && plan.input_as_is)) charge_analysis(batch, parallel_plan);
    timing.analysis_end_ns = now_ns();
    // The plan's check is O(batch) on the leader alone: only under --verify.
    if (cfg_.verify)
      if (const std::string bad = plan.validate(batch.descs.size(), cfg_.threads); !bad.empty())
        throw std::logic_error("front-end " + spec_.name + ": " + bad);
    if ((plan.tsdefer_queues || plan.tsdefer_residuals) && !round_.tsdefer_q)
      throw std::logic_error("front-end " + spec_.name + " asks for TsDEFER but offers no TsDEFER options");
    timing.setup_ns = setup_tsdefer(batch);
  }

  // The round's fields for the analysed batch's phases (the release that
  // follows hands them to the workers).
  void prepare_phases(BundleBatch<W>& batch, uint64_t seq, BundleReport::Batch& timing) {
    round_.record_costs = !round_.measuring && frontend_.wants_costs();
    if (round_.record_costs) round_.exec_ns.assign(batch.descs.size(), 0);
    round_.batch = &batch;
    round_.seq = seq;
    round_.start_ns = timing.start_ns + timing.excluded_ns;  // with kOutside the batch starts partitioned
    round_.worklist_next.store(0, std::memory_order_relaxed);
    round_.residual_next.store(0, std::memory_order_relaxed);
    timing.release_ns = now_ns();
  }

  // Under sim: the analysis's virtual time (the header's model), one index
  // probe per key of each description, scaled by the "analysis" work type's
  // factor (fitted by the harness to the native analysis time per batch); on
  // the workers in parallel when the plan ran parallel loops on them
  // (`parallel`: Strife's clustering, its partition), else on worker 0 alone.
  void charge_analysis(const BundleBatch<W>& batch, bool parallel) {
    const uint32_t analysis = sim::analysis_work_type();
    auto charge = [&](size_t begin, size_t end) {
      const sim::ScopedWorkType scope(analysis);
      for (size_t i = begin; i < end; ++i)
        charge_analysis_probes(batch.descs[i].read_set.size() + batch.descs[i].write_set.size());
    };
    if (parallel) frontend_.for_chunks(batch.descs.size(), charge);
    else charge(0, batch.descs.size());
  }

  // TsDEFER's lanes for this batch (workers serving the team, so no lookup
  // reads a lane while it changes); returns the ns spent. The lanes' sets
  // are built on the team (issue 45 item 4), one lane per chunk: lane 2t is
  // thread t's queue lane, 2t+1 its residual lane, each with a seed drawn
  // here in lane order, so the α-samples do not depend on who builds them.
  uint64_t setup_tsdefer(const BundleBatch<W>& batch) {
    if (!round_.tsdefer_q) return 0;
    const uint64_t start = now_ns();
    const int n = cfg_.threads;
    const BundlePlan& plan = round_.plan;
    const double accuracy = round_.tsdefer_q->options().accuracy;
    lane_seeds_.resize(2 * static_cast<size_t>(n));
    for (int t = 0; t < n; ++t) {
      round_.lanes_q[t].clear();
      if (plan.tsdefer_queues && t < static_cast<int>(plan.per_thread.size()) && !plan.per_thread[t].empty())
        round_.lanes_q[t] = plan.per_thread[t][0].txns;
      round_.lanes_r[t].clear();
      if (plan.tsdefer_residuals)
        for (size_t r = t; r < plan.residuals.size(); r += n) round_.lanes_r[t].push_back(plan.residuals[r]);
    }
    for (uint64_t& seed : lane_seeds_) seed = setup_rng_.next();
    round_.team.run(lane_seeds_.size(), [&](size_t, size_t lane) {
      const int t = static_cast<int>(lane / 2);
      TsDefer& td = lane % 2 == 0 ? *round_.tsdefer_q : *round_.tsdefer_r;
      const std::vector<uint32_t>& txns = lane % 2 == 0 ? round_.lanes_q[t] : round_.lanes_r[t];
      if (txns.empty()) return td.clear(t);
      Random rng(lane_seeds_[lane]);
      std::vector<TsDeferSet> sets;
      sets.reserve(txns.size());
      for (uint32_t i : txns)
        sets.push_back(accuracy < 1.0 ? TsDeferSet::from_desc(batch.descs[i], accuracy, rng)
                                      : TsDeferSet::from_sorted_desc(batch.descs[i]));
      td.assign(t, std::move(sets), TsDefer::Replay::kNo);
    });
    return now_ns() - start;
  }

  const EngineConfig& cfg_;
  W& w_;
  BundleFrontend& frontend_;
  const FrontendSpec& spec_;
  BundleRound<W>& round_;
  const std::vector<std::unique_ptr<Worker>>& workers_;
  BundleReport& report_;
  BundleBatches<W> batches_;
  std::vector<uint64_t> own_queues_ns_;  // scratch: a measured batch's Worker::own_queues_ns
  Random setup_rng_;                     // the TsDEFER lanes' seeds (their α-sampling)
  std::vector<uint64_t> lane_seeds_;     // this batch's, one per lane
  // The run's progress between lead() calls.
  uint64_t seq_ = 0;                       // the next batch's sequence number
  BundleBatch<W>* current_ = nullptr;      // the batch released to the workers, until finish_batch
  BundleReport::Batch timing_;             // its timing
  uint64_t t_start_ = 0, warmup_end_ = 0;  // the first batch's start, the warm-up's end
  uint64_t measure_start_ = 0, measure_end_ = 0, measured_commits_ = 0;
  uint64_t excluded_ns_ = 0;  // the measured batches' input partitioning with kOutside (the header)
};

}  // namespace ccb
