// Dependency graph construction, pre-validation, trimming and Tarjan SCC.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <unordered_map>

#include "partitioners/reorder/graph.h"
#include "tests/reorder/test_util.h"

namespace ccb::reorder {
namespace {

using testing::Edges;

TxnDesc txn(std::vector<GlobalKey> reads, std::vector<GlobalKey> writes) {
  TxnDesc t;
  t.read_set = std::move(reads);
  t.write_set = std::move(writes);
  return t;
}

std::vector<uint32_t> out_of(const DepGraph& g, uint32_t v) {
  return {g.out(v).begin(), g.out(v).end()};
}
std::vector<uint32_t> in_of(const DepGraph& g, uint32_t v) {
  auto s = g.in(v);
  std::vector<uint32_t> r(s.begin(), s.end());
  std::sort(r.begin(), r.end());
  return r;
}

TEST(DependencyGraph, EdgeFromReaderToWriter) {
  // t0 reads x, t1 writes x: t0 -> t1 (t0 must be validated before t1).
  const std::vector<TxnDesc> batch{txn({1}, {}), txn({}, {1})};
  const DepGraph g = build_dependency_graph(batch).graph;
  ASSERT_EQ(g.num_nodes, 2u);
  EXPECT_EQ(g.num_edges(), 1u);
  EXPECT_EQ(out_of(g, 0), (std::vector<uint32_t>{1}));
  EXPECT_EQ(in_of(g, 1), (std::vector<uint32_t>{0}));
}

TEST(DependencyGraph, ObservedReadsAreTheReadSetAndEdgesAreDeduplicated) {
  // With observed reads, only those keys are probed: t1's blind write of 7
  // does not read 7. t0 reads 1 and 2, both written by t1: one edge.
  const std::vector<TxnDesc> batch{txn({1, 2}, {7}), txn({}, {1, 2, 7})};
  const std::vector<ObservedReads> reads{{{1, 0}, {2, 0}}, {}};
  const DepGraph g = build_dependency_graph(batch, reads).graph;
  EXPECT_EQ(g.num_edges(), 1u);
  EXPECT_EQ(out_of(g, 0), (std::vector<uint32_t>{1}));
  EXPECT_TRUE(g.out(1).empty());
}

TEST(DependencyGraph, WithoutObservedReadsWritesCountAsReads) {
  // Both write key 5 (read-modify-write by default): a 2-cycle, no self-loop.
  const std::vector<TxnDesc> batch{txn({}, {5}), txn({}, {5}), txn({9}, {})};
  const DepGraph g = build_dependency_graph(batch).graph;
  EXPECT_EQ(g.num_edges(), 2u);
  EXPECT_EQ(out_of(g, 0), (std::vector<uint32_t>{1}));
  EXPECT_EQ(out_of(g, 1), (std::vector<uint32_t>{0}));
  EXPECT_TRUE(g.out(2).empty());
}

TEST(DependencyGraph, MembersSelectSubsetAndCarryAttributes) {
  std::vector<TxnDesc> batch{txn({1}, {}), txn({}, {2}), txn({2}, {1})};
  batch[2].restarts = 4;
  batch[2].priority = 2.5;
  const std::vector<uint32_t> members{2, 0};  // node 0 = txn 2, node 1 = txn 0
  const DepGraph g = build_dependency_graph(batch, {}, members).graph;
  ASSERT_EQ(g.num_nodes, 2u);
  // txn 0 reads 1, txn 2 writes 1: node 1 -> node 0. txn 1 is left out.
  EXPECT_EQ(out_of(g, 1), (std::vector<uint32_t>{0}));
  EXPECT_EQ(g.num_edges(), 1u);
  EXPECT_EQ(g.restarts[0], 4u);
  EXPECT_EQ(g.priority[0], 2.5);
}

TEST(DependencyGraph, MatchesPairwiseDefinitionOnRandomBatches) {
  std::mt19937_64 rng(7);
  for (int iter = 0; iter < 200; ++iter) {
    std::uniform_int_distribution<GlobalKey> key(0, 30);
    std::vector<TxnDesc> batch(12);
    for (auto& t : batch) {
      for (int i = 0; i < 3; ++i) t.read_set.push_back(key(rng));
      for (int i = 0; i < 2; ++i) t.write_set.push_back(key(rng));
    }
    const DepGraph g = build_dependency_graph(batch).graph;
    const auto adj = testing::adjacency(g);
    for (size_t a = 0; a < batch.size(); ++a) {
      for (size_t b = 0; b < batch.size(); ++b) {
        bool expect = false;  // WS(b) ∩ (read_set(a) ∪ write_set(a)) ≠ ∅
        for (GlobalKey w : batch[b].write_set) {
          for (GlobalKey r : batch[a].read_set) expect = expect || r == w;
          for (GlobalKey r : batch[a].write_set) expect = expect || r == w;
        }
        EXPECT_EQ(adj[a][b], a != b && expect) << "edge " << a << " -> " << b;
      }
    }
  }
}

TEST(DependencyGraph, EdgeLimitFiresOnlyAboveTheLimit) {
  // Four read-modify-writes of one key: the complete graph, 12 edges.
  const std::vector<TxnDesc> batch(4, txn({}, {3}));
  const GraphBuild at = build_dependency_graph(batch, {}, {}, 12);
  EXPECT_FALSE(at.edge_limit_hit);
  EXPECT_EQ(at.graph.num_edges(), 12u);
  const GraphBuild above = build_dependency_graph(batch, {}, {}, 11);
  EXPECT_TRUE(above.edge_limit_hit);
  EXPECT_EQ(above.graph.num_nodes, 0u);
}

TEST(DependencyGraph, FromEdgesRejectsBadEdges) {
  const Edges loop{{1, 1}};
  EXPECT_THROW(DepGraph::from_edges(3, loop), std::invalid_argument);
  const Edges out_of_range{{0, 3}};
  EXPECT_THROW(DepGraph::from_edges(3, out_of_range), std::invalid_argument);
  const Edges dup{{0, 1}, {0, 1}};
  EXPECT_EQ(DepGraph::from_edges(2, dup).num_edges(), 1u);
}

TEST(DependencyGraph, RejectsReadsOfTheWrongLength) {
  const std::vector<TxnDesc> batch(2, txn({1}, {}));
  const std::vector<ObservedReads> reads(1);
  EXPECT_THROW(build_dependency_graph(batch, reads), std::invalid_argument);
}

TEST(PreValidation, StaleReadsAreNonViable) {
  // Validator cache: key -> latest committed version.
  const std::unordered_map<GlobalKey, uint64_t> cache{{1, 5}, {2, 3}};
  auto latest = [&](GlobalKey k) -> uint64_t {
    auto it = cache.find(k);
    return it == cache.end() ? 0 : it->second;
  };
  const std::vector<ObservedReads> reads{
      {{1, 5}, {2, 3}},  // read the latest versions: viable
      {{1, 4}},          // version 5 of key 1 committed after it read 4
      {{9, 0}},          // key never written: viable
      {},                // no reads (blind writer): viable
      {{2, 3}, {1, 2}},  // second read stale
  };
  EXPECT_EQ(prevalidate(reads, latest), (std::vector<uint8_t>{1, 0, 1, 1, 0}));
}

TEST(Trim, RemovesExactlyTheVerticesOffEveryCycle) {
  // Cycle 0 -> 1 -> 2 -> 0, a tail 3 -> 0 and 2 -> 4 -> 5, and 6 alone.
  const Edges e{{0, 1}, {1, 2}, {2, 0}, {3, 0}, {2, 4}, {4, 5}};
  const DepGraph g = DepGraph::from_edges(7, e);
  ResidualGraph rg(g);
  EXPECT_EQ(rg.trim(), 4u);
  EXPECT_EQ(rg.alive_nodes(), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(rg.in_degree(0), 1u);  // the edge from 3 is gone
  rg.remove(1);
  EXPECT_EQ(rg.trim(), 2u);  // 0 and 2 no longer lie on a cycle
  EXPECT_EQ(rg.size(), 0u);
}

TEST(Tarjan, MatchesMutualReachabilityOnRandomGraphs) {
  std::mt19937_64 rng(11);
  for (int iter = 0; iter < 300; ++iter) {
    const uint32_t n = 1 + rng() % 12;
    const DepGraph g = testing::random_graph(rng, n, 0.05 + (rng() % 30) / 100.0);
    std::vector<uint8_t> alive(n);
    for (auto& a : alive) a = rng() % 5 != 0;
    const Sccs s = strongly_connected_components(g, alive);
    // Reference: transitive closure (Floyd-Warshall) over alive vertices.
    auto reach = testing::adjacency(g);
    for (uint32_t v = 0; v < n; ++v) reach[v][v] = true;
    for (uint32_t k = 0; k < n; ++k) {
      for (uint32_t i = 0; i < n; ++i) {
        for (uint32_t j = 0; j < n; ++j) {
          if (alive[k] && alive[i] && alive[j] && reach[i][k] && reach[k][j]) reach[i][j] = true;
        }
      }
    }
    uint32_t alive_count = 0;
    for (uint32_t v = 0; v < n; ++v) {
      alive_count += alive[v];
      EXPECT_EQ(s.component[v] == kNoComponent, !alive[v]);
    }
    EXPECT_EQ(s.members.size(), alive_count);
    for (uint32_t a = 0; a < n; ++a) {
      for (uint32_t b = 0; b < n; ++b) {
        if (!alive[a] || !alive[b]) continue;
        const bool together = s.component[a] == s.component[b];
        EXPECT_EQ(together, reach[a][b] && reach[b][a]) << a << " " << b;
      }
    }
  }
}

TEST(Tarjan, DeepGraphDoesNotRecurse) {
  // One cycle through 500k vertices: a recursive Tarjan would need a call
  // stack 500k frames deep.
  const uint32_t n = 500000;
  Edges e;
  for (uint32_t v = 0; v < n; ++v) e.emplace_back(v, (v + 1) % n);
  const DepGraph g = DepGraph::from_edges(n, e);
  const std::vector<uint8_t> alive(n, 1);
  const Sccs s = strongly_connected_components(g, alive);
  ASSERT_EQ(s.count(), 1u);
  EXPECT_EQ(s.members_of(0).size(), n);
}

}  // namespace
}  // namespace ccb::reorder
