// Helpers shared by the reorder tests: random graphs and independent
// reference checks (written differently from the library on purpose:
// adjacency matrices and recursive DFS instead of CSR, peeling and Tarjan).
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "partitioners/reorder/graph.h"

namespace ccb::reorder::testing {

using Edges = std::vector<std::pair<uint32_t, uint32_t>>;

// Dense adjacency matrix of g.
inline std::vector<std::vector<bool>> adjacency(const DepGraph& g) {
  std::vector<std::vector<bool>> adj(g.num_nodes, std::vector<bool>(g.num_nodes, false));
  for (uint32_t v = 0; v < g.num_nodes; ++v) {
    for (uint32_t w : g.out(v)) adj[v][w] = true;
  }
  return adj;
}

// Does the subgraph of the nodes with keep[v] contain a cycle? Three-colour
// recursive DFS on the matrix (graphs here are tiny).
inline bool has_cycle(const std::vector<std::vector<bool>>& adj, const std::vector<bool>& keep) {
  const size_t n = adj.size();
  std::vector<int> colour(n, 0);  // 0 white, 1 on path, 2 done
  auto dfs = [&](auto&& self, size_t v) -> bool {
    colour[v] = 1;
    for (size_t w = 0; w < n; ++w) {
      if (!adj[v][w] || !keep[w]) continue;
      if (colour[w] == 1) return true;
      if (colour[w] == 0 && self(self, w)) return true;
    }
    colour[v] = 2;
    return false;
  };
  for (size_t v = 0; v < n; ++v) {
    if (keep[v] && colour[v] == 0 && dfs(dfs, v)) return true;
  }
  return false;
}

// Size of a minimum FVS: every subset of vertices, smallest first found.
inline uint32_t brute_force_min_fvs(const DepGraph& g) {
  const auto adj = adjacency(g);
  const uint32_t n = g.num_nodes;
  uint32_t best = n;
  for (uint64_t mask = 0; mask < (uint64_t{1} << n); ++mask) {
    const uint32_t size = static_cast<uint32_t>(__builtin_popcountll(mask));
    if (size >= best) continue;
    std::vector<bool> keep(n);
    for (uint32_t v = 0; v < n; ++v) keep[v] = ((mask >> v) & 1) == 0;
    if (!has_cycle(adj, keep)) best = size;
  }
  return best;
}

// A random graph on n nodes where each ordered pair is an edge with
// probability p.
inline DepGraph random_graph(std::mt19937_64& rng, uint32_t n, double p) {
  std::bernoulli_distribution coin(p);
  Edges edges;
  for (uint32_t a = 0; a < n; ++a) {
    for (uint32_t b = 0; b < n; ++b) {
      if (a != b && coin(rng)) edges.emplace_back(a, b);
    }
  }
  return DepGraph::from_edges(n, edges);
}

}  // namespace ccb::reorder::testing
