// The front-end registry (partitioners/frontends.txt): every registered
// bundle front-end is built by its factory and plans a batch, every
// registered name is in --frontend's help and schema enum, and an unknown
// name is one error listing the registered ones; every name resolves to the
// spec its executor takes. The bundle front-ends as
// rundb builds them by name (rundb/frontends.cpp): the two Strife baselines (the Strife paper's shared worklist of CF clusters,
// --frontend=strife; the TSKD paper's static per-thread partitions,
// --frontend=strife-static) and the CC marking of every TSKD instance's
// queues (TSKD §6.1: "For all TSKD instances, transactions are executed with
// CC"), on a random YCSB-like bundle.
#include <gflags/gflags.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/core/json.h"
#include "engine/core/random.h"
#include "rundb/frontends.h"

DECLARE_string(frontend);

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
  const auto fe = ResolvedFrontend(cfg, settings).make_bundle_frontend();
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

// Fails for a registry line whose factory cannot build its front-end (a
// TsDEFER-only instance without a partition, a partition field no builder
// knows) or whose plan is invalid, and for a name the kernel and rundb
// disagree on.
TEST(FrontendRegistry, EveryBundleFrontendIsBuiltByItsFactoryAndPlans) {
  const auto batch = bundle();
  const std::vector<std::string> bundle_names = registered_bundle_frontends();
  ASSERT_GE(bundle_names.size(), 1u);
  size_t planned = 0;
  for (const std::string& name : available_frontends()) {
    const bool built_here = std::find(bundle_names.begin(), bundle_names.end(), name) != bundle_names.end();
    EngineConfig cfg;
    cfg.frontend = name;
    EXPECT_EQ(ResolvedFrontend(cfg, BundleSettings{}).bundle(), built_here) << name;
    if (!built_here) continue;
    // plan_of checks the plan: every transaction of the batch exactly once (BundlePlan::validate).
    EXPECT_EQ(plan_of(name, batch).size(), batch.size()) << name;
    ++planned;
  }
  EXPECT_EQ(planned, bundle_names.size()) << "a bundle front-end of rundb that --frontend does not accept";
  // Outside the registry there is no factory.
  EngineConfig cfg;
  cfg.frontend = "none";
  EXPECT_THROW(ResolvedFrontend(cfg, BundleSettings{}).make_bundle_frontend(), std::logic_error);
}

// Fails when an online front-end resolves to another worker order than its
// own, the thread-aware one comes without its policy, the batch size does not
// reach the bundle executor, or the owner-threads field is lost.
TEST(FrontendRegistry, EachFrontendResolvesToTheSpecItsExecutorTakes) {
  using Order = FrontendSpec::OnlineOrder;
  const std::map<std::string, Order> online = {
      {"none", Order::kBuffer}, {"tsdefer", Order::kTsDefer}, {"reorder", Order::kThreadReorder}};
  BundleSettings settings;
  settings.batch_size = 123;
  const std::string owners = owner_thread_frontends();
  for (const std::string& name : available_frontends()) {
    EngineConfig cfg;
    cfg.frontend = name;
    const FrontendSpec spec = ResolvedFrontend(cfg, settings).spec();
    EXPECT_EQ(spec.name, name);
    EXPECT_EQ(spec.owner_threads, owners.find(name) != std::string::npos) << name << " vs " << owners;
    if (const auto it = online.find(name); it != online.end()) {
      EXPECT_EQ(spec.executor, FrontendSpec::Executor::kOnline) << name;
      EXPECT_EQ(spec.online_order, it->second) << name;
      EXPECT_EQ(spec.thread_assign != nullptr, it->second == Order::kThreadReorder) << name;
    } else {
      EXPECT_EQ(spec.executor, FrontendSpec::Executor::kBundle) << name;
      EXPECT_EQ(spec.batch_size, 123u) << name;
    }
  }
}

// Fails when a registered name is missing from --frontend's help or from its
// schema enum (engine_flags, printed by --config_schema, which the contract
// test compares with docs/result.schema.json).
TEST(FrontendRegistry, HelpAndSchemaEnumNameEveryRegisteredFrontend) {
  gflags::CommandLineFlagInfo info;
  ASSERT_TRUE(gflags::GetCommandLineFlagInfo("frontend", &info));
  const std::string schema = EngineConfig::flags.schema();
  const size_t at = schema.find("\"frontend\": {"), list = schema.find("\"enum\": [", at);
  ASSERT_NE(at, std::string::npos) << schema;
  ASSERT_NE(list, std::string::npos) << schema;
  const std::string enum_text = schema.substr(list, schema.find(']', list) - list);
  const std::vector<std::string>& names = available_frontends();
  ASSERT_GE(names.size(), 4u);
  EXPECT_EQ(names.front(), "none");  // the default
  for (const std::string& name : names) {
    EXPECT_NE(info.description.find(" " + name + " ("), std::string::npos) << name << " not in: " << info.description;
    EXPECT_NE(enum_text.find("\"" + name + "\""), std::string::npos) << name << " not in: " << enum_text;
  }
  EXPECT_EQ(static_cast<size_t>(std::count(enum_text.begin(), enum_text.end(), ',')), names.size() - 1) << enum_text;
}

// Fails when an unknown name passes, names another flag, or the message does
// not list every registered name.
TEST(FrontendRegistry, AnUnknownNameIsOneErrorListingTheRegisteredNames) {
  gflags::FlagSaver restore;
  FLAGS_frontend = "fifo-not-registered";
  std::string all;
  for (const std::string& name : available_frontends()) all += (all.empty() ? "" : "|") + name;
  try {
    EngineConfig::from_flags("test", {"ycsb"});
    FAIL() << "--frontend=fifo-not-registered was accepted";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.flag, "frontend");
    EXPECT_EQ(what, "--frontend: invalid value 'fifo-not-registered'; allowed: " + all);
  }
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
