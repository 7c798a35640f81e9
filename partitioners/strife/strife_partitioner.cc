#include "partitioners/strife/strife_partitioner.h"

#include <algorithm>
#include <chrono>
#include <numeric>

namespace ccb::strife {

void StrifePartitioner::partition(std::span<const TxnDesc> bundle, unsigned parts, Partitioning& out) {
  const auto start = std::chrono::steady_clock::now();
  const Plan plan = clusterer_.cluster(bundle);
  out.parts.assign(parts, {});
  std::vector<uint32_t> order(plan.num_queues());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return plan.queue(a).size() > plan.queue(b).size(); });
  for (uint32_t q : order) {
    auto smallest = std::min_element(out.parts.begin(), out.parts.end(),
                                     [](const auto& a, const auto& b) { return a.size() < b.size(); });
    const auto txns = plan.queue(q);
    smallest->insert(smallest->end(), txns.begin(), txns.end());
  }
  out.residual = plan.residuals;
  out.partition_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace ccb::strife
