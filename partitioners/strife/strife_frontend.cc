#include "partitioners/strife/strife_frontend.h"

#include <algorithm>
#include <numeric>

#include "engine/core/json.h"

namespace ccb::strife {

const char* spot_mode_name(SpotMode mode) { return mode == SpotMode::kAll ? "all" : "sample"; }

void StrifeFrontend::plan(std::span<const TxnDesc> batch, BundlePlan& plan) {
  Plan& clusters = clusters_;
  clusterer_.cluster(batch, clusters);
  // The worklist is popped in index order (engine/exec/bundle_worker.h), so
  // the largest cluster goes first: a large cluster popped last would run
  // alone on one core at the end of the conflict-free phase (§2: "A skew in
  // cluster sizes may reduce concurrency"). Stable: ties keep batch order.
  std::vector<uint32_t>& order = order_;
  order.resize(clusters.num_queues());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return clusters.queue(a).size() > clusters.queue(b).size();
  });
  // Each cluster into a queue buffer the plan kept from earlier batches; §2:
  // CF clusters run without CC.
  for (uint32_t q : order) {
    const auto txns = clusters.queue(q);
    plan.add_to_worklist(BundleQueue::Mode::kWithoutCC).txns.assign(txns.begin(), txns.end());
  }
  // Swapped, not copied: the clusterer's next batch reuses the executor's
  // (cleared) residual buffer, and the other way round.
  plan.residuals.swap(clusters.residuals);
  const Stats& s = clusters.stats;
  plan.step_us = {{"prepare", s.time_us.prepare},
                  {"spot", s.time_us.spot},
                  {"fuse", s.time_us.fuse},
                  {"merge", s.time_us.merge},
                  {"allocate", s.time_us.allocate}};
  plan.counters = {{"spot_clusters", s.spot_clusters},
                   {"special_clusters", s.special_clusters},
                   {"cf_clusters", s.cf_clusters},
                   {"merges", s.merges},
                   {"multi_special_txns", s.multi_special_txns},
                   {"active_items", double(s.active_items)},
                   {"largest_cluster", s.largest_cluster},
                   {"smallest_cluster", s.smallest_cluster},
                   {"fallback_clusters", s.fallback_clusters},
                   {"fallback_txns", s.fallback_txns}};
}

void StrifeFrontend::params_json(JsonWriter& w) const {
  w.key("strife_k").value(options_.k);
  w.key("strife_alpha").value(options_.alpha);
  w.key("strife_spot").value(spot_mode_name(options_.spot));
  w.key("strife_fallback").value(options_.max_cluster_fraction);
  w.key("analysis_threads").value(options_.threads);
}

std::unique_ptr<BundleFrontend> make_frontend(FrontendContext& ctx) { return std::make_unique<StrifeFrontend>(ctx.strife); }

}  // namespace ccb::strife
