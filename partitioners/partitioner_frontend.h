// A partitioner (partitioning.h) as a front-end of the bundle executor: the
// partitioner baselines of TSKD §6.1 (STRIFE as --frontend=strife-static,
// SCHISM, HORTICULTURE), and the call of an input partitioner that every
// front-end over one makes (partition_input: TSKD's too).
//
// Plan of a bundle: worker i runs P_i serially as one per-thread queue (TSKD
// §6.1: the thread-local buffer of thread i is initialized with partition i;
// §3: "Each partition is executed serially by a dedicated thread"), then the
// workers run the partitioner's own residual R under the binary's protocol.
//   - A partitioner with an explicit residual (Strife) leaves P_1..P_k
//     mutually conflict-free: they run without CC (TSKD §3, "executing
//     CC-free partitions without CC first, and then executing R with CC
//     after all CC-free partitions complete" [36] = Strife); --verify's
//     cc_free check confirms it.
//   - A partitioner without one (Schism, Horticulture) gives partitions that
//     may conflict: they run concurrently under the binary's protocol, the
//     same CC as TSKD's queues (TSKD §3 "partitions are executed
//     concurrently with CC"; Fig. 4i reports the baselines' retries), and
//     there is no residual phase: TSKD's residual extraction (§6.1) is
//     TSKD's step (partitioners/tspar), not the baselines'.
//
// Reported per bundle: step "partition" (Partitioning::partition_us),
// BundlePlan::input_partition_ns (the executor excludes it from the measured
// interval with --partition_time=outside, engine/exec/bundle_coordinator.h)
// and the counters part_min / part_max (transactions in the smallest /
// largest partition); the executor averages them per batch and reports |R|
// itself (per_batch.residuals).
//
// Thread safety: one caller at a time (the executor's coordinator).
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <utility>

#include "engine/exec/bundle_plan.h"
#include "partitioners/frontend_factory.h"
#include "partitioners/partitioning.h"

namespace ccb {

// Runs the input partitioner of a front-end's plan on `batch` into `out`
// (cleared first) with k = `parts` partitions, and records its time on the
// executor's clock (now_ns: virtual under sim) in plan.input_partition_ns
// (TSKD §4: the partitioner's plan is TSKD's input; §6's overheadR divides by
// it; plan.input_partition_host_ns: the same on the host's steady clock, for
// overheadR). Fills out.partition_us from that time where the partitioner left it 0.
// Throws std::logic_error if the partitioner returns another number of
// partitions, or a residual although it gives none (gives_residual()).
void partition_input(Partitioner& partitioner, std::span<const TxnDesc> batch, unsigned parts, Partitioning& out,
                     BundlePlan& plan);

class PartitionerFrontend final : public BundleFrontend {
 public:
  // REQUIRES: parts >= 1 (the executor's worker count).
  PartitionerFrontend(std::unique_ptr<Partitioner> partitioner, unsigned parts)
      : partitioner_(std::move(partitioner)), parts_(parts) {}
  void plan(std::span<const TxnDesc> batch, BundlePlan& plan) override;
  void params_json(JsonWriter& w) const override;
  // The executor's workers, for the partitioner's parallel steps too.
  void use_team(PhaseTeam& team) override {
    BundleFrontend::use_team(team);
    partitioner_->use_team(team);
  }
  Partitioner& partitioner() { return *partitioner_; }

 private:
  std::unique_ptr<Partitioner> partitioner_;
  unsigned parts_;
  Partitioning partitioning_;  // reused across batches
};

// TSKD §6.1's partitioner baselines (partitioners/frontends.txt: strife-static,
// schism, horticulture): the line's partition into k = --threads parts, one
// per worker (TSKD §2: "Each partition is executed serially by a dedicated
// thread"). REQUIRES: a partition field other than '-' (std::logic_error
// otherwise).
std::unique_ptr<BundleFrontend> make_partitioner_frontend(FrontendContext& ctx);

}  // namespace ccb
