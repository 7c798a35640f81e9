// A partitioner (partitioning.h) as a front-end of the bundle executor: the
// partitioner baselines of TSKD §6.1 (STRIFE as --frontend=strife-static,
// SCHISM, HORTICULTURE; TSKD §2: "Each partition is executed serially by a
// dedicated thread", CC-free partitions first, then R with CC).
//
// Plan of a bundle: worker i runs P_i serially as one kWithoutCC per-thread
// queue (TSKD §6.1: the thread-local buffer of thread i is initialized with
// partition i), then the workers run R under the binary's protocol. P_i may
// run without CC because R holds every transaction in conflict with another
// partition (residual.h), so no two queues conflict; --verify checks this
// (cc_free check). [INF: the paper runs the TSKD instances with CC and calls
// that "in favor of the baselines", i.e. the baselines' partitions run
// CC-free.]
//
// Reported per bundle: step "partition" (Partitioning::partition_us) and the
// counters part_min / part_max (transactions in the smallest / largest
// partition); the executor averages them per batch and reports |R| itself
// (per_batch.residuals).
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

class PartitionerFrontend final : public BundleFrontend {
 public:
  // REQUIRES: parts >= 1 (the executor's worker count).
  PartitionerFrontend(std::unique_ptr<Partitioner> partitioner, unsigned parts)
      : partitioner_(std::move(partitioner)), parts_(parts) {}
  void plan(std::span<const TxnDesc> batch, BundlePlan& plan) override;
  void params_json(JsonWriter& w) const override;
  // On the partitioner's threads (Strife's team), else serially.
  void for_chunks(size_t n, const std::function<void(size_t, size_t)>& body) override {
    partitioner_->for_chunks(n, body);
  }
  void lend_threads(sim::LentThreads& out) override { partitioner_->lend_threads(out); }
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
