// The bundle executor's measurement of its measured batches
// (bundle_executor.h, the overview) and the result's "frontend" object built
// from it (docs/results.md, docs/result.schema.json): the phases' times and
// shares (of the measured interval: with --partition_time=outside the
// analysis phase holds no input partitioning and no TSKD schedule,
// bundle_coordinator.h), the input partitioning's and TSKD's schedule's
// total times (TSgen's and overheadR too) and where they counted, the
// analysis steps and counters the front-end reports per batch
// (BundlePlan::step_us, counters; TsDEFER's lane set-up as the step
// "tsdefer_setup"), the OLLP reconnaissance and queue binding per batch, the
// retries per phase, TsDEFER's counters, the plans' queue estimates against
// the measured queue times (engine/stats/estimate_fit.h), and the latencies
// of a batch and of its analysis.
//
// Thread safety: the coordinator's alone (it records each batch after the
// batch's last barrier; the executor writes the object after the run).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/json.h"
#include "engine/exec/bundle_plan.h"
#include "engine/exec/frontend_spec.h"
#include "engine/exec/queue_binding.h"
#include "engine/exec/tsdefer.h"
#include "engine/stats/estimate_fit.h"
#include "engine/stats/histogram.h"

namespace ccb {

class BundleReport {
 public:
  // One measured batch as the coordinator timed it (its clock's ns).
  struct Batch {
    uint64_t start_ns = 0;          // the analysis starts (the batch closed)
    uint64_t analysis_end_ns = 0;   // the plan bound and, under sim, charged
    uint64_t bind_start_ns = 0;     // the queue binding starts (after plan())
    uint64_t setup_ns = 0;          // TsDEFER's lanes, counted as analysis
    uint64_t release_ns = 0;        // the workers released into the queue phase
    uint64_t queues_end_ns = 0;     // the queue phase's barrier
    uint64_t residuals_end_ns = 0;  // the residual phase's barrier
    uint64_t recon_ns = 0;          // OLLP reconnaissance
    uint64_t redescribed = 0;       // requests it described again
    QueueBindingStats bound;
    uint64_t deferred = 0;  // prediction mismatches moved to the next batch
    uint64_t partition_ns = 0;  // the input partitioner's (BundlePlan::input_partition_ns), in the analysis
    uint64_t excluded_ns = 0;   // of it and of an input schedule, kept out of the measured interval
                                // (--partition_time=outside, bundle_coordinator.h)
    uint64_t excluded_setup_ns = 0;  // TsDEFER's lanes of an input schedule, kept out (of setup_ns)
    uint64_t schedule_ns = 0;   // an input schedule's (BundlePlan::schedule_ns) with its TsDEFER lanes
    uint64_t tsgen_ns = 0;      // of it, TSgen's (BundlePlan::tsgen_ns)
    uint64_t tsgen_host_ns = 0, partition_host_ns = 0;  // overheadR's, on the host's clock (BundlePlan)
    uint64_t analysis_busy_ns = 0;  // the workers but the leader, inside the analysis's parallel loops
  };
  // The measured commits and conflict aborts (retries) of each phase, all workers.
  struct PhaseCounts {
    uint64_t queue_commits = 0, queue_retries = 0, residual_commits = 0, residual_retries = 0;
    uint64_t queue_wait_ns = 0, residual_wait_ns = 0;  // at each phase's closing barrier (BundleWorker)
  };

  // Adds a measured batch run by `plan` (its step_us and counters as the
  // front-end and the coordinator filled them) on `threads` workers.
  void add_batch(const Batch& b, const BundlePlan& plan, int threads) {
    ++measured_batches_;
    recon_ns_ += b.recon_ns;
    recon_redescribed_ += b.redescribed;
    bind_ns_ += b.analysis_end_ns - b.bind_start_ns;
    bind_rebound_ += b.bound.rebound;
    bind_demoted_ += b.bound.demoted;
    const uint64_t analysis = b.analysis_end_ns - b.start_ns + b.setup_ns - b.excluded_ns - b.excluded_setup_ns;
    analysis_ns_ += analysis;
    // The analysis's idle worker time: the leader is never idle (it runs the
    // serial steps and its share of the chunks); the others are, outside
    // the chunks they ran. (With --partition_time=outside their chunks of
    // the excluded partitioning count as busy: the idle time is clamped.)
    const uint64_t others = analysis * static_cast<uint64_t>(threads - 1);
    analysis_wait_ns_ += others > b.analysis_busy_ns ? others - b.analysis_busy_ns : 0;
    partition_ns_ += b.partition_ns;
    schedule_ns_ += b.schedule_ns;
    tsgen_ns_ += b.tsgen_ns;
    tsgen_host_ns_ += b.tsgen_host_ns;
    partition_host_ns_ += b.partition_host_ns;
    input_schedule_ = input_schedule_ || plan.input_schedule;
    queues_ns_ += b.queues_end_ns - b.release_ns;
    residual_ns_ += b.residuals_end_ns - b.queues_end_ns;
    batch_latency_.record(b.residuals_end_ns - b.start_ns - b.excluded_ns - b.excluded_setup_ns);
    analysis_latency_.record(b.analysis_end_ns - b.start_ns - b.excluded_ns);
    add_sums(step_sums_, plan.step_us);
    add_sums(counter_sums_, plan.counters);
    residual_txns_ += plan.residuals.size();
    deferred_total_ += b.deferred;
    worklist_queues_ += plan.worklist.size();
  }

  // Scores a measured plan's queue estimates against the time each worker's
  // own queues took.
  void fit_estimates(std::span<const double> estimates, std::span<const uint64_t> own_queues_ns) {
    estimate_fit_.add_batch(estimates, own_queues_ns);
  }

  uint64_t measured_batches() const { return measured_batches_; }
  uint64_t analysis_ns() const { return analysis_ns_; }  // all measured batches

  // The result's "frontend" object. `tsdefer`: the TsDEFER counters of both
  // phases, where the front-end offers TsDEFER.
  std::string json(const FrontendSpec& spec, size_t distinct_batches, const BundleFrontend& frontend,
                   const PhaseCounts& counts, const std::optional<TsDeferStats>& tsdefer) const {
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
    w.key("name").value(spec.name);
    w.key("executor").value("bundle");
    w.key("batch_size").value(spec.batch_size);
    w.key("distinct_batches").value(static_cast<uint64_t>(distinct_batches));
    frontend.params_json(w);
    w.key("partition_time").value(partition_time_name(spec.partition_time));
    // The input partitioning's total over the measured batches: inside
    // phase_s.analysis with "inside", outside the measured interval otherwise.
    w.key("partition_s").value(partition_ns_ * 1e-9);
    // An input schedule's (TSKD's): its total, outside the measured interval
    // with "outside", inside phase_s.analysis otherwise; of it TSgen's, and
    // TSKD §6.2's overheadR = TSgen's runtime / the partitioning time, both
    // on the host's clock (BundlePlan::tsgen_host_ns; natively tsgen_s /
    // partition_s; null without a partitioner: TSKD[O]).
    if (input_schedule_) {
      w.key("schedule_s").value(schedule_ns_ * 1e-9);
      w.key("tsgen_s").value(tsgen_ns_ * 1e-9);
      if (partition_host_ns_ > 0)
        w.key("overhead_r").value(static_cast<double>(tsgen_host_ns_) / static_cast<double>(partition_host_ns_));
      else
        w.key("overhead_r").value(nullptr);
    }
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
    // The workers' idle time per phase (summed over workers) and the cores
    // it leaves idle on average (idle time / phase time): in the analysis the
    // workers but the leader outside its parallel loops' chunks, in the two
    // execution phases the waits at the phase's closing barrier.
    const uint64_t waits[3] = {analysis_wait_ns_, counts.queue_wait_ns, counts.residual_wait_ns};
    const uint64_t phases[3] = {analysis_ns_, queues_ns_, residual_ns_};
    const char* names[3] = {"analysis", "conflict_free", "residual"};
    w.key("worker_wait_s").begin_object();
    for (int p = 0; p < 3; ++p) w.key(names[p]).value(waits[p] * 1e-9);
    w.end_object();
    w.key("idle_cores").begin_object();
    for (int p = 0; p < 3; ++p) w.key(names[p]).value(phases[p] ? static_cast<double>(waits[p]) / phases[p] : 0.0);
    w.end_object();
    w.key("analysis_steps_us").begin_object();
    for (const Sum& s : step_sums_) w.key(s.name).value(s.total * per);
    w.end_object();
    w.key("per_batch").begin_object();
    w.key("worklist_queues").value(static_cast<double>(worklist_queues_) * per);
    w.key("residuals").value(static_cast<double>(residual_txns_) * per);
    for (const Sum& s : counter_sums_) w.key(s.name).value(s.total * per);
    w.end_object();
    auto per_10k = [](uint64_t retries, uint64_t commits) {
      return commits ? static_cast<double>(retries) * 1e4 / static_cast<double>(commits) : 0.0;
    };
    w.key("retries_per_10k").begin_object();
    w.key("queues").value(per_10k(counts.queue_retries, counts.queue_commits));
    w.key("residuals").value(per_10k(counts.residual_retries, counts.residual_commits));
    w.end_object();
    if (tsdefer) write_tsdefer_stats(w, *tsdefer, counts.queue_commits + counts.residual_commits);
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

 private:
  // A named analysis step's time or counter, summed over the measured batches.
  struct Sum {
    std::string name;
    double total = 0;
  };

  static void add_sums(std::vector<Sum>& sums, const std::vector<std::pair<std::string, double>>& values) {
    for (const auto& [name, v] : values) {
      auto it = std::find_if(sums.begin(), sums.end(), [&](const Sum& s) { return s.name == name; });
      if (it == sums.end()) sums.push_back(Sum{name, v});
      else it->total += v;
    }
  }

  static const char* partition_time_name(FrontendSpec::PartitionTime t) {
    switch (t) {
      case FrontendSpec::PartitionTime::kOutside: return "outside";
      case FrontendSpec::PartitionTime::kScheduleInside: return "schedule-inside";
      case FrontendSpec::PartitionTime::kInside: return "inside";
    }
    return "?";
  }

  uint64_t measured_batches_ = 0;
  uint64_t analysis_ns_ = 0, queues_ns_ = 0, residual_ns_ = 0;  // the measured interval's phases
  uint64_t analysis_wait_ns_ = 0;  // the analysis's idle worker time (add_batch)
  uint64_t partition_ns_ = 0;  // the input partitioning, wherever it counts
  uint64_t schedule_ns_ = 0, tsgen_ns_ = 0;  // an input schedule's (with its TsDEFER lanes), TSgen's
  uint64_t tsgen_host_ns_ = 0, partition_host_ns_ = 0;  // overheadR's (host clock)
  bool input_schedule_ = false;             // some measured plan had one (TSKD)
  uint64_t residual_txns_ = 0, worklist_queues_ = 0, deferred_total_ = 0;
  uint64_t recon_ns_ = 0, recon_redescribed_ = 0;
  uint64_t bind_ns_ = 0, bind_rebound_ = 0, bind_demoted_ = 0;  // queue binding (queue_binding.h)
  LatencyHistogram batch_latency_, analysis_latency_;
  std::vector<Sum> step_sums_, counter_sums_;
  EstimateFit estimate_fit_;  // the plans' queue_estimates against the measured queue times
};

}  // namespace ccb
