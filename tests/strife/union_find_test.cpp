// The concurrent union-find of Strife §4 / Fig. 4.
#include "partitioners/strife/union_find.h"

#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <utility>
#include <vector>

namespace ccb::strife {
namespace {

using Node = ConcurrentUnionFind::Node;
using Edges = std::vector<std::pair<Node, Node>>;

TEST(UnionFind, LargerRootBecomesParentAndSpecialsAreNeverJoinedByUnite) {
  ConcurrentUnionFind uf;
  uf.resize(10, 8);  // nodes 8 and 9 are special
  uf.make_all_singletons();
  EXPECT_TRUE(uf.unite(0, 1));
  EXPECT_EQ(uf.find(0), 1u);
  EXPECT_TRUE(uf.unite(0, 8));  // special root wins
  EXPECT_EQ(uf.find(1), 8u);
  EXPECT_TRUE(uf.unite(2, 9));
  EXPECT_TRUE(uf.unite(3, 2));
  EXPECT_EQ(uf.find(3), 9u);
  EXPECT_FALSE(uf.unite(1, 3));  // roots 8 and 9 are both special
  EXPECT_EQ(uf.find(1), 8u);
  EXPECT_EQ(uf.find(3), 9u);
  EXPECT_TRUE(uf.unite(1, 0));  // already one cluster
  EXPECT_TRUE(uf.unite_specials(1, 3));
  EXPECT_FALSE(uf.unite_specials(8, 9));  // already merged
  EXPECT_EQ(uf.find(0), 9u);
  EXPECT_EQ(uf.find(2), 9u);
  EXPECT_EQ(uf.find(4), 4u);
}

TEST(UnionFind, PathCompressionPointsEveryPathNodeAtTheRoot) {
  ConcurrentUnionFind uf;
  uf.resize(6, 6);
  uf.make_all_singletons();
  for (Node x = 0; x + 1 < 6; ++x) uf.unite(x, x + 1);  // links roots: chain 0 -> 1 -> ... -> 5
  for (Node x = 0; x < 5; ++x) ASSERT_EQ(uf.parent(x), x + 1);
  EXPECT_EQ(uf.find(0), 5u);
  for (Node x = 0; x < 6; ++x) EXPECT_EQ(uf.parent(x), 5u);
}

// Labels each node by the smallest node of its set (a canonical partition).
std::vector<Node> canonical(ConcurrentUnionFind& uf) {
  std::vector<Node> smallest(uf.size(), static_cast<Node>(uf.size()));
  for (Node x = 0; x < uf.size(); ++x) {
    Node& s = smallest[uf.find(x)];
    if (x < s) s = x;
  }
  std::vector<Node> label(uf.size());
  for (Node x = 0; x < uf.size(); ++x) label[x] = smallest[uf.find(x)];
  return label;
}

// Runs unite over `edges` split round-robin among `threads` threads, with
// concurrent finds, and returns how many unite calls returned false.
int unite_concurrently(ConcurrentUnionFind& uf, const Edges& edges, int threads) {
  std::vector<int> refused(threads, 0);
  std::vector<std::thread> pool;
  for (int id = 0; id < threads; ++id) {
    pool.emplace_back([&, id] {
      for (size_t i = id; i < edges.size(); i += threads) {
        if (!uf.unite(edges[i].first, edges[i].second)) ++refused[id];
        uf.find(edges[(i * 7) % edges.size()].second);
      }
    });
  }
  for (auto& t : pool) t.join();
  int total = 0;
  for (int r : refused) total += r;
  return total;
}

// Random edges inside groups of nodes; when `with_specials`, half the groups
// also contain one special node, so no component has two special nodes and
// the final partition does not depend on the order of the unions.
Edges grouped_edges(size_t items, size_t groups, size_t edges, Node first_special, bool with_specials, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<Node>> members(groups);
  for (Node x = 0; x < items; ++x) members[rng() % groups].push_back(x);
  if (with_specials)
    for (size_t g = 0; g < groups; g += 2) members[g].push_back(first_special + static_cast<Node>(g / 2));
  Edges out;
  while (out.size() < edges) {
    const auto& m = members[rng() % groups];
    if (m.size() >= 2) out.push_back({m[rng() % m.size()], m[rng() % m.size()]});
  }
  return out;
}

class UnionFindStress : public ::testing::TestWithParam<bool> {};

TEST_P(UnionFindStress, ManyThreadsGiveTheSequentialPartition) {
  const bool with_specials = GetParam();
  const size_t items = 40000, groups = 600, specials = groups / 2;
  const Edges edges = grouped_edges(items, groups, 60000, items, with_specials, 42);

  ConcurrentUnionFind sequential, concurrent;
  for (auto* uf : {&sequential, &concurrent}) {
    uf->resize(items + specials, static_cast<Node>(items));
    uf->make_all_singletons();
  }
  for (const auto& [a, b] : edges) ASSERT_TRUE(sequential.unite(a, b));
  EXPECT_EQ(unite_concurrently(concurrent, edges, 8), 0);
  EXPECT_EQ(canonical(concurrent), canonical(sequential));
  for (Node x = 0; x < concurrent.size(); ++x) EXPECT_GE(concurrent.parent(x), x);  // parents only grow
}

INSTANTIATE_TEST_SUITE_P(Strife, UnionFindStress, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "WithSpecials" : "NoSpecials"; });

// Edges between arbitrary nodes, so many unions would join two special
// clusters: whatever the interleaving, no two special nodes may end up
// together, and every edge is either inside one cluster or between two
// special clusters (the postcondition of Union).
TEST(UnionFindStress, ConcurrentUnitesNeverJoinTwoSpecialClusters) {
  const size_t items = 20000, specials = 64;
  std::mt19937_64 rng(7);
  Edges edges;
  for (int i = 0; i < 40000; ++i)
    edges.push_back({static_cast<Node>(rng() % (items + specials)), static_cast<Node>(rng() % (items + specials))});
  ConcurrentUnionFind uf;
  uf.resize(items + specials, static_cast<Node>(items));
  uf.make_all_singletons();
  EXPECT_GT(unite_concurrently(uf, edges, 8), 0);
  for (Node s = items; s < items + specials; ++s) EXPECT_EQ(uf.find(s), s);
  for (const auto& [a, b] : edges) {
    const Node ra = uf.find(a), rb = uf.find(b);
    EXPECT_TRUE(ra == rb || (uf.is_special(ra) && uf.is_special(rb))) << a << " " << b;
  }
}

}  // namespace
}  // namespace ccb::strife
