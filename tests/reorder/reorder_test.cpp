// End-to-end batch reordering (pre-validation, edge limit, FVS, order) and
// the thread-aware assignment (Ding et al. §4.2, §4.3).
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "partitioners/reorder/reorder.h"
#include "partitioners/reorder/thread_assign.h"

namespace ccb::reorder {
namespace {

TxnDesc txn(std::vector<GlobalKey> reads, std::vector<GlobalKey> writes) {
  TxnDesc t;
  t.read_set = std::move(reads);
  t.write_set = std::move(writes);
  return t;
}

// A batch of five read-modify-write transactions (observed reads = all keys):
//   t0: x -> y     t1: y -> x     (t0 <-> t1 conflict both ways: a cycle)
//   t2: reads z (stale version)   t3: reads y, writes w   t4: writes z
struct Batch {
  std::vector<TxnDesc> txns{txn({1}, {2}), txn({2}, {1}), txn({3}, {}), txn({2}, {4}),
                            txn({}, {3})};
  std::vector<ObservedReads> reads{{{1, 0}}, {{2, 0}}, {{3, 0}}, {{2, 0}}, {}};
};

TEST(ReorderBatch, PrevalidatesBreaksTheCycleAndOrdersTheRest) {
  const Batch b;
  const std::unordered_map<GlobalKey, uint64_t> cache{{3, 7}};  // z committed at 7
  auto latest = [&](GlobalKey k) -> uint64_t {
    auto it = cache.find(k);
    return it == cache.end() ? 0 : it->second;
  };
  ReorderOptions opts;
  opts.fvs = fvs_config_from_name("greedy_prod");
  const ReorderResult r = prevalidate_and_reorder(b.txns, b.reads, latest, opts);
  EXPECT_EQ(r.nonviable, (std::vector<uint32_t>{2}));
  EXPECT_FALSE(r.edge_limit_hit);
  EXPECT_EQ(r.graph_nodes, 4u);
  // Edges among {0,1,3,4}: 0->1 (t0 reads x, t1 writes x), 1->0, 3->0
  // (t3 reads y, t0 writes y). t4 only writes z: no edges.
  EXPECT_EQ(r.graph_edges, 3u);
  // Inside the SCC {t0, t1} both have in*out = 1 (3 -> 0 leaves the SCC);
  // the tie goes to the lower position: t0 is aborted.
  EXPECT_EQ(r.abort_set, (std::vector<uint32_t>{0}));
  EXPECT_EQ(r.commit_order, (std::vector<uint32_t>{1, 3, 4}));
}

TEST(ReorderBatch, EdgeLimitValidatesInArrivalOrder) {
  const Batch b;
  ReorderOptions opts;
  opts.max_graph_edges = 2;  // the batch has 3 edges
  const std::vector<uint8_t> viable{1, 1, 0, 1, 1};
  const ReorderResult r = reorder_batch(b.txns, b.reads, viable, opts);
  EXPECT_TRUE(r.edge_limit_hit);
  EXPECT_TRUE(r.abort_set.empty());
  EXPECT_EQ(r.nonviable, (std::vector<uint32_t>{2}));
  EXPECT_EQ(r.commit_order, (std::vector<uint32_t>{0, 1, 3, 4}));

  opts.max_graph_edges = 3;  // at the limit: reordered
  const ReorderResult at = reorder_batch(b.txns, b.reads, viable, opts);
  EXPECT_FALSE(at.edge_limit_hit);
  EXPECT_EQ(at.abort_set.size(), 1u);
  EXPECT_EQ(at.commit_order.size(), 3u);
}

TEST(ReorderBatch, RejectsBadInput) {
  const Batch b;
  ReorderOptions opts;
  const std::vector<uint8_t> short_viable{1};
  EXPECT_THROW(reorder_batch(b.txns, b.reads, short_viable, opts), std::invalid_argument);
  opts.fvs.multi_factor = 0;
  EXPECT_THROW(reorder_batch(b.txns, b.reads, {}, opts), std::invalid_argument);
}

TEST(ReorderBatch, EmptyAndAllNonViable) {
  ReorderOptions opts;
  EXPECT_TRUE(reorder_batch({}, {}, {}, opts).commit_order.empty());
  const Batch b;
  const std::vector<uint8_t> none(5, 0);
  const ReorderResult r = reorder_batch(b.txns, b.reads, none, opts);
  EXPECT_EQ(r.nonviable.size(), 5u);
  EXPECT_TRUE(r.commit_order.empty());
}

TEST(ThreadAware, EachLevelOfTheLexicographicWeightDecides) {
  // Keys a=1, b=2, d=4, e=5. Conflicts: t0-t1 (a), t0-t2 (a, b), t0-t3 (a),
  // t0-t5 (e), t3-t4 (d), t3-t5 (d).
  const std::vector<TxnDesc> batch{
      txn({}, {1, 2, 5}),  // t0: 4 conflicts, the most: first pick
      txn({1}, {}),        // t1
      txn({1, 2}, {}),     // t2: shares a and b with t0
      txn({1}, {4}),       // t3: 2 conflicts with unassigned t4, t5
      txn({4}, {}),        // t4
      txn({4, 5}, {}),     // t5
  };
  // Thread 0: t0; then t1, t2, t3, t5 all have 1 conflict with {t0}, and t2
  // shares the most accesses (2) -> t2; then t1 and t3 tie on conflicts (1)
  // and shared accesses (2), t3 has more unassigned conflicts -> t3.
  // Thread 1 gets the rest, all weights 0, in batch order.
  const auto plan = assign_to_threads(batch, 2);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0], (std::vector<uint32_t>{0, 2, 3}));
  EXPECT_EQ(plan[1], (std::vector<uint32_t>{1, 4, 5}));
}

TEST(ThreadAware, ConflictsOutweighSharedReads) {
  const std::vector<TxnDesc> batch{
      txn({10, 11, 12}, {20}),  // u0
      txn({10, 11, 12}, {}),    // u1: shares 3 reads with u0, no conflict
      txn({20}, {}),            // u2: conflicts with u0 on 20
      txn({30}, {}),            // u3
  };
  const auto plan = assign_to_threads(batch, 2);
  EXPECT_EQ(plan[0], (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(plan[1], (std::vector<uint32_t>{1, 3}));
}

TEST(ThreadAware, QuotasAndBadThreadCount) {
  const std::vector<TxnDesc> batch(5, txn({1}, {}));
  const auto plan = assign_to_threads(batch, 2);
  EXPECT_EQ(plan[0].size(), 3u);
  EXPECT_EQ(plan[1].size(), 2u);
  std::vector<uint32_t> all = plan[0];
  all.insert(all.end(), plan[1].begin(), plan[1].end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_THROW(assign_to_threads(batch, 0), std::invalid_argument);
}

}  // namespace
}  // namespace ccb::reorder
