// Dependency graph of a validator batch, pre-validation, trimming and SCCs
// (Ding et al., PVLDB 2018, §3.2, §4 and §4.3 "Pre-validation").
//
// Node i of a graph is the i-th member of the batch it was built from (not
// TxnDesc::id). An edge t' -> t means WS(t) ∩ RS(t') ≠ ∅: t' read something
// that t writes, so t' must be validated (serialized) before t.
//
// Read sets. A validation request carries the keys and versions of the
// transaction's reads (§5); when those ObservedReads are given, they are
// RS(t). TxnDesc alone does not say which written keys were also read, so
// without ObservedReads RS(t) = read_set ∪ write_set (every write counted as
// a read-modify-write: safe, since it can only add edges).
//
// Thread safety: all types are plain values; functions are reentrant.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/core/txn_desc.h"

namespace ccb::reorder {

// One read as the validator sees it: the key and the version (commit
// timestamp of the writer; 0 = initial load) that the transaction read.
struct ReadVersion {
  GlobalKey key = 0;
  uint64_t version = 0;
};
// All reads of one transaction, including read-modify-write keys.
using ObservedReads = std::vector<ReadVersion>;

inline constexpr uint64_t kUnlimitedEdges = std::numeric_limits<uint64_t>::max();

// Directed graph in compressed adjacency form (out- and in-edges), plus the
// per-node attributes that policies use. Invariants: no self-loops, no
// duplicate edges, out_start/in_start have num_nodes + 1 entries.
struct DepGraph {
  uint32_t num_nodes = 0;
  std::vector<uint32_t> out_start, out_adj;
  std::vector<uint32_t> in_start, in_adj;
  std::vector<uint32_t> restarts;  // TxnDesc::restarts per node
  std::vector<double> priority;    // TxnDesc::priority per node

  uint64_t num_edges() const { return out_adj.size(); }
  std::span<const uint32_t> out(uint32_t v) const {
    return {out_adj.data() + out_start[v], out_adj.data() + out_start[v + 1]};
  }
  std::span<const uint32_t> in(uint32_t v) const {
    return {in_adj.data() + in_start[v], in_adj.data() + in_start[v + 1]};
  }

  // A graph from an explicit edge list (tests, hand-built examples).
  // Duplicate edges are merged; restarts = 0 and priority = 0 for all nodes.
  // Throws std::invalid_argument on a self-loop or a node id >= n.
  static DepGraph from_edges(uint32_t n, std::span<const std::pair<uint32_t, uint32_t>> edges);
};

struct GraphBuild {
  DepGraph graph;               // empty when edge_limit_hit
  bool edge_limit_hit = false;  // more than max_edges edges: graph discarded
};

// Builds the dependency graph of txns[members[0]], txns[members[1]], ...
// (all of txns when members is empty) by hashing the write sets and probing
// with the read sets (§4). Construction stops as soon as the graph would have
// more than max_edges edges (the longer version's dense-graph cut-off).
// REQUIRES: reads.empty() || reads.size() == txns.size(); members in range.
GraphBuild build_dependency_graph(std::span<const TxnDesc> txns,
                                  std::span<const ObservedReads> reads = {},
                                  std::span<const uint32_t> members = {},
                                  uint64_t max_edges = kUnlimitedEdges);

// Pre-validation (§4.3): a transaction is non-viable when a read of key X at
// version k meets a later committed write, i.e. latest_version(X) > k.
// latest_version is the validator cache lookup: the latest committed version
// of a key, 0 for a key never written. Returns viable[i] ∈ {0, 1}.
template <typename LatestVersion>
  requires std::invocable<const LatestVersion&, GlobalKey> &&
           std::convertible_to<std::invoke_result_t<const LatestVersion&, GlobalKey>, uint64_t>
std::vector<uint8_t> prevalidate(std::span<const ObservedReads> reads,
                                 const LatestVersion& latest_version) {
  std::vector<uint8_t> viable(reads.size(), 1);
  for (size_t i = 0; i < reads.size(); ++i) {
    for (const ReadVersion& r : reads[i]) {
      if (static_cast<uint64_t>(latest_version(r.key)) > r.version) {
        viable[i] = 0;
        break;
      }
    }
  }
  return viable;
}

// The graph that remains while an FVS algorithm removes vertices: an alive
// mask plus in/out degrees counted over alive vertices only.
// REQUIRES: the DepGraph outlives the ResidualGraph (it keeps a reference).
class ResidualGraph {
 public:
  explicit ResidualGraph(const DepGraph& g);

  const DepGraph& graph() const { return g_; }
  bool alive(uint32_t v) const { return alive_[v] != 0; }
  std::span<const uint8_t> alive_mask() const { return alive_; }
  uint32_t size() const { return alive_count_; }
  uint32_t in_degree(uint32_t v) const { return in_deg_[v]; }
  uint32_t out_degree(uint32_t v) const { return out_deg_[v]; }
  std::vector<uint32_t> alive_nodes() const;

  // REQUIRES: alive(v). Removes v and its edges.
  void remove(uint32_t v);
  // §4: repeatedly removes vertices that have no incoming and/or no outgoing
  // edges; they cannot lie on a cycle. Returns how many were removed.
  uint32_t trim();

 private:
  const DepGraph& g_;
  std::vector<uint8_t> alive_;
  std::vector<uint32_t> in_deg_, out_deg_;
  std::vector<uint32_t> pending_;  // vertices whose in or out degree hit 0
  uint32_t alive_count_ = 0;
};

inline constexpr uint32_t kNoComponent = std::numeric_limits<uint32_t>::max();

// Strongly connected components of the alive subgraph, members grouped by
// component: component c is members[start[c] .. start[c+1]).
struct Sccs {
  std::vector<uint32_t> component;  // per node; kNoComponent if not alive
  std::vector<uint32_t> members;
  std::vector<uint32_t> start;
  uint32_t count() const { return static_cast<uint32_t>(start.size()) - 1; }
  std::span<const uint32_t> members_of(uint32_t c) const {
    return {members.data() + start[c], members.data() + start[c + 1]};
  }
};

// Tarjan's algorithm (§4.1), iterative: an explicit frame stack instead of
// recursion, so graph size is not limited by the call-stack depth. Keeps its
// buffers between calls (the SCC-based greedy runs it once per round).
// Not thread-safe: one finder per thread.
class SccFinder {
 public:
  // REQUIRES: alive.size() == g.num_nodes. The result lives until the next run.
  const Sccs& run(const DepGraph& g, std::span<const uint8_t> alive);

 private:
  struct Frame {
    uint32_t v;
    uint32_t next_edge;  // position in out_adj
  };
  Sccs sccs_;
  std::vector<uint32_t> index_, low_, stack_;
  std::vector<uint8_t> on_stack_;
  std::vector<Frame> frames_;
};

// One-shot form of SccFinder::run.
Sccs strongly_connected_components(const DepGraph& g, std::span<const uint8_t> alive);

}  // namespace ccb::reorder
