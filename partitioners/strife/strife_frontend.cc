#include "partitioners/strife/strife_frontend.h"

#include "engine/core/json.h"

namespace ccb::strife {

void StrifeFrontend::plan(std::span<const TxnDesc> batch, BundlePlan& plan) {
  const Plan clusters = clusterer_.cluster(batch);
  plan.worklist.resize(clusters.num_queues());
  for (size_t q = 0; q < clusters.num_queues(); ++q) {
    const auto txns = clusters.queue(q);
    plan.worklist[q].mode = BundleQueue::Mode::kWithoutCC;  // §2: CF clusters run without CC
    plan.worklist[q].txns.assign(txns.begin(), txns.end());
  }
  plan.residuals = clusters.residuals;
  const Stats& s = clusters.stats;
  plan.step_us = {{"prepare", s.time_us.prepare},
                  {"spot", s.time_us.spot},
                  {"fuse", s.time_us.fuse},
                  {"merge", s.time_us.merge},
                  {"allocate", s.time_us.allocate}};
  plan.counters = {{"spot_clusters", s.spot_clusters},   {"special_clusters", s.special_clusters},
                   {"cf_clusters", s.cf_clusters},       {"merges", s.merges},
                   {"multi_special_txns", s.multi_special_txns}, {"active_items", double(s.active_items)}};
}

void StrifeFrontend::params_json(JsonWriter& w) const {
  w.key("strife_k").value(options_.k);
  w.key("strife_alpha").value(options_.alpha);
  w.key("analysis_threads").value(options_.threads);
}

std::unique_ptr<BundleFrontend> make_frontend(FrontendContext& ctx) { return std::make_unique<StrifeFrontend>(ctx.strife); }

}  // namespace ccb::strife
