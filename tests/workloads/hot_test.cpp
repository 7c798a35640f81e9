// HOT: hot-record placement (even and time-varying), the epoch clock and the
// pinning of requests to an epoch, partitionability of the generated
// transactions, the counter invariant and the options; the moving hot set on
// the executors (PartCC's predictions follow it; Strife-style CC-free plans
// stay exact when a batch runs into the next epoch).
#include <gflags/gflags.h>
#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <set>
#include <string>
#include <thread>

#include "engine/cc/nowait/nowait.h"
#include "engine/cc/partcc/partcc.h"
#include "engine/exec/bundle_executor.h"
#include "engine/verify/cf_check.h"
#include "tests/workloads/test_util.h"
#include "workloads/extensions/extended.h"
#include "workloads/hot/hot.h"

DECLARE_uint64(hot_table_size);
DECLARE_uint32(hot_records);
DECLARE_uint32(hot_remote_max);
DECLARE_double(hot_shift_s);
DECLARE_uint32(partitions);
DECLARE_uint64(seed);

namespace ccb {
namespace {

using CC = NoWait;
using W = HotWorkload<CC>;
using ccb::testing::expect_all_hold;

HotOptions options(uint32_t partitions, uint32_t hot, double shift_s = 0) {
  HotOptions o;
  o.table_size = 30000;
  o.hot_records = hot;
  o.partitions = partitions;
  o.remote_max = 3;
  o.shift_s = shift_s;
  o.shift_seed = 42;
  return o;
}

TEST(HotPlacement, EvenPlacementSpreadsHotRecordsOverAllPartitions) {
  W w(options(30, 60));
  const HotGenerator::Placement p = w.generator().placement(0);
  std::map<uint32_t, int> per_partition;
  for (uint32_t h = 0; h < 60; ++h) {
    EXPECT_EQ(w.generator().hot_key(h, p), h);  // the hot keys are 0..H-1
    ++per_partition[w.generator().partition_of(w.generator().hot_key(h, p))];
  }
  ASSERT_EQ(per_partition.size(), 30u);
  for (const auto& [q, n] : per_partition) EXPECT_EQ(n, 2) << q;
  EXPECT_EQ(w.epoch(), 0u);  // no shifting by default
}

TEST(HotPlacement, ShiftedPlacementsCrowdIntoFewerPartitions) {
  W w(options(30, 100, 30));
  std::set<uint32_t> sizes;
  for (uint64_t e = 1; e <= 200; ++e) {
    const HotGenerator::Placement p = w.generator().placement(e);
    ASSERT_GE(p.n, 1u);
    ASSERT_LT(p.n, 30u);  // "a random number n (< 30) of partitions"
    sizes.insert(p.n);
    std::set<uint64_t> keys;
    std::set<uint32_t> parts;
    for (uint32_t h = 0; h < 100; ++h) {
      const uint64_t k = w.generator().hot_key(h, p);
      ASSERT_LT(k / 30, 100u);  // inside the partition's hot pool
      keys.insert(k);
      parts.insert(w.generator().partition_of(k));
    }
    ASSERT_EQ(keys.size(), 100u);  // still 100 distinct hot records
    ASSERT_EQ(parts.size(), p.n);
    const HotGenerator::Placement again = w.generator().placement(e);  // reproducible
    ASSERT_EQ(again.offset, p.offset);
    ASSERT_EQ(again.stride, p.stride);
  }
  EXPECT_GT(sizes.size(), 10u);
}

TEST(HotPlacement, ScheduleIsDeterministicGivenTheSeed) {
  W a(options(30, 100, 30)), b(options(30, 100, 30));
  HotOptions other = options(30, 100, 30);
  other.shift_seed = 43;
  W c(other);
  int differ = 0;
  for (uint64_t e = 0; e <= 100; ++e) {
    const HotGenerator::Placement pa = a.generator().placement(e), pb = b.generator().placement(e),
                                  pc = c.generator().placement(e);
    ASSERT_EQ(pa.n, pb.n);
    ASSERT_EQ(pa.offset, pb.offset);
    ASSERT_EQ(pa.stride, pb.stride);
    for (uint32_t h = 0; h < 100; ++h) ASSERT_EQ(a.generator().hot_key(h, pa), b.generator().hot_key(h, pb));
    differ += pa.n != pc.n || pa.offset != pc.offset || pa.stride != pc.stride;
  }
  EXPECT_EQ(a.generator().placement(0).n, 30u);  // epoch 0: evenly over every partition, whatever the seed
  EXPECT_EQ(c.generator().placement(0).n, 30u);
  EXPECT_GT(differ, 90);  // another seed, another schedule
}

// Moves the epoch clock so that epoch() is `e` now (the executors set the
// origin once, at the start of the measured interval).
void set_epoch(W& w, uint64_t e, double shift_s) {
  const auto shift_ns = static_cast<uint64_t>(shift_s * 1e9);
  w.on_measure_start(now_ns() - e * shift_ns - shift_ns / 2);
}

TEST(HotPlacement, EpochClockStartsWithTheMeasuredIntervalAndIsLogged) {
  W w(options(4, 8, 0.02));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(w.epoch(), 0u);  // no clock before the measured interval (warm-up: even placement)
  w.on_measure_start(now_ns());
  EXPECT_EQ(w.epoch(), 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_GE(w.epoch(), 2u);
  EXPECT_EQ(w.description_epoch(), w.epoch());
  set_epoch(w, 2, 0.02);  // the log lists the epochs reached, each with its start and n
  JsonWriter j;
  j.begin_object();
  w.options_json(j);
  j.end_object();
  EXPECT_NE(j.str().find("\"hot_schedule\""), std::string::npos);
  EXPECT_NE(j.str().find("\"epoch\": 2"), std::string::npos);
  EXPECT_NE(j.str().find("\"start_s\": 0.04"), std::string::npos) << j.str();
  EXPECT_NE(j.str().find("\"hot_partitions\": " + std::to_string(w.generator().placement(2).n)), std::string::npos);
}

// TSKD's extensions wrap the workload (Extended<W>): the clock and the pin must
// reach HOT, or a wrapped run would keep its hot records in place.
static_assert(HasMeasureClock<Extended<W>> && HasDescriptionEpoch<Extended<W>> && HasReconnaissance<Extended<W>>);

TEST(HotPlacement, TheExtensionsWrapperForwardsTheClock) {
  W w(options(4, 8, 30));
  Extended<W> e(w, ExtensionOptions{});
  e.on_measure_start(now_ns() - 75000000000ull);  // 2.5 periods ago
  EXPECT_EQ(w.epoch(), 2u);
  EXPECT_EQ(e.description_epoch(), 2u);
}

TEST(HotPlacement, FixedHotRecordsNeverMoveOrPin) {
  W w(options(4, 8));
  w.on_measure_start(now_ns() - 1000000000000ull);
  EXPECT_EQ(w.epoch(), 0u);
  HotRequest r;
  Random rng(1);
  w.generate(rng, 0, r);
  EXPECT_FALSE(w.reconnoiter(r));
  EXPECT_EQ(r.pinned_epoch, HotRequest::kUnpinned);
}

// The key a request's hot update touches under its description.
uint64_t described_hot_key(const W& w, const HotRequest& r) {
  return local_key_of(w.describe(r).write_set[r.hot_pos]);
}

TEST(HotPlacement, ReconnaissancePinsARequestToItsEpoch) {
  W w(options(10, 20, 30));
  w.load(1);
  CC cc;
  Txn<CC> txn(cc, 0, nullptr);
  W::ThreadState ts;
  Random rng(5);
  std::vector<HotRequest> rs(200);
  for (auto& r : rs) w.generate(rng, 0, r);
  w.on_measure_start(now_ns());
  for (auto& r : rs) {
    EXPECT_TRUE(w.reconnoiter(r));  // pinned to epoch 0: described again
    EXPECT_FALSE(w.reconnoiter(r));  // same epoch: nothing to redo
    EXPECT_EQ(r.pinned_epoch, 0u);
  }
  set_epoch(w, 3, 30);  // the batch runs into the next epochs
  int moved = 0;
  for (const auto& r : rs) {
    EXPECT_EQ(described_hot_key(w, r), w.generator().hot_key(r.hot_slot, w.generator().placement(0)));
    ccb::testing::expect_describe_matches<CC>(w, txn, r, ts);  // still epoch 0's hot key
    HotRequest unpinned = r;
    unpinned.pinned_epoch = HotRequest::kUnpinned;  // the online executor's requests: the epoch now
    moved += described_hot_key(w, unpinned) != described_hot_key(w, r);
  }
  EXPECT_GT(moved, 100);
  for (auto& r : rs) {
    EXPECT_TRUE(w.reconnoiter(r));  // the next analysis pins the epoch now
    EXPECT_EQ(r.pinned_epoch, 3u);
    EXPECT_EQ(described_hot_key(w, r), w.generator().hot_key(r.hot_slot, w.generator().placement(3)));
    ccb::testing::expect_describe_matches<CC>(w, txn, r, ts);
  }
  expect_all_hold(w.check_invariants({ts}));
}

TEST(HotGenerator, ColdRecordsStayHomeExceptAtMostRemoteMax) {
  W w(options(10, 20));
  Random rng(4);
  uint32_t max_remote = 0;
  for (int i = 0; i < 5000; ++i) {
    HotRequest r;
    w.generate(rng, 0, r);
    ASSERT_LT(r.hot_slot, 20u);
    ASSERT_LT(r.hot_pos, HotRequest::kUpdates);
    const uint32_t home = r.hot_slot % 10;
    std::set<uint64_t> cold(r.cold, r.cold + HotOptions::kCold);
    ASSERT_EQ(cold.size(), HotOptions::kCold);
    uint32_t remote = 0;
    for (uint64_t k : cold) {
      ASSERT_LT(k, 30000u);
      ASSERT_GE(k / 10, 20u);  // never in a hot pool
      remote += w.generator().partition_of(k) != home;
    }
    ASSERT_LE(remote, 3u);
    max_remote = std::max(max_remote, remote);
  }
  EXPECT_EQ(max_remote, 3u);
}

TEST(HotWorkloadTest, UpdatesIncrementCountersAndDescribeMatches) {
  W w(options(4, 8));
  w.load(2);
  CC cc;
  Txn<CC> txn(cc, 0, nullptr);
  W::ThreadState ts;
  Random rng(8);
  for (int i = 0; i < 1000; ++i) {
    HotRequest r;
    w.generate(rng, 0, r);
    ccb::testing::expect_describe_matches<CC>(w, txn, r, ts);
  }
  EXPECT_EQ(ts.updates, 10000u);
  EXPECT_EQ(w.table_by_id(W::kTableId), &w.table());
  EXPECT_EQ(w.table_by_id(0), nullptr);
  uint64_t hot_updates = 0;
  for (uint64_t k = 0; k < 8; ++k) hot_updates += load_field<uint64_t>(w.table().lookup(k)->data() + kVersionBytes, 0);
  EXPECT_EQ(hot_updates, 1000u);  // one hot record per transaction
  expect_all_hold(w.check_invariants({ts}));
  store_field<uint64_t>(w.table().lookup(100)->data() + kVersionBytes, 0, 12345);
  EXPECT_FALSE(ccb::testing::all_hold(w.check_invariants({ts})));
}

TEST(HotOptionsTest, FlagsAreValidated) {
  gflags::FlagSaver restore;
  FLAGS_hot_table_size = 3000;
  FLAGS_hot_records = 50;
  FLAGS_partitions = 30;
  FLAGS_hot_shift_s = 30;
  FLAGS_seed = 9;
  const HotOptions o = HotOptions::from_flags();
  EXPECT_EQ(o.rows_per_partition(), 100u);
  EXPECT_EQ(o.shift_seed, 9u);
  FLAGS_hot_records = 92;  // 100 rows per partition - 9 cold < 92
  ccb::testing::expect_config_error([] { HotOptions::from_flags(); }, "hot_records");
  FLAGS_hot_records = 0;
  ccb::testing::expect_config_error([] { HotOptions::from_flags(); }, "hot_records");
  FLAGS_hot_records = 10;
  FLAGS_hot_remote_max = 10;
  ccb::testing::expect_config_error([] { HotOptions::from_flags(); }, "hot_remote_max");
  FLAGS_hot_remote_max = 3;
  FLAGS_hot_shift_s = -1;
  ccb::testing::expect_config_error([] { HotOptions::from_flags(); }, "hot_shift_s");
  FLAGS_hot_shift_s = 0.0005;  // below the shortest period
  ccb::testing::expect_config_error([] { HotOptions::from_flags(); }, "hot_shift_s");
  FLAGS_hot_shift_s = 0.001;
  EXPECT_EQ(HotOptions::from_flags().shift_s, 0.001);
  FLAGS_partitions = 1;  // nowhere to move to
  ccb::testing::expect_config_error([] { HotOptions::from_flags(); }, "hot_shift_s");
  FLAGS_hot_shift_s = 0;
  EXPECT_EQ(HotOptions::from_flags().shift_s, 0);
}

// The value of a numeric member of a JSON object (the protocol statistics).
uint64_t json_number(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\": ");
  EXPECT_NE(at, std::string::npos) << key << " in " << json;
  return at == std::string::npos ? 0 : std::stoull(json.substr(at + key.size() + 4));
}

// PartCC locks the partitions of each request's predicted access set. With the
// hot records moving every 20 ms the online executor must describe its buffer
// again after each move: a stale prediction would name the old hot key's
// partition, and the new one would be locked at access ("unpredicted") for
// most transactions. Only attempts that straddle a move may miss.
TEST(HotOnExecutors, PartCcPredictionsFollowTheMovingHotRecords) {
  HotOptions o = options(4, 40, 0.02);
  o.table_size = 40000;
  HotWorkload<PartCC> w(o);
  w.load(2);
  PartCC cc;
  EngineConfig cfg;
  cfg.threads = 2;
  cc.bind_workload(cfg, w);
  const auto r = test_support::run_verified(cc, w, {.threads = 2, .seconds = 0.3, .seed = 3});
  EXPECT_TRUE(r.invariants_ok) << r.invariant_detail;
  EXPECT_TRUE(r.check.serializable) << r.check.violation.message;
  JsonWriter j;
  j.begin_object();
  w.options_json(j);
  j.end_object();
  const uint64_t epochs = json_number(j.str().substr(j.str().rfind("\"epoch\": ")), "epoch");
  EXPECT_GE(epochs, 5u);  // the clock ran: 0.3 s of 20 ms epochs
  const uint64_t locked = json_number(r.cc_stats, "locked_txns");
  const uint64_t unpredicted = json_number(r.cc_stats, "unpredicted_partition_locks");
  EXPECT_GT(locked, 1000u);
  EXPECT_LE(unpredicted, 8 * (epochs + 1)) << "of " << locked << " transactions";
}

// Strife-style plans on the bundle executor: one CC-free queue per partition
// holding the transactions whose predicted keys all lie in it. The hot
// records move every millisecond, so most batches run into the epoch after the one
// they were described in; the reconnaissance's pin keeps each transaction on
// its described hot key, so the queues never conflict. Unpinned, a batch
// would mix two epochs' hot keys and its queues would conflict (the
// conflict-free check fails; tried). Also the bundle executor's --timeline.
class PartitionFrontend final : public BundleFrontend {
 public:
  explicit PartitionFrontend(uint32_t parts) : parts_(parts) {}
  void plan(std::span<const TxnDesc> batch, BundlePlan& plan) override {
    plan.worklist.resize(parts_);
    for (auto& q : plan.worklist) q.mode = BundleQueue::Mode::kWithoutCC;
    for (const TxnDesc& d : batch) {
      std::set<uint64_t> parts;
      for (GlobalKey k : d.write_set) parts.insert(local_key_of(k) % parts_);
      if (parts.size() == 1) plan.worklist[*parts.begin()].txns.push_back(d.id);
      else plan.residuals.push_back(d.id);
    }
    plan.step_us = {{"partition", 1.0}};
  }

 private:
  uint32_t parts_;
};

TEST(HotOnExecutors, PinnedBundlesStayConflictFreeAcrossMoves) {
  HotOptions o = options(4, 8, 0.001);
  o.remote_max = 0;  // cold records at home: many transactions fit one partition
  W w(o);
  w.load(1);
  CC cc;
  PartitionFrontend fe(4);
  EngineConfig cfg;
  cfg.threads = 2;
  cfg.warmup_s = 0;
  cfg.duration_s = 0.3;
  cfg.seed = 5;
  cfg.verify = true;
  cfg.timeline = true;
  cfg.txn_buffer = 256;
  cfg.frontend = "partition";
  FrontendSpec spec;
  spec.name = "partition";
  spec.executor = FrontendSpec::Executor::kBundle;
  spec.batch_size = 512;
  BundleExecutor<CC, W> exec(cfg, cc, w, fe, spec);
  RunOutcome<W> out = exec.run();
  EXPECT_GE(w.epoch(), 100u);
  expect_all_hold(w.check_invariants(out.workload_states));
  verify::History h = verify::HistoryLog::merge(out.history_logs);
  const verify::CheckResult check = verify::check_serializable(h);
  EXPECT_TRUE(check.serializable) << check.violation.message;
  const verify::CfCheckResult cf = verify::check_cc_free_queues(h, out.queue_tags);
  EXPECT_TRUE(cf.ok) << cf.message;
  EXPECT_GT(cf.cc_free_txns, 1000u);
  // --timeline: every measured commit in its second.
  ASSERT_FALSE(out.stats.timeline.empty());
  EXPECT_EQ(std::accumulate(out.stats.timeline.begin(), out.stats.timeline.end(), uint64_t{0}), out.stats.commits);
  EXPECT_LE(out.stats.timeline.size(), static_cast<size_t>(out.measured_s) + 1);
}

}  // namespace
}  // namespace ccb
