// Validator reordering of one batch, end to end (Ding et al. §3.2, §4, §4.3):
// pre-validation -> dependency graph (with the optional edge limit) -> FVS
// -> commit order. The entry point an executor calls per batch.
//
// Thread safety: reentrant; no shared state. One call per batch.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/core/txn_desc.h"
#include "partitioners/reorder/fvs.h"
#include "partitioners/reorder/graph.h"

namespace ccb::reorder {

struct ReorderOptions {
  FvsConfig fvs;
  // More edges than this: the graph is discarded and the viable transactions
  // are validated in arrival order (the longer version's dense-graph cut-off).
  uint64_t max_graph_edges = kUnlimitedEdges;
  // Return the dependency graph in ReorderResult::graph (callers that record
  // the pre-validated graphs, e.g. bench_fvs --source=validator).
  bool keep_graph = false;
};

// All indices are positions in the batch.
struct ReorderResult {
  std::vector<uint32_t> commit_order;  // validate in this order
  std::vector<uint32_t> abort_set;     // the FVS: abort these
  std::vector<uint32_t> nonviable;     // removed by pre-validation: abort these
  bool edge_limit_hit = false;         // no reordering was done
  bool search_capped = false;          // see FvsResult::search_capped
  uint64_t graph_nodes = 0;            // viable transactions
  uint64_t graph_edges = 0;            // 0 when edge_limit_hit
  // With ReorderOptions::keep_graph and no edge limit hit: the graph the FVS
  // was computed on; node v = the v-th batch position not in nonviable.
  DepGraph graph;
};

// Reorders the transactions with viable[i] != 0 (all when viable is empty).
// reads: see graph.h (empty: RS = read_set ∪ write_set).
// REQUIRES: viable.empty() || viable.size() == batch.size(); same for reads.
// Throws std::invalid_argument on a bad options.fvs (see validate()).
ReorderResult reorder_batch(std::span<const TxnDesc> batch, std::span<const ObservedReads> reads,
                            std::span<const uint8_t> viable, const ReorderOptions& options);

// Pre-validation against the validator cache (§4.3), then reorder_batch.
template <typename LatestVersion>
ReorderResult prevalidate_and_reorder(std::span<const TxnDesc> batch,
                                      std::span<const ObservedReads> reads,
                                      const LatestVersion& latest_version,
                                      const ReorderOptions& options) {
  const std::vector<uint8_t> viable = prevalidate(reads, latest_version);
  return reorder_batch(batch, reads, viable, options);
}

}  // namespace ccb::reorder
