// HOT: hot-record placement (even and time-varying), partitionability of the
// generated transactions, the counter invariant and the options.
#include <gflags/gflags.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include "engine/cc/nowait.h"
#include "tests/workloads/test_util.h"
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
  const W::Placement p = w.placement(0);
  std::map<uint32_t, int> per_partition;
  for (uint32_t h = 0; h < 60; ++h) {
    EXPECT_EQ(w.hot_key(h, p), h);  // the hot keys are 0..H-1
    ++per_partition[w.partition_of(w.hot_key(h, p))];
  }
  ASSERT_EQ(per_partition.size(), 30u);
  for (const auto& [q, n] : per_partition) EXPECT_EQ(n, 2) << q;
  EXPECT_EQ(w.epoch(), 0u);  // no shifting by default
}

TEST(HotPlacement, ShiftedPlacementsCrowdIntoFewerPartitions) {
  W w(options(30, 100, 30));
  std::set<uint32_t> sizes;
  for (uint64_t e = 1; e <= 200; ++e) {
    const W::Placement p = w.placement(e);
    ASSERT_GE(p.n, 1u);
    ASSERT_LT(p.n, 30u);  // "a random number n (< 30) of partitions"
    sizes.insert(p.n);
    std::set<uint64_t> keys;
    std::set<uint32_t> parts;
    for (uint32_t h = 0; h < 100; ++h) {
      const uint64_t k = w.hot_key(h, p);
      ASSERT_LT(k / 30, 100u);  // inside the partition's hot pool
      keys.insert(k);
      parts.insert(w.partition_of(k));
    }
    ASSERT_EQ(keys.size(), 100u);  // still 100 distinct hot records
    ASSERT_EQ(parts.size(), p.n);
    const W::Placement again = w.placement(e);  // reproducible
    ASSERT_EQ(again.offset, p.offset);
    ASSERT_EQ(again.stride, p.stride);
  }
  EXPECT_GT(sizes.size(), 10u);
}

TEST(HotPlacement, EpochFollowsTheWallClockAndIsLogged) {
  W w(options(4, 8, 0.02));
  EXPECT_EQ(w.epoch(), 0u);  // starts the clock
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_GE(w.epoch(), 2u);
  JsonWriter j;
  j.begin_object();
  w.options_json(j);
  j.end_object();
  EXPECT_NE(j.str().find("\"hot_schedule\""), std::string::npos);
  EXPECT_NE(j.str().find("\"epoch\": 2"), std::string::npos);
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
      remote += w.partition_of(k) != home;
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
}

}  // namespace
}  // namespace ccb
