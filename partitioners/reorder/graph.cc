#include "partitioners/reorder/graph.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

namespace ccb::reorder {
namespace {

// Fills in_start/in_adj from out_start/out_adj (counting sort by target).
void build_in_edges(DepGraph& g) {
  const uint32_t n = g.num_nodes;
  g.in_start.assign(n + 1, 0);
  for (uint32_t w : g.out_adj) ++g.in_start[w + 1];
  for (uint32_t v = 0; v < n; ++v) g.in_start[v + 1] += g.in_start[v];
  g.in_adj.resize(g.out_adj.size());
  std::vector<uint32_t> fill(g.in_start.begin(), g.in_start.end() - 1);
  for (uint32_t v = 0; v < n; ++v) {
    for (uint32_t w : g.out(v)) g.in_adj[fill[w]++] = v;
  }
}

uint64_t mix64(uint64_t x) {  // splitmix64 finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Open-addressing hash table: write key -> range [begin, end) of its writers
// in a key-sorted array. Flat arrays only (the probe loop is the hot path).
class WriterIndex {
 public:
  // pairs: (key, writer node) sorted by key, then node.
  explicit WriterIndex(const std::vector<std::pair<GlobalKey, uint32_t>>& pairs) {
    size_t distinct = 0;
    for (size_t i = 0; i < pairs.size(); ++i) {
      if (i == 0 || pairs[i].first != pairs[i - 1].first) ++distinct;
    }
    const size_t cap = std::bit_ceil(std::max<size_t>(2 * distinct, 8));
    mask_ = cap - 1;
    keys_.resize(cap);
    begin_.assign(cap, kEmpty);
    end_.resize(cap);
    writers_.resize(pairs.size());
    for (size_t i = 0; i < pairs.size(); ++i) {
      writers_[i] = pairs[i].second;
      if (i > 0 && pairs[i].first == pairs[i - 1].first) continue;
      size_t s = mix64(pairs[i].first) & mask_;
      while (begin_[s] != kEmpty) s = (s + 1) & mask_;
      keys_[s] = pairs[i].first;
      begin_[s] = static_cast<uint32_t>(i);
      size_t j = i + 1;
      while (j < pairs.size() && pairs[j].first == pairs[i].first) ++j;
      end_[s] = static_cast<uint32_t>(j);
    }
  }

  std::span<const uint32_t> writers_of(GlobalKey key) const {
    for (size_t s = mix64(key) & mask_; begin_[s] != kEmpty; s = (s + 1) & mask_) {
      if (keys_[s] == key) return {writers_.data() + begin_[s], writers_.data() + end_[s]};
    }
    return {};
  }

 private:
  static constexpr uint32_t kEmpty = std::numeric_limits<uint32_t>::max();
  size_t mask_ = 0;
  std::vector<GlobalKey> keys_;
  std::vector<uint32_t> begin_, end_, writers_;
};

}  // namespace

DepGraph DepGraph::from_edges(uint32_t n, std::span<const std::pair<uint32_t, uint32_t>> edges) {
  std::vector<std::pair<uint32_t, uint32_t>> sorted(edges.begin(), edges.end());
  for (auto [a, b] : sorted) {
    if (a >= n || b >= n) {
      throw std::invalid_argument("DepGraph::from_edges: edge (" + std::to_string(a) + ", " +
                                  std::to_string(b) + ") names a node >= n = " + std::to_string(n));
    }
    if (a == b) {
      throw std::invalid_argument("DepGraph::from_edges: self-loop on node " + std::to_string(a) +
                                  " (a transaction never depends on itself)");
    }
  }
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  DepGraph g;
  g.num_nodes = n;
  g.restarts.assign(n, 0);
  g.priority.assign(n, 0.0);
  g.out_start.assign(n + 1, 0);
  for (auto [a, b] : sorted) ++g.out_start[a + 1];
  for (uint32_t v = 0; v < n; ++v) g.out_start[v + 1] += g.out_start[v];
  g.out_adj.reserve(sorted.size());
  for (auto [a, b] : sorted) g.out_adj.push_back(b);  // sorted by source already
  build_in_edges(g);
  return g;
}

GraphBuild build_dependency_graph(std::span<const TxnDesc> txns,
                                  std::span<const ObservedReads> reads,
                                  std::span<const uint32_t> members, uint64_t max_edges) {
  if (!reads.empty() && reads.size() != txns.size()) {
    throw std::invalid_argument("build_dependency_graph: reads has " +
                                std::to_string(reads.size()) + " entries, txns has " +
                                std::to_string(txns.size()) + "; give one per txn or none");
  }
  std::vector<uint32_t> all;
  if (members.empty()) {
    all.resize(txns.size());
    for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
    members = all;
  }
  const uint32_t n = static_cast<uint32_t>(members.size());

  // Hash the write sets (§4: "a hash table from the write sets").
  std::vector<std::pair<GlobalKey, uint32_t>> writes;
  for (uint32_t v = 0; v < n; ++v) {
    for (GlobalKey k : txns[members[v]].write_set) writes.emplace_back(k, v);
  }
  std::sort(writes.begin(), writes.end());
  const WriterIndex index(writes);

  GraphBuild result;
  DepGraph& g = result.graph;
  g.num_nodes = n;
  g.out_start.assign(n + 1, 0);
  std::vector<uint32_t> last_source(n, std::numeric_limits<uint32_t>::max());
  // Probe with the read set of each t' (= source); every writer t of a key
  // t' read gives the edge t' -> t, each pair once.
  auto probe = [&](uint32_t src, GlobalKey key) {
    for (uint32_t w : index.writers_of(key)) {
      if (w == src || last_source[w] == src) continue;
      last_source[w] = src;
      g.out_adj.push_back(w);
    }
    return g.out_adj.size() <= max_edges;
  };
  for (uint32_t v = 0; v < n; ++v) {
    const TxnDesc& t = txns[members[v]];
    bool within = true;
    if (!reads.empty()) {
      for (const ReadVersion& r : reads[members[v]]) within = within && probe(v, r.key);
    } else {
      for (GlobalKey k : t.read_set) within = within && probe(v, k);
      for (GlobalKey k : t.write_set) within = within && probe(v, k);
    }
    if (!within) {
      result.graph = DepGraph{};
      result.edge_limit_hit = true;
      return result;
    }
    g.out_start[v + 1] = static_cast<uint32_t>(g.out_adj.size());
  }
  build_in_edges(g);
  g.restarts.resize(n);
  g.priority.resize(n);
  for (uint32_t v = 0; v < n; ++v) {
    g.restarts[v] = txns[members[v]].restarts;
    g.priority[v] = txns[members[v]].priority;
  }
  return result;
}

ResidualGraph::ResidualGraph(const DepGraph& g)
    : g_(g), alive_(g.num_nodes, 1), in_deg_(g.num_nodes), out_deg_(g.num_nodes),
      alive_count_(g.num_nodes) {
  for (uint32_t v = 0; v < g.num_nodes; ++v) {
    in_deg_[v] = g.in_start[v + 1] - g.in_start[v];
    out_deg_[v] = g.out_start[v + 1] - g.out_start[v];
    if (in_deg_[v] == 0 || out_deg_[v] == 0) pending_.push_back(v);
  }
}

std::vector<uint32_t> ResidualGraph::alive_nodes() const {
  std::vector<uint32_t> nodes;
  nodes.reserve(alive_count_);
  for (uint32_t v = 0; v < g_.num_nodes; ++v) {
    if (alive_[v]) nodes.push_back(v);
  }
  return nodes;
}

void ResidualGraph::remove(uint32_t v) {
  alive_[v] = 0;
  --alive_count_;
  for (uint32_t w : g_.out(v)) {
    if (alive_[w] && --in_deg_[w] == 0) pending_.push_back(w);
  }
  for (uint32_t u : g_.in(v)) {
    if (alive_[u] && --out_deg_[u] == 0) pending_.push_back(u);
  }
}

uint32_t ResidualGraph::trim() {
  uint32_t removed = 0;
  while (!pending_.empty()) {
    const uint32_t v = pending_.back();
    pending_.pop_back();
    if (alive_[v] && (in_deg_[v] == 0 || out_deg_[v] == 0)) {
      remove(v);
      ++removed;
    }
  }
  return removed;
}

const Sccs& SccFinder::run(const DepGraph& g, std::span<const uint8_t> alive) {
  constexpr uint32_t kUnvisited = std::numeric_limits<uint32_t>::max();
  const uint32_t n = g.num_nodes;
  Sccs& out = sccs_;
  out.component.assign(n, kNoComponent);
  out.members.clear();
  out.start.assign(1, 0);
  index_.assign(n, kUnvisited);
  low_.resize(n);
  on_stack_.assign(n, 0);
  stack_.clear();
  frames_.clear();
  uint32_t counter = 0;

  auto visit = [&](uint32_t v) {
    index_[v] = low_[v] = counter++;
    stack_.push_back(v);
    on_stack_[v] = 1;
    frames_.push_back({v, g.out_start[v]});
  };
  for (uint32_t root = 0; root < n; ++root) {
    if (!alive[root] || index_[root] != kUnvisited) continue;
    visit(root);
    while (!frames_.empty()) {
      const uint32_t v = frames_.back().v;
      if (frames_.back().next_edge < g.out_start[v + 1]) {
        const uint32_t w = g.out_adj[frames_.back().next_edge++];
        if (!alive[w]) continue;
        if (index_[w] == kUnvisited) {
          visit(w);
        } else if (on_stack_[w]) {
          low_[v] = std::min(low_[v], index_[w]);
        }
        continue;
      }
      if (low_[v] == index_[v]) {  // v is the root of a component: pop it
        const uint32_t c = out.count();
        uint32_t w;
        do {
          w = stack_.back();
          stack_.pop_back();
          on_stack_[w] = 0;
          out.component[w] = c;
          out.members.push_back(w);
        } while (w != v);
        out.start.push_back(static_cast<uint32_t>(out.members.size()));
      }
      frames_.pop_back();
      if (!frames_.empty()) {
        const uint32_t parent = frames_.back().v;
        low_[parent] = std::min(low_[parent], low_[v]);
      }
    }
  }
  return out;
}

Sccs strongly_connected_components(const DepGraph& g, std::span<const uint8_t> alive) {
  SccFinder finder;
  return finder.run(g, alive);
}

}  // namespace ccb::reorder
