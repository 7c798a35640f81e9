// The bundle front-ends as rundb builds them by name (rundb/frontends.cpp):
// the two Strife baselines (the Strife paper's shared worklist of CF clusters,
// --frontend=strife; the TSKD paper's static per-thread partitions,
// --frontend=strife-static) and the CC marking of every TSKD instance's
// queues (TSKD §6.1: "For all TSKD instances, transactions are executed with
// CC"), on a random YCSB-like bundle.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/core/json.h"
#include "engine/core/random.h"
#include "rundb/frontends.h"

namespace ccb {
namespace {

constexpr int kThreads = 3;

// 600 transactions of 4 keys (1 written) over 3000 keys of table 0: CF
// clusters of a few transactions each, more than the threads.
std::vector<TxnDesc> bundle() {
  Random rng(11);
  std::vector<TxnDesc> w(600);
  for (uint32_t i = 0; i < w.size(); ++i) {
    std::set<GlobalKey> keys;
    while (keys.size() < 4) keys.insert(make_global_key(0, rng.below(3000)));
    w[i].id = i;
    auto it = keys.begin();
    w[i].write_set = {*it++};
    w[i].read_set.assign(it, keys.end());
  }
  return w;
}

BundlePlan plan_of(const std::string& frontend, const std::vector<TxnDesc>& batch, std::string* params = nullptr) {
  EngineConfig cfg;
  cfg.frontend = frontend;
  cfg.workload = "ycsb";
  cfg.threads = kThreads;
  cfg.seed = 3;
  BundleSettings settings;
  settings.batch_size = static_cast<uint32_t>(batch.size());
  settings.strife_k = 10;
  const auto fe = make_frontend(cfg, settings);
  BundlePlan plan;
  plan.per_thread.resize(kThreads);
  fe->plan(batch, plan);
  EXPECT_EQ(plan.validate(batch.size(), kThreads), "") << frontend;
  if (params != nullptr) {
    JsonWriter w;
    w.begin_object();
    fe->params_json(w);
    w.end_object();
    *params = w.str();
  }
  return plan;
}

TEST(StrifeBaselines, StaticHasOneCcFreeQueuePerThreadAndNoWorklist) {
  const auto batch = bundle();
  std::string params;
  const BundlePlan plan = plan_of("strife-static", batch, &params);
  EXPECT_TRUE(plan.worklist.empty());
  ASSERT_EQ(plan.per_thread.size(), size_t{kThreads});
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(plan.per_thread[t].size(), 1u) << "thread " << t;
    EXPECT_EQ(plan.per_thread[t][0].mode, BundleQueue::Mode::kWithoutCC);
    EXPECT_FALSE(plan.per_thread[t][0].txns.empty());
  }
  EXPECT_NE(params.find("\"partitioner\": \"strife\""), std::string::npos) << params;
}

TEST(StrifeBaselines, WorklistHasTheCfClustersAndNoPerThreadQueue) {
  const BundlePlan plan = plan_of("strife", bundle());
  EXPECT_GT(plan.worklist.size(), size_t{kThreads});
  for (const auto& q : plan.worklist) EXPECT_EQ(q.mode, BundleQueue::Mode::kWithoutCC);
  for (const auto& own : plan.per_thread) EXPECT_TRUE(own.empty());
}

TEST(TskdInstances, EveryInstanceRunsItsQueuesWithCc) {
  const auto batch = bundle();
  for (const char* variant : {"tskd", "tspar", "tsdefer"}) {
    for (const char* partition : {"s", "c", "h"}) {
      const std::string name = std::string(variant) + "-" + partition;
      std::string params;
      const BundlePlan plan = plan_of(name, batch, &params);
      size_t queues = 0;
      for (const auto& own : plan.per_thread)
        for (const auto& q : own) {
          EXPECT_EQ(q.mode, BundleQueue::Mode::kWithCC) << name;
          ++queues;
        }
      EXPECT_GT(queues, 0u) << name;
      EXPECT_TRUE(plan.worklist.empty()) << name;
      EXPECT_NE(params.find("\"queues_cc\": true"), std::string::npos) << name << ": " << params;
      // TsDEFER runs wherever the variant has it: all but TsPAR[x].
      const bool tsdefer = std::string(variant) != "tspar";
      EXPECT_EQ(plan.tsdefer_queues, tsdefer) << name;
      EXPECT_EQ(plan.tsdefer_residuals, tsdefer) << name;
    }
  }
}

}  // namespace
}  // namespace ccb
