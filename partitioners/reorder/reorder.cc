#include "partitioners/reorder/reorder.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace ccb::reorder {

ReorderResult reorder_batch(std::span<const TxnDesc> batch, std::span<const ObservedReads> reads,
                            std::span<const uint8_t> viable, const ReorderOptions& options) {
  validate(options.fvs);
  if (!viable.empty() && viable.size() != batch.size()) {
    throw std::invalid_argument("reorder_batch: viable has " + std::to_string(viable.size()) +
                                " entries, batch has " + std::to_string(batch.size()));
  }
  ReorderResult result;
  std::vector<uint32_t> members;  // graph node -> batch position
  for (uint32_t i = 0; i < batch.size(); ++i) {
    if (viable.empty() || viable[i]) {
      members.push_back(i);
    } else {
      result.nonviable.push_back(i);
    }
  }
  result.graph_nodes = members.size();
  if (members.empty()) return result;

  GraphBuild build = build_dependency_graph(batch, reads, members, options.max_graph_edges);
  if (build.edge_limit_hit) {
    result.edge_limit_hit = true;
    result.commit_order = members;  // arrival order, no reordering
    return result;
  }
  result.graph_edges = build.graph.num_edges();
  const FvsResult fvs = find_fvs(build.graph, options.fvs);
  result.search_capped = fvs.search_capped;
  for (uint32_t v : fvs.fvs) result.abort_set.push_back(members[v]);
  for (uint32_t v : commit_order(build.graph, fvs.fvs)) result.commit_order.push_back(members[v]);
  if (options.keep_graph) result.graph = std::move(build.graph);
  return result;
}

}  // namespace ccb::reorder
