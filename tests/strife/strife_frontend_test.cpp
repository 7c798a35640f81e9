// Strife's front-end of the bundle executor (strife_frontend.h): the
// worklist lists the CF clusters largest first, a cluster over the fallback
// bound goes to the plan's residuals (Strife §2, fallback clustering), and the
// plan and the parameters report what ran.
#include "partitioners/strife/strife_frontend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/core/json.h"

namespace ccb::strife {
namespace {

// Warehouse w's transactions: `sizes[w]` of them, each writing the warehouse
// and a stock row of its own, interleaved in the batch.
std::vector<TxnDesc> warehouses(const std::vector<int>& sizes) {
  std::vector<TxnDesc> batch;
  for (int round = 0; round < *std::max_element(sizes.begin(), sizes.end()); ++round)
    for (size_t w = 0; w < sizes.size(); ++w)
      if (round < sizes[w]) {
        TxnDesc t;
        t.id = batch.size();
        t.write_set = {make_global_key(1, w), make_global_key(2, w * 1000 + round)};
        batch.push_back(t);
      }
  return batch;
}

double counter(const BundlePlan& plan, const std::string& name) {
  for (const auto& [key, value] : plan.counters)
    if (key == name) return value;
  ADD_FAILURE() << "no counter " << name;
  return -1;
}

Options spot_all(double max_cluster_fraction) {
  Options o;
  o.spot = SpotMode::kAll;  // every warehouse gets its special cluster
  o.max_cluster_fraction = max_cluster_fraction;
  return o;
}

TEST(StrifeFrontend, WorklistRunsTheLargestClusterFirst) {
  const auto batch = warehouses({3, 20, 1, 7});
  StrifeFrontend fe(spot_all(1.0));
  BundlePlan plan;
  fe.plan(batch, plan);
  ASSERT_EQ(plan.worklist.size(), 4u);
  std::vector<size_t> sizes;
  for (const BundleQueue& q : plan.worklist) {
    EXPECT_EQ(q.mode, BundleQueue::Mode::kWithoutCC);
    EXPECT_TRUE(std::is_sorted(q.txns.begin(), q.txns.end()));  // a cluster runs in batch order
    sizes.push_back(q.txns.size());
  }
  EXPECT_EQ(sizes, (std::vector<size_t>{20, 7, 3, 1}));
  EXPECT_TRUE(plan.residuals.empty());
  EXPECT_EQ(plan.validate(batch.size(), 1), "");
  EXPECT_EQ(counter(plan, "largest_cluster"), 20);
  EXPECT_EQ(counter(plan, "smallest_cluster"), 1);
  EXPECT_EQ(counter(plan, "fallback_clusters"), 0);
}

TEST(StrifeFrontend, AClusterOverTheBoundRunsInTheResidualPhase) {
  const auto batch = warehouses({90, 4, 3, 3});  // w0 holds 90 % of the batch
  StrifeFrontend fe(spot_all(default_max_cluster_fraction(0.2, 4)));
  BundlePlan plan;
  fe.plan(batch, plan);
  EXPECT_EQ(plan.validate(batch.size(), 1), "");
  ASSERT_EQ(plan.worklist.size(), 3u);
  EXPECT_EQ(plan.residuals.size(), 90u);
  for (uint32_t t : plan.residuals) EXPECT_EQ(batch[t].write_set[0], make_global_key(1, 0));
  EXPECT_EQ(counter(plan, "fallback_clusters"), 1);
  EXPECT_EQ(counter(plan, "fallback_txns"), 90);
  EXPECT_EQ(counter(plan, "cf_clusters"), 3);
}

TEST(StrifeFrontend, DefaultBoundIsOneMinusAlphaFromTwoThreads) {
  EXPECT_DOUBLE_EQ(default_max_cluster_fraction(0.2, 2), 0.8);
  EXPECT_DOUBLE_EQ(default_max_cluster_fraction(0.2, 30), 0.8);
  EXPECT_DOUBLE_EQ(default_max_cluster_fraction(0.2, 1), 1.0);  // one core: the sequential clustering is good
  EXPECT_DOUBLE_EQ(default_max_cluster_fraction(0.0, 8), 1.0);  // §5.6.2: alpha 0 is one cluster
  // One core: even a batch of one warehouse stays one CF cluster.
  const auto batch = warehouses({50});
  StrifeFrontend fe(spot_all(default_max_cluster_fraction(0.2, 1)));
  BundlePlan plan;
  fe.plan(batch, plan);
  EXPECT_EQ(plan.worklist.size(), 1u);
  EXPECT_TRUE(plan.residuals.empty());
}

TEST(StrifeFrontend, ParametersNameTheSpotModeAndTheBound) {
  Options o = spot_all(0.75);
  StrifeFrontend fe(o);
  JsonWriter w;
  w.begin_object();
  fe.params_json(w);
  w.end_object();
  EXPECT_NE(w.str().find("\"strife_spot\": \"all\""), std::string::npos) << w.str();
  EXPECT_NE(w.str().find("\"strife_fallback\": 0.75"), std::string::npos) << w.str();
  EXPECT_STREQ(spot_mode_name(SpotMode::kSample), "sample");
}

}  // namespace
}  // namespace ccb::strife
