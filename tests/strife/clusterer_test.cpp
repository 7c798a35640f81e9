// Strife clustering (Algorithm 1): the paper's worked examples and properties
// on random batches.
#include "partitioners/strife/clusterer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace ccb::strife {
namespace {

using Queues = std::vector<std::vector<uint32_t>>;

Queues queues_of(const Plan& plan) {
  Queues q;
  for (size_t i = 0; i < plan.num_queues(); ++i) q.emplace_back(plan.queue(i).begin(), plan.queue(i).end());
  return q;
}

bool conflict(const TxnDesc& a, const TxnDesc& b) {
  auto meets = [](const std::vector<GlobalKey>& w, const TxnDesc& other) {
    for (GlobalKey k : w) {
      if (std::find(other.read_set.begin(), other.read_set.end(), k) != other.read_set.end()) return true;
      if (std::find(other.write_set.begin(), other.write_set.end(), k) != other.write_set.end()) return true;
    }
    return false;
  };
  return meets(a.write_set, b) || meets(b.write_set, a);
}

// Every transaction is in exactly one queue or the residuals; transactions in
// different queues never conflict (brute force over all pairs); queues are
// non-empty and in batch order; the statistics match the plan.
void expect_valid_plan(const std::vector<TxnDesc>& batch, const Plan& plan) {
  constexpr int kUnplaced = -2, kResidual = -1;
  std::vector<int> where(batch.size(), kUnplaced);
  for (size_t q = 0; q < plan.num_queues(); ++q) {
    const auto queue = plan.queue(q);
    ASSERT_FALSE(queue.empty());
    EXPECT_TRUE(std::is_sorted(queue.begin(), queue.end()));
    for (uint32_t t : queue) {
      ASSERT_LT(t, batch.size());
      ASSERT_EQ(where[t], kUnplaced) << "transaction " << t << " placed twice";
      where[t] = static_cast<int>(q);
    }
  }
  for (uint32_t t : plan.residuals) {
    ASSERT_LT(t, batch.size());
    ASSERT_EQ(where[t], kUnplaced) << "transaction " << t << " placed twice";
    where[t] = kResidual;
  }
  for (size_t t = 0; t < batch.size(); ++t) ASSERT_NE(where[t], kUnplaced) << "transaction " << t << " lost";
  for (size_t a = 0; a < batch.size(); ++a) {
    for (size_t b = a + 1; b < batch.size(); ++b) {
      if (where[a] >= 0 && where[b] >= 0 && where[a] != where[b]) {
        ASSERT_FALSE(conflict(batch[a], batch[b])) << "transactions " << a << " and " << b << " conflict across queues";
      }
    }
  }
  EXPECT_EQ(plan.stats.cf_clusters, plan.num_queues());
  EXPECT_EQ(plan.stats.residuals, plan.residuals.size());
  EXPECT_EQ(plan.stats.batch_size, batch.size());
}

TxnDesc txn(std::vector<GlobalKey> writes, std::vector<GlobalKey> reads = {}) {
  TxnDesc t;
  t.write_set = std::move(writes);
  t.read_set = std::move(reads);
  return t;
}

// ------------------------------------------------------------ Figure 3
// A batch with the structure of the paper's Fig. 3 (§3.2): NewOrder-like
// transactions of four warehouses w1..w4 update their warehouse and two stock
// rows; every one also reads the same ITEM row, which nobody writes and so
// must not connect anything (§3.1.1). Warehouse w2's transactions order much
// of w3's catalogue (c1-c3), w3's transactions hit those rows too: green (w2)
// and red (w3) get indirect affinity and merge; orange (w1) and green share
// only two transactions (T13, T14) and stay apart; T15 joins red and blue.
constexpr uint32_t kWarehouse = 1, kStock = 2, kItem = 3;
GlobalKey W(int w) { return make_global_key(kWarehouse, w); }
GlobalKey S(char catalogue, int i) { return make_global_key(kStock, (catalogue - 'a') * 100 + i); }
const GlobalKey kSharedItem = make_global_key(kItem, 7);

std::vector<TxnDesc> figure3_batch() {
  const std::vector<std::vector<GlobalKey>> writes = {
      {W(1), S('a', 1), S('a', 2)}, {W(1), S('a', 2), S('a', 3)}, {W(1), S('a', 3), S('a', 4)},  // T0-T2  w1
      {W(2), S('b', 1), S('b', 2)}, {W(2), S('b', 3), S('c', 1)}, {W(2), S('b', 4), S('c', 2)},  // T3-T5  w2
      {W(2), S('c', 3), S('b', 1)},                                                              // T6     w2
      {W(3), S('c', 4)},            {W(3), S('c', 1), S('c', 4)}, {W(3), S('c', 2), S('c', 3)},  // T7-T9  w3
      {W(3), S('c', 1), S('c', 2)},                                                              // T10    w3
      {W(4), S('d', 1), S('d', 2)}, {W(4), S('d', 3), S('d', 4)},                                // T11-12 w4
      {W(1), S('b', 2)},            {W(1), S('b', 3)},            {W(3), S('d', 1)},             // T13-15 cross
  };
  std::vector<TxnDesc> batch;
  for (const auto& w : writes) batch.push_back(txn(w, {kSharedItem}));
  for (size_t i = 0; i < batch.size(); ++i) batch[i].id = i;
  return batch;
}

Options fig3_options(double alpha = 0.2) {
  Options o;
  o.k = 6;
  o.alpha = alpha;
  return o;
}

// Spot trials: T0 (orange), T1 (rejected: w1 is orange), T3 (green), T7
// (red), T11 (blue), T12 (rejected).
const std::vector<uint32_t> kFig3Trials = {0, 1, 3, 7, 11, 12};

// A clusterer on a lent team (Clusterer::use_team: the bundle executor's
// workers, whose number need not be Options::threads) runs its parallel
// steps there, its per-thread scratch sized to the team: every transaction
// ends in one queue or the residuals, as without a team.
TEST(StrifeTeam, ClustersOnALentTeamOfAnySize) {
  const auto batch = figure3_batch();
  Options o = fig3_options();
  for (size_t members : {2u, 5u}) {
    o.threads = 2;
    Clusterer c(o);
    OwnTeam own(members);
    c.use_team(own.team());
    const Plan plan = c.cluster(batch);
    std::vector<int> seen(batch.size(), 0);
    for (size_t q = 0; q < plan.num_queues(); ++q)
      for (uint32_t t : plan.queue(q)) ++seen[t];
    for (uint32_t t : plan.residuals) ++seen[t];
    EXPECT_EQ(seen, std::vector<int>(batch.size(), 1)) << members << " members";
  }
}

TEST(StrifeFigure3, EachStepAsInThePaper) {
  const auto batch = figure3_batch();
  Clusterer c(fig3_options());
  c.prepare(batch);
  EXPECT_FALSE(c.cluster_of(kSharedItem).has_value()) << "a read-only item is not in the access graph";

  c.spot(kFig3Trials);
  const auto orange = *c.cluster_of(W(1)), green = *c.cluster_of(W(2)), red = *c.cluster_of(W(3)),
             blue = *c.cluster_of(W(4));
  EXPECT_EQ(std::set({orange, green, red, blue}).size(), 4u);
  for (auto cl : {orange, green, red, blue}) EXPECT_TRUE(c.is_special(cl));
  EXPECT_EQ(c.cluster_of(S('a', 2)), orange);
  EXPECT_EQ(c.cluster_of(S('d', 2)), blue);
  EXPECT_FALSE(c.is_special(*c.cluster_of(S('a', 3))));  // not sampled: still a singleton

  c.fuse();  // every item ends in one of the four special clusters (Fig. 3c)
  for (int i = 1; i <= 4; ++i) {
    EXPECT_EQ(c.cluster_of(S('a', i)), orange);
    EXPECT_EQ(c.cluster_of(S('b', i)), green);
    EXPECT_EQ(c.cluster_of(S('d', i)), blue);
  }
  for (int i = 1; i <= 3; ++i) EXPECT_EQ(c.cluster_of(S('c', i)), green) << "w3's stock c" << i << " goes to w2 first";
  EXPECT_EQ(c.cluster_of(S('c', 4)), red);

  c.merge();  // green+red: 3 >= 0.2 * (5 + 2 + 3); orange+green: 2 < 0.2 * (4 + 5 + 2)
  EXPECT_EQ(c.cluster_of(W(2)), c.cluster_of(W(3)));
  EXPECT_NE(c.cluster_of(W(1)), c.cluster_of(W(2)));
  EXPECT_NE(c.cluster_of(W(3)), c.cluster_of(W(4)));

  const Plan plan = c.allocate();
  EXPECT_EQ(queues_of(plan), (Queues{{0, 1, 2}, {3, 4, 5, 6, 7, 8, 9, 10}, {11, 12}}));
  EXPECT_EQ(plan.residuals, (std::vector<uint32_t>{13, 14, 15}));  // orange+red twice, red+blue once
  EXPECT_EQ(plan.stats.spot_clusters, 4u);
  EXPECT_EQ(plan.stats.special_clusters, 3u);
  EXPECT_EQ(plan.stats.merges, 1u);
  EXPECT_EQ(plan.stats.multi_special_txns, 6u);  // T8-T10, T13-T15
  EXPECT_EQ(plan.stats.cf_clusters, 3u);
  EXPECT_EQ(plan.stats.residuals, 3u);
  EXPECT_EQ(plan.stats.active_items, 4u + 16u);
  expect_valid_plan(batch, plan);
}

void run_steps(Clusterer& c, const std::vector<TxnDesc>& batch, const std::vector<uint32_t>& trials) {
  c.prepare(batch);
  c.spot(trials);
  c.fuse();
  c.merge();
}

TEST(StrifeFigure3, AlphaAboveTheAffinityKeepsGreenAndRedApart) {
  const auto batch = figure3_batch();
  Clusterer c(fig3_options(0.35));  // green+red: 3 < 0.35 * 10
  run_steps(c, batch, kFig3Trials);
  const Plan plan = c.allocate();
  EXPECT_EQ(queues_of(plan), (Queues{{0, 1, 2}, {3, 4, 5, 6}, {7}, {11, 12}}));
  EXPECT_EQ(plan.residuals, (std::vector<uint32_t>{8, 9, 10, 13, 14, 15}));
}

TEST(StrifeFigure3, SmallAlphaMergesEverythingIntoOneCluster) {
  const auto batch = figure3_batch();
  Clusterer c(fig3_options(0.15));  // all three pairs pass: 2 >= 1.65, 3 >= 1.5, 1 >= 0.9
  run_steps(c, batch, kFig3Trials);
  const Plan plan = c.allocate();
  EXPECT_EQ(plan.num_queues(), 1u);
  EXPECT_TRUE(plan.residuals.empty());
  EXPECT_EQ(plan.stats.merges, 3u);
}

// ------------------------------------------------------------ alpha = 0
// §5.6.2 (Fig. 10a): "When α is zero, Strife clusters all transactions into a
// single cluster." Four warehouses, each with its own stock rows, and one
// transaction touching warehouses 1 and 2: with alpha = 0 merge joins every
// pair of special clusters (count >= 0 holds even for pairs no transaction
// shares), so one queue holds the whole batch; alpha = 0.2 keeps the four
// warehouses apart and the cross transaction residual.
std::vector<TxnDesc> four_warehouse_batch() {
  std::vector<TxnDesc> batch;
  for (int w = 1; w <= 4; ++w)
    for (int i = 0; i < 5; ++i) batch.push_back(txn({W(w), S(static_cast<char>('a' + w - 1), i)}));
  batch.push_back(txn({W(1), W(2)}));
  for (size_t i = 0; i < batch.size(); ++i) batch[i].id = i;
  return batch;
}

TEST(StrifeAlpha, ZeroPutsEveryWarehouseIntoOneCluster) {
  const auto batch = four_warehouse_batch();
  const std::vector<uint32_t> one_per_warehouse = {0, 5, 10, 15};
  Options o;
  o.k = 4;
  {
    o.alpha = 0.2;  // 1 co-access < 0.2 * (|c1| + |c2| + 1), |c| >= 5
    Clusterer c(o);
    run_steps(c, batch, one_per_warehouse);
    const Plan plan = c.allocate();
    EXPECT_EQ(plan.num_queues(), 4u);
    EXPECT_EQ(plan.residuals, (std::vector<uint32_t>{20}));
    EXPECT_EQ(plan.stats.merges, 0u);
  }
  o.alpha = 0;
  Clusterer c(o);
  run_steps(c, batch, one_per_warehouse);
  const Plan plan = c.allocate();
  ASSERT_EQ(plan.num_queues(), 1u);
  EXPECT_EQ(plan.queue(0).size(), batch.size());
  EXPECT_TRUE(plan.residuals.empty());
  EXPECT_EQ(plan.stats.spot_clusters, 4u);
  EXPECT_EQ(plan.stats.merges, 3u);  // warehouses 3 and 4 share no transaction with anyone
  EXPECT_EQ(plan.stats.special_clusters, 1u);
  expect_valid_plan(batch, plan);
}

TEST(StrifeAlpha, ZeroGivesOneClusterWhateverSpotSamples) {
  const auto batch = four_warehouse_batch();
  for (bool pack : {true, false}) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      Options o;
      o.alpha = 0;
      o.seed = seed;
      o.pack_nonspecial = pack;
      Clusterer c(o);  // k = 100 random trials: 3 or 4 special clusters (4 unless the cross one comes first)
      const Plan plan = c.cluster(batch);
      EXPECT_GE(plan.stats.spot_clusters, 3u) << "seed " << seed;
      EXPECT_EQ(plan.stats.merges, plan.stats.spot_clusters - 1) << "seed " << seed;
      EXPECT_EQ(plan.num_queues(), 1u) << "seed " << seed << " pack " << pack;
      EXPECT_TRUE(plan.residuals.empty()) << "seed " << seed;
    }
  }
}

// ------------------------------------------------------------ Figure 2
// T1-T3 touch w1 and stocks a-d, T4-T6 w2 and e-h, T7 both (§2).
TEST(StrifeFigure2, OutlierBecomesTheResidual) {
  std::vector<TxnDesc> batch = {
      txn({W(1), S('a', 0), S('b', 0)}), txn({W(1), S('b', 0), S('c', 0)}), txn({W(1), S('c', 0), S('d', 0)}),
      txn({W(2), S('e', 0), S('f', 0)}), txn({W(2), S('f', 0), S('g', 0)}), txn({W(2), S('g', 0), S('h', 0)}),
      txn({W(1), W(2), S('d', 0), S('e', 0)}),
  };
  Options o;
  o.k = 2;
  Clusterer c(o);
  run_steps(c, batch, {0, 3});
  const Plan plan = c.allocate();
  EXPECT_EQ(queues_of(plan), (Queues{{0, 1, 2}, {3, 4, 5}}));
  EXPECT_EQ(plan.residuals, (std::vector<uint32_t>{6}));
}

// ------------------------------------------------------------ allocation details
TEST(StrifeAllocate, TransactionsTouchingNoWrittenItemAreConflictFree) {
  std::vector<TxnDesc> batch = {txn({W(1)}), txn({}, {kSharedItem}), txn({W(2)}), txn({}, {kSharedItem, W(9)}),
                                txn({W(1), S('a', 1)})};
  Options o;
  o.k = 1;
  {
    Clusterer c(o);  // packed: the free transactions 1 and 3 and w2's cluster join the special queue
    run_steps(c, batch, {0});
    const Plan plan = c.allocate();
    EXPECT_EQ(queues_of(plan), (Queues{{0, 1, 2, 3, 4}}));
    EXPECT_EQ(plan.stats.free_txns, 2u);
    EXPECT_EQ(plan.stats.data_clusters, 2u);
    expect_valid_plan(batch, plan);
  }
  o.pack_nonspecial = false;
  Clusterer c(o);  // Algorithm 1 literally: one queue per data cluster and per free transaction
  run_steps(c, batch, {0});
  const Plan plan = c.allocate();
  EXPECT_EQ(queues_of(plan), (Queues{{0, 4}, {1}, {2}, {3}}));
  expect_valid_plan(batch, plan);
}

TEST(StrifeAllocate, PackingFillsTheSmallestQueueFirst) {
  // Specials: w1 (3 transactions) and w2 (1); then the non-special units
  // w3 (2 transactions) and w4 (1) go to the smaller queue each time.
  std::vector<TxnDesc> batch = {txn({W(1)}), txn({W(1)}), txn({W(1)}), txn({W(2)}),
                                txn({W(3)}), txn({W(3)}), txn({W(4)})};
  Options o;
  o.k = 2;
  Clusterer c(o);
  run_steps(c, batch, {0, 3});
  const Plan plan = c.allocate();
  EXPECT_EQ(queues_of(plan), (Queues{{0, 1, 2, 6}, {3, 4, 5}}));
}

TEST(StrifeAllocate, EmptyBatch) {
  Clusterer c(Options{});
  const Plan plan = c.cluster({});
  EXPECT_EQ(plan.num_queues(), 0u);
  EXPECT_TRUE(plan.residuals.empty());
  EXPECT_EQ(plan.stats.spot_clusters, 0u);
}

// ------------------------------------------------------------ random batches
struct RandomBatch {
  size_t size;
  uint64_t keys;      // key space
  int hot;            // hot keys among them
  double hot_share;   // probability an access is to a hot key
  double read_share;  // probability an access is a read
  int max_accesses;
};

std::vector<TxnDesc> random_batch(const RandomBatch& r, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<TxnDesc> batch(r.size);
  for (size_t i = 0; i < r.size; ++i) {
    TxnDesc& t = batch[i];
    t.id = i;
    const int accesses = 1 + static_cast<int>(rng() % r.max_accesses);
    std::set<GlobalKey> seen;
    for (int a = 0; a < accesses; ++a) {
      const bool hot = std::bernoulli_distribution(r.hot_share)(rng);
      const GlobalKey key = make_global_key(static_cast<uint32_t>(rng() % 3), hot ? rng() % r.hot : r.hot + rng() % r.keys);
      if (!seen.insert(key).second) continue;
      (std::bernoulli_distribution(r.read_share)(rng) ? t.read_set : t.write_set).push_back(key);
    }
  }
  return batch;
}

TEST(StrifeRandom, ClustersAreConflictFreeAndPartitionTheBatch) {
  const std::vector<RandomBatch> shapes = {
      {400, 5000, 4, 0.3, 0.3, 6},   // a few hot items, like TPC-C warehouses
      {400, 300, 40, 0.2, 0.5, 8},   // dense: many residuals and merges
      {300, 100000, 1, 0.0, 0.2, 4},  // nearly disjoint: many free and small clusters
      {300, 2000, 8, 0.5, 0.9, 10},   // read-mostly
  };
  int seed = 0;
  for (const RandomBatch& shape : shapes) {
    for (unsigned threads : {1u, 2u, 4u}) {
      for (double alpha : {0.05, 0.2, 1.0}) {
        for (bool pack : {true, false}) {
          const auto batch = random_batch(shape, ++seed);
          Options o;
          o.k = 20;
          o.alpha = alpha;
          o.threads = threads;
          o.pack_nonspecial = pack;
          o.seed = seed;
          Clusterer c(o);
          for (int round = 0; round < 2; ++round) {  // a Clusterer is reused across batches
            SCOPED_TRACE(testing::Message() << "shape " << &shape - shapes.data() << " threads " << threads
                                            << " alpha " << alpha << " pack " << pack << " round " << round);
            const Plan plan = c.cluster(batch);
            expect_valid_plan(batch, plan);
            EXPECT_LE(plan.stats.spot_clusters, o.k);
          }
        }
      }
    }
  }
}

TEST(StrifeRandom, OneThreadIsDeterministic) {
  const auto batch = random_batch({500, 3000, 6, 0.3, 0.4, 6}, 99);
  Options o;
  o.k = 30;
  Clusterer a(o), b(o);
  const Plan pa = a.cluster(batch), pb = b.cluster(batch);
  EXPECT_EQ(pa.queue_offsets, pb.queue_offsets);
  EXPECT_EQ(pa.queue_txns, pb.queue_txns);
  EXPECT_EQ(pa.residuals, pb.residuals);
}

// Transactions in disjoint groups of items (each group touches a group key):
// every thread count must find exactly the groups.
TEST(StrifeRandom, PartitionableBatchGivesTheSameClustersOnAnyThreadCount) {
  std::mt19937_64 rng(5);
  std::vector<TxnDesc> batch;
  for (int i = 0; i < 2000; ++i) {
    const uint64_t g = rng() % 16;
    batch.push_back(txn({make_global_key(1, g), make_global_key(2, g * 1000 + rng() % 1000)},
                        {make_global_key(2, g * 1000 + rng() % 1000)}));
  }
  Queues reference;
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    Options o;
    o.k = 100;
    o.threads = threads;
    Clusterer c(o);
    const Plan plan = c.cluster(batch);
    EXPECT_EQ(plan.num_queues(), 16u);
    EXPECT_TRUE(plan.residuals.empty());
    Queues q = queues_of(plan);
    std::sort(q.begin(), q.end());
    if (threads == 1) reference = q;
    EXPECT_EQ(q, reference) << threads << " threads";
  }
}

// ------------------------------------------------------------ spot = all
// SpotMode::kAll (the public STRIFE implementation's spot, which the TSKD
// paper ran): every transaction is tried in batch order, so a cluster that k
// random trials miss still gets its special cluster.

// 60 transactions of warehouse w1, then one each of w2 and w3 (and one that
// writes nothing): one trial cannot find three clusters, a visit of every
// transaction must.
std::vector<TxnDesc> one_big_two_small() {
  std::vector<TxnDesc> batch;
  for (int i = 0; i < 60; ++i) batch.push_back(txn({W(1), S('a', i)}));
  batch.push_back(txn({W(2), S('b', 1)}));
  batch.push_back(txn({}, {kSharedItem}));
  batch.push_back(txn({W(3), S('c', 1)}));
  for (size_t i = 0; i < batch.size(); ++i) batch[i].id = i;
  return batch;
}

TEST(StrifeSpotAll, VisitsEveryTransactionInBatchOrder) {
  const auto batch = one_big_two_small();
  Options o;
  o.k = 1;
  Clusterer sampled(o);
  const Plan one_trial = sampled.cluster(batch);
  EXPECT_EQ(one_trial.stats.spot_clusters, 1u);  // whichever transaction it drew
  EXPECT_EQ(one_trial.num_queues(), 1u);         // w2 and w3 packed into that one queue

  o.spot = SpotMode::kAll;  // k = 1 is not used
  Clusterer all(o);
  const Plan plan = all.cluster(batch);
  // T0 seeds w1's cluster, T1-T59 touch it (rejected), T60 seeds w2, T61
  // writes nothing (skipped), T62 seeds w3.
  EXPECT_EQ(plan.stats.spot_clusters, 3u);
  Queues expected{{}, {60, 61}, {62}};
  for (uint32_t t = 0; t < 60; ++t) expected[0].push_back(t);
  EXPECT_EQ(queues_of(plan), expected);
  expect_valid_plan(batch, plan);

  // The same as listing every index as a trial; one more than the batch is refused.
  std::vector<uint32_t> every(batch.size());
  std::iota(every.begin(), every.end(), 0u);
  Clusterer steps(o);
  run_steps(steps, batch, every);
  EXPECT_EQ(queues_of(steps.allocate()), expected);
  steps.prepare(batch);
  every.push_back(0);
  EXPECT_THROW(steps.spot(every), std::invalid_argument);
}

// The public STRIFE's spot example: T1 touches T0's special cluster and is
// rejected, T2 does not and seeds a second one (Alg. 1 lines 6-16, tried on
// every transaction).
TEST(StrifeSpotAll, ATransactionTouchingASpecialClusterIsRejected) {
  const std::vector<TxnDesc> batch = {txn({W(1)}), txn({W(1), W(2)}), txn({W(3)})};
  Options o;
  o.spot = SpotMode::kAll;
  Clusterer c(o);
  c.prepare(batch);
  c.spot();
  EXPECT_TRUE(c.is_special(*c.cluster_of(W(1))));
  EXPECT_FALSE(c.is_special(*c.cluster_of(W(2))));  // T1 rejected: w2 still its own cluster
  EXPECT_TRUE(c.is_special(*c.cluster_of(W(3))));
  EXPECT_NE(*c.cluster_of(W(1)), *c.cluster_of(W(3)));
}

// With up to |B| special clusters the merge counts are sparse; the plans
// stay valid on every shape, thread count and alpha, and with one thread
// they do not depend on the seed (nothing is sampled).
TEST(StrifeSpotAll, RandomBatchesGiveValidPlansIndependentOfTheSeed) {
  const std::vector<RandomBatch> shapes = {
      {400, 5000, 4, 0.3, 0.3, 6},
      {400, 300, 40, 0.2, 0.5, 8},
      {300, 100000, 1, 0.0, 0.2, 4},
  };
  int seed = 100;
  for (const RandomBatch& shape : shapes) {
    const auto batch = random_batch(shape, ++seed);
    for (double alpha : {0.0, 0.05, 0.2}) {
      Options o;
      o.spot = SpotMode::kAll;
      o.alpha = alpha;
      o.seed = 1;
      Clusterer reference(o);
      const Plan ref = reference.cluster(batch);
      expect_valid_plan(batch, ref);
      EXPECT_GT(ref.stats.spot_clusters, 0u);
      if (alpha == 0.0) {
        EXPECT_EQ(ref.stats.special_clusters, 1u);  // §5.6.2: one cluster
      }
      o.seed = 77;
      Clusterer reseeded(o);
      const Plan again = reseeded.cluster(batch);
      EXPECT_EQ(again.queue_txns, ref.queue_txns);
      EXPECT_EQ(again.residuals, ref.residuals);
      for (unsigned threads : {2u, 4u}) {
        o.threads = threads;
        Clusterer parallel(o);
        SCOPED_TRACE(testing::Message() << "shape " << &shape - shapes.data() << " alpha " << alpha << " threads "
                                        << threads);
        expect_valid_plan(batch, parallel.cluster(batch));
      }
    }
  }
}

// ------------------------------------------------------------ fallback clustering
// Strife §2: "when all transactions access a single highly contended data
// item, then no good clustering exists besides fallback and sequential, and
// Strife simply resorts to fallback clustering". A queue over
// max_cluster_fraction of the batch goes to the residuals.

// 90 transactions on one warehouse, then 10 on warehouses of their own.
std::vector<TxnDesc> one_giant_cluster() {
  std::vector<TxnDesc> batch;
  for (int i = 0; i < 100; ++i) batch.push_back(i < 90 ? txn({W(1), S('a', i)}) : txn({W(10 + i), S('b', i)}));
  for (size_t i = 0; i < batch.size(); ++i) batch[i].id = i;
  return batch;
}

TEST(StrifeFallback, AGiantClusterGoesToTheResiduals) {
  const auto batch = one_giant_cluster();
  Options o;
  o.spot = SpotMode::kAll;  // deterministic: every warehouse gets its special cluster
  o.max_cluster_fraction = 0.8;
  Clusterer c(o);
  const Plan plan = c.cluster(batch);
  expect_valid_plan(batch, plan);
  EXPECT_EQ(plan.stats.fallback_clusters, 1u);
  EXPECT_EQ(plan.stats.fallback_txns, 90u);
  std::vector<uint32_t> giant(90);
  std::iota(giant.begin(), giant.end(), 0u);
  EXPECT_EQ(plan.residuals, giant);  // in batch order
  EXPECT_EQ(plan.num_queues(), 10u);  // the small clusters still run without CC
  EXPECT_EQ(plan.stats.largest_cluster, 1u);
  EXPECT_EQ(plan.stats.smallest_cluster, 1u);
  for (size_t q = 0; q < plan.num_queues(); ++q) EXPECT_EQ(plan.queue(q)[0], 90 + q);

  // The bound is "more than": 90 of 100 at 0.9 stays a CF cluster.
  o.max_cluster_fraction = 0.9;
  Clusterer at_bound(o);
  const Plan kept = at_bound.cluster(batch);
  EXPECT_EQ(kept.stats.fallback_clusters, 0u);
  EXPECT_EQ(kept.num_queues(), 11u);
  EXPECT_EQ(kept.stats.largest_cluster, 90u);
  EXPECT_TRUE(kept.residuals.empty());

  // 0: every CF cluster falls back (the paper's fallback clustering, n = 0).
  o.max_cluster_fraction = 0.0;
  Clusterer everything(o);
  const Plan all_residual = everything.cluster(batch);
  EXPECT_EQ(all_residual.num_queues(), 0u);
  EXPECT_EQ(all_residual.residuals.size(), batch.size());
  EXPECT_EQ(all_residual.stats.fallback_clusters, 11u);
}

// Residuals that fuse or allocate made keep their place among the fallback
// ones (batch order), on any thread count.
TEST(StrifeFallback, CrossClusterResidualsAndFallbackMergeInBatchOrder) {
  auto batch = one_giant_cluster();
  batch.insert(batch.begin() + 50, txn({W(1), W(100)}));  // touches w1 and the first small cluster's warehouse
  for (size_t i = 0; i < batch.size(); ++i) batch[i].id = i;
  for (unsigned threads : {1u, 2u}) {
    Options o;
    o.spot = SpotMode::kAll;
    o.max_cluster_fraction = 0.8;
    o.threads = threads;
    Clusterer c(o);
    const Plan plan = c.cluster(batch);
    expect_valid_plan(batch, plan);
    EXPECT_TRUE(std::is_sorted(plan.residuals.begin(), plan.residuals.end()));
    EXPECT_EQ(plan.stats.fallback_txns + 1, plan.residuals.size()) << threads << " threads";
  }
}

// A clustering without a cluster over the bound is unaffected: the paper's
// Fig. 3 example and a partitionable batch give the same plan with the
// front-end's default bound (1 - alpha) as without fallback.
TEST(StrifeFallback, ANormalClusteringIsUnaffected) {
  auto same_plan = [](const std::vector<TxnDesc>& batch, Options o, const std::vector<uint32_t>* trials) {
    o.max_cluster_fraction = 1.0;
    Clusterer off(o);
    o.max_cluster_fraction = 1.0 - o.alpha;
    Clusterer on(o);
    Plan a, b;
    if (trials) {
      run_steps(off, batch, *trials);
      a = off.allocate();
      run_steps(on, batch, *trials);
      b = on.allocate();
    } else {
      a = off.cluster(batch);
      b = on.cluster(batch);
    }
    EXPECT_EQ(b.stats.fallback_clusters, 0u);
    EXPECT_EQ(b.stats.fallback_txns, 0u);
    EXPECT_EQ(queues_of(b), queues_of(a));
    EXPECT_EQ(b.residuals, a.residuals);
    EXPECT_GT(b.num_queues(), 1u);
  };
  same_plan(figure3_batch(), fig3_options(), &kFig3Trials);
  std::mt19937_64 rng(5);
  std::vector<TxnDesc> groups;
  for (int i = 0; i < 2000; ++i) {
    const uint64_t g = rng() % 16;
    groups.push_back(txn({make_global_key(1, g), make_global_key(2, g * 1000 + rng() % 1000)}));
  }
  Options o;
  o.threads = 2;
  same_plan(groups, o, nullptr);
}

// ------------------------------------------------------------ bad input
void expect_invalid(const Options& o, const std::string& field) {
  try {
    Clusterer c(o);
    FAIL() << "accepted bad " << field;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

TEST(StrifeOptions, RejectsOutOfRangeParameters) {
  for (double alpha : {-1e-9, -0.5, 1.01, std::numeric_limits<double>::quiet_NaN()}) {
    Options o;
    o.alpha = alpha;
    expect_invalid(o, "alpha must be in [0, 1]");
  }
  for (uint32_t k : {0u, kMaxK + 1}) {
    Options o;
    o.k = k;
    expect_invalid(o, "k must be in [1, 1024]");
  }
  Options o;
  o.threads = 0;
  expect_invalid(o, "threads must be in [1, 1024]");
  o.threads = kMaxThreads + 1;
  expect_invalid(o, "threads must be in [1, 1024]");
  for (double fraction : {-0.1, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    Options bad;
    bad.max_cluster_fraction = fraction;
    expect_invalid(bad, "max_cluster_fraction must be in [0, 1]");
  }
  o = Options{};
  o.alpha = 1.0;
  o.k = 1;
  EXPECT_NO_THROW(Clusterer{o});
  o.alpha = 0.0;
  EXPECT_NO_THROW(Clusterer{o});
}

TEST(StrifeOptions, RejectsReservedKeyAndBadTrials) {
  Clusterer c(Options{});
  const std::vector<TxnDesc> bad = {txn({kReservedKey})};
  EXPECT_THROW(c.cluster(bad), std::invalid_argument);
  const std::vector<TxnDesc> bad_read = {txn({W(1)}, {kReservedKey})};
  EXPECT_THROW(c.cluster(bad_read), std::invalid_argument);
  const std::vector<TxnDesc> ok = {txn({W(1)})};
  c.prepare(ok);
  EXPECT_THROW(c.spot(std::vector<uint32_t>{1}), std::invalid_argument);
  EXPECT_EQ(c.cluster(ok).num_queues(), 1u);  // usable after the errors
}

}  // namespace
}  // namespace ccb::strife
