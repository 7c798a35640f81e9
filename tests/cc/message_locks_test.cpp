// The message-passing lock owners of the Dora and Orthrus substitutes
// (engine/cc_helpers/message_locks.h) and their defining behaviour: a
// cross-partition transaction proceeds only after every owner granted; and
// the routing of keys to owners by the workload's partitioning (one owner for
// a single-partition transaction) with its owners_per_txn counter.
// The owner lock table and the rendezvous run on deterministic schedules (the
// test thread plays the owners and serves each message itself); the
// protocol-level tests observe the waiting coordinator with a second thread.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <iostream>
#include <map>
#include <set>
#include <optional>
#include <thread>
#include <vector>

#include "engine/cc/dora/dora.h"
#include "engine/cc_helpers/message_locks.h"
#include "engine/cc/orthrus/orthrus.h"
#include "engine/core/json.h"
#include "engine/core/message_queue.h"
#include "engine/core/topology.h"
#include "tests/cc/cc_test_util.h"
#include "tests/support/schedule.h"
#include "workloads/tpcc/tpcc.h"
#include "workloads/ycsb/ycsb.h"

namespace ccb {
namespace {

using cc_test::Async;
using cc_test::Counters;
using cc_test::increment;
using cc_test::read;

constexpr auto kPause = std::chrono::milliseconds(50);

using cc_test::key_in_partition;

TxnDesc writes(std::vector<uint64_t> keys) {
  TxnDesc d;
  for (uint64_t k : keys) d.write_set.push_back(make_global_key(0, k));
  return d;
}

// ---- OwnerLockTable: all-or-nothing grants, queued requests -----------------

TEST(OwnerLockTable, ReadersShareWritersQueueAndReleaseGrantsInArrivalOrder) {
  OwnerLockTable t(4);
  const KeyLock ra[] = {{1, false}};
  const KeyLock wa[] = {{1, true}};
  const KeyLock wab[] = {{1, true}, {2, true}};
  const KeyLock wb[] = {{2, true}};
  EXPECT_TRUE(t.request(0, ra));   // shared
  EXPECT_TRUE(t.request(1, ra));   // shared with shared
  EXPECT_FALSE(t.request(2, wa));  // exclusive waits for both readers
  EXPECT_FALSE(t.request(3, wab)); // waits whole: key 2 is not taken meanwhile
  EXPECT_EQ(t.waiting(), 2u);
  EXPECT_EQ(t.locked_keys(), 1u);
  std::vector<uint32_t> granted;
  t.release(0, granted);
  EXPECT_TRUE(granted.empty());  // reader 1 still holds key 1
  t.release(1, granted);
  EXPECT_EQ(granted, std::vector<uint32_t>{2});  // first in arrival order; 3 conflicts with it
  granted.clear();
  t.release(2, granted);
  EXPECT_EQ(granted, std::vector<uint32_t>{3});
  EXPECT_EQ(t.waiting(), 0u);
  granted.clear();
  EXPECT_FALSE(t.request(0, wb));
  t.release(3, granted);
  EXPECT_EQ(granted, std::vector<uint32_t>{0});
}

// Random requests, tries and releases of 16 coordinators over 300 keys
// (the table's open-addressing map grows past its 64 slots and deletes
// inside probe runs) against a reference model of the same rules: a request
// is granted at once iff it fits the granted locks, a release grants the
// queued requests that then fit in arrival order, a try adds a fitting key.
TEST(OwnerLockTable, MatchesAReferenceModelOnRandomRequests) {
  constexpr uint32_t kCoords = 16;
  OwnerLockTable t(kCoords);
  std::map<GlobalKey, std::pair<uint32_t, bool>> ref;  // key -> readers, writer
  std::vector<std::vector<KeyLock>> req(kCoords);
  std::vector<int> state(kCoords, 0);  // 0 idle, 1 granted, 2 queued
  std::deque<uint32_t> queue;
  auto fits = [&](const std::vector<KeyLock>& keys) {
    for (const KeyLock& k : keys)
      if (auto it = ref.find(k.key); it != ref.end() && (it->second.second || k.exclusive)) return false;
    return true;
  };
  auto take = [&](const std::vector<KeyLock>& keys) {
    for (const KeyLock& k : keys) {
      auto& s = ref[k.key];
      if (k.exclusive) s.second = true;
      else ++s.first;
    }
  };
  Random rng(11);
  for (int step = 0; step < 20000; ++step) {
    const uint32_t c = static_cast<uint32_t>(rng.below(kCoords));
    if (state[c] == 0) {
      std::set<GlobalKey> keys;
      const int n = 1 + static_cast<int>(rng.below(12));
      while (static_cast<int>(keys.size()) < n) keys.insert(rng.below(300) * 7919);
      req[c].clear();
      for (GlobalKey k : keys) req[c].push_back({k, rng.chance(0.4)});
      const bool want = fits(req[c]);
      ASSERT_EQ(t.request(c, req[c]), want) << "step " << step;
      if (want) take(req[c]), state[c] = 1;
      else queue.push_back(c), state[c] = 2;
    } else if (state[c] == 1 && rng.chance(0.3)) {
      const KeyLock k{rng.below(300) * 7919, rng.chance(0.5)};
      bool want;
      auto mine = std::find_if(req[c].begin(), req[c].end(), [&](const KeyLock& h) { return h.key == k.key; });
      if (mine != req[c].end()) {
        want = mine->exclusive || !k.exclusive || ref[k.key].first == 1;
        if (want && !mine->exclusive && k.exclusive) ref[k.key] = {0, true}, mine->exclusive = true;
      } else {
        want = fits({k});
        if (want) req[c].push_back(k), take({k});
      }
      ASSERT_EQ(t.try_add(c, k), want) << "step " << step;
    } else if (state[c] == 1) {
      for (const KeyLock& k : req[c]) {
        auto& s = ref[k.key];
        if (k.exclusive) s.second = false;
        else --s.first;
        if (!s.second && s.first == 0) ref.erase(k.key);
      }
      state[c] = 0;
      std::vector<uint32_t> want_granted, granted;
      for (auto it = queue.begin(); it != queue.end();) {
        if (fits(req[*it])) {
          take(req[*it]);
          state[*it] = 1;
          want_granted.push_back(*it);
          it = queue.erase(it);
        } else {
          ++it;
        }
      }
      t.release(c, granted);
      ASSERT_EQ(granted, want_granted) << "step " << step;
    }
    ASSERT_EQ(t.locked_keys(), ref.size()) << "step " << step;
    ASSERT_EQ(t.waiting(), queue.size());
  }
}

TEST(LockPlan, GroupsByPartitionInAscendingOrderAndMergesModes) {
  TxnDesc d;
  const uint64_t a = key_in_partition(0, 3), b = key_in_partition(2, 3), c = key_in_partition(1, 3);
  d.read_set = {make_global_key(0, b), make_global_key(0, a), make_global_key(0, c)};
  d.write_set = {make_global_key(0, a)};  // a in both sets (a read-then-write): exclusive once
  LockPlan plan;
  plan.build(d, 3);
  EXPECT_EQ(plan.parts, (std::vector<uint32_t>{0, 1, 2}));
  ASSERT_EQ(plan.keys.size(), 3u);
  EXPECT_EQ(plan.keys_of(0)[0].key, make_global_key(0, a));
  EXPECT_TRUE(plan.keys_of(0)[0].exclusive);
  EXPECT_FALSE(plan.keys_of(1)[0].exclusive);
}

// ---- Routing by the workload's partitioning (Strife section 5.4: Dora
// exploits static partitioning) ----------------------------------------------

// Over `per_thread` generated requests of each of `threads` threads: the mean
// number of owners a request's lock plan talks to, and the mean number of
// workload partitions its predicted keys name (PartCC's partitions_per_txn).
template <class W>
std::pair<double, double> mean_owners_and_partitions(const W& w, uint32_t threads, const LockRouting& routing) {
  constexpr int kPerThread = 500;
  const auto parts = *WorkloadPartitioning::of_workload(w, threads);
  uint64_t owners = 0, partitions = 0;
  LockPlan plan;
  for (uint32_t t = 0; t < threads; ++t) {
    Random rng(seed_for(7, t));
    for (int i = 0; i < kPerThread; ++i) {
      typename W::Request r;
      w.generate(rng, t, r);
      const TxnDesc d = w.describe(r);
      plan.build(d, threads, routing);
      owners += plan.parts.size();
      std::vector<uint32_t> named;
      for (const auto* set : {&d.read_set, &d.write_set})
        for (GlobalKey k : *set)
          if (const uint32_t p = parts.of(k); p != WorkloadPartitioning::kNone) named.push_back(p);
      std::sort(named.begin(), named.end());
      partitions += std::unique(named.begin(), named.end()) - named.begin();
    }
  }
  const double n = double(threads) * kPerThread;
  return {double(owners) / n, double(partitions) / n};
}

// TPC-C, warehouses = owners = 4: routed by warehouse, a request talks to
// exactly the owners of the warehouses it names (one for a home-warehouse
// request), where a hash of the key scatters its keys over every owner.
TEST(LockRouting, TpccRequestTalksToTheOwnersOfItsWarehousesOnly) {
  TpccOptions o;
  o.warehouses = 4;
  TpccWorkload<Dora> tpcc(o);
  const auto [routed, warehouses] = mean_owners_and_partitions(tpcc, 4, LockRouting(*WorkloadPartitioning::of_workload(tpcc, 4)));
  const auto [hashed, unused] = mean_owners_and_partitions(tpcc, 4, LockRouting());
  std::cout << "TPC-C 4 warehouses, 4 owners: owners per txn " << hashed << " by key hash, " << routed
            << " by warehouse (warehouses per txn " << warehouses << ")\n";
  EXPECT_DOUBLE_EQ(routed, warehouses);
  EXPECT_LT(routed, 1.2);   // ~10% of requests leave their home warehouse
  EXPECT_GT(hashed, 2.5);   // a NewOrder's ~20 keys over 4 owners
}

// YCSB with --partitions = owners = 4: every request stays in one key range,
// so it talks to one owner.
TEST(LockRouting, SinglePartitionYcsbRequestTalksToOneOwner) {
  YcsbOptions o;
  o.table_size = 4096;
  o.payload_size = 8;
  o.req_per_txn = 16;
  o.read_ratio = 0.5;
  o.key_skew.theta = 0.6;
  o.partitions = 4;
  YcsbWorkload<Dora> ycsb(o);
  ycsb.load(1);  // builds the generator's distributions (YcsbGenerator::prepare)
  const auto [routed, partitions] = mean_owners_and_partitions(ycsb, 4, LockRouting(*WorkloadPartitioning::of_workload(ycsb, 4)));
  const auto [hashed, unused] = mean_owners_and_partitions(ycsb, 4, LockRouting());
  std::cout << "YCSB 4 partitions, 4 owners: owners per txn " << hashed << " by key hash, " << routed
            << " by partition\n";
  EXPECT_DOUBLE_EQ(partitions, 1.0);
  EXPECT_DOUBLE_EQ(routed, 1.0);
  EXPECT_GT(hashed, 3.5);  // 16 keys over 4 owners
}

// Keys of a table the workload leaves unpartitioned are not locked at the
// owners; workload partitions beyond the owners wrap around.
TEST(LockRouting, UnpartitionedKeysTakeNoOwnerLockAndPartitionsWrap) {
  const WorkloadPartitioning parts{6, nullptr, [](const void*, GlobalKey k, uint32_t n) {
                                     return table_of(k) == 1 ? WorkloadPartitioning::kNone
                                                             : static_cast<uint32_t>(local_key_of(k) % n);
                                   }};
  TxnDesc d;
  d.read_set = {make_global_key(1, 3), make_global_key(0, 5)};
  d.write_set = {make_global_key(0, 2)};
  LockPlan plan;
  plan.build(d, 4, LockRouting(parts));
  EXPECT_EQ(plan.parts, (std::vector<uint32_t>{1, 2}));  // partition 5 -> owner 1, partition 2 -> owner 2
  ASSERT_EQ(plan.keys.size(), 2u);
  EXPECT_EQ(plan.keys_of(0)[0].key, make_global_key(0, 5));
  EXPECT_EQ(plan.keys_of(1)[0].key, make_global_key(0, 2));
}

// The protocol binds the workload's partitioning and reports how many owners
// its attempts talked to.
TEST(Dora, BindsTheWorkloadsPartitioningAndCountsOwnersPerTransaction) {
  YcsbOptions o;
  o.table_size = 64;
  o.payload_size = 8;
  o.req_per_txn = 4;
  o.partitions = 2;
  YcsbWorkload<Dora> ycsb(o);
  Dora cc;
  EngineConfig cfg;
  cfg.threads = 2;
  cc.bind_workload(cfg, ycsb);
  cc.open(0, 2);
  Txn<Dora> t0(cc, 0, nullptr);
  t0.begin();
  ASSERT_EQ(cc.acquire_all(t0, writes({0, 1, 2, 31})), RC::kOk);  // keys 0-31: partition 0, worker 0's own
  EXPECT_EQ(t0.commit(), RC::kOk);
  cc.serve_pending(0);  // the release
  JsonWriter w;
  w.begin_object();
  cc.stats_json(w);
  w.end_object();
  for (const char* field : {R"("routing": "workload_partitions")", R"("locked_attempts": 1,)", R"("owners_per_txn": 1,)"})
    EXPECT_NE(w.str().find(field), std::string::npos) << field << " in " << w.str();
}

// ---- The rendezvous on a deterministic schedule -----------------------------

// Coordinator 0 holds key b (partition 1). Coordinator 1 wants a (partition 0)
// and b: partition 0 grants, partition 1 queues it, and it cannot proceed
// (holding only a) until coordinator 0 releases b. The test thread is both
// owners and serves each message itself, so every step is forced.
TEST(MessageLocks, CrossPartitionRequestProceedsOnlyAfterEveryGrant) {
  MessageLocks locks(2, 2);
  const uint64_t a = key_in_partition(0, 2), b = key_in_partition(1, 2);
  auto serve_one = [&](uint32_t p) {
    while (locks.serve_pending(p) == 0) std::this_thread::yield();
  };
  LockPlan p0, p1;
  p0.build(writes({b}), 2);
  p1.build(writes({a, b}), 2);
  locks.acquire(0, p0, /*block=*/false, [&] { locks.serve_pending(1); });
  EXPECT_EQ(locks.table(1).locked_keys(), 1u);

  std::atomic<bool> acquired{false};
  std::thread coordinator1([&] {
    locks.acquire(1, p1, /*block=*/true, [] {});
    acquired = true;
  });
  serve_one(0);  // a granted: coordinator 1 moves on to partition 1
  serve_one(1);  // b is held: queued
  EXPECT_EQ(locks.table(0).locked_keys(), 1u);  // a is held by the waiting coordinator
  EXPECT_EQ(locks.table(1).waiting(), 1u);
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(acquired.load());  // one grant of two: no procedure yet

  locks.release(0, p0);
  serve_one(1);  // the release grants b to coordinator 1
  coordinator1.join();
  EXPECT_TRUE(acquired.load());
  EXPECT_EQ(locks.table(1).waiting(), 0u);
  locks.release(1, p1);
  serve_one(0);
  serve_one(1);
  EXPECT_EQ(locks.table(0).locked_keys(), 0u);
  EXPECT_EQ(locks.table(1).locked_keys(), 0u);
}

// ---- The protocols ----------------------------------------------------------

// Orthrus: the CC thread (1 of 3 threads) owns the lock table. Execution
// thread 1's transaction on A and B waits until execution thread 0, holding A,
// commits, and then reads A's committed value; whether the threads poll their
// queues or sleep in them (--orthrus_wait).
class OrthrusWaits : public ::testing::TestWithParam<std::string> {};

TEST_P(OrthrusWaits, TransactionRunsOnlyAfterItsLocksAreGranted) {
  Orthrus cc;
  EXPECT_EQ(Orthrus::lock_server_threads(2), 1);
  EXPECT_EQ(Orthrus::lock_server_threads(5), 1);
  EXPECT_EQ(Orthrus::lock_server_threads(6), 2);  // 1:4
  OrthrusOptions o;
  o.wait = GetParam();
  cc.configure(o);
  cc.open(1, 2);
  std::optional<test_support::LentThreadsRunning> cc_thread(std::in_place, cc);
  Counters<Orthrus> c(4);
  Txn<Orthrus> t0(cc, 0, nullptr), t1(cc, 1, nullptr);
  t0.begin();
  ASSERT_EQ(cc.acquire_all(t0, writes({0})), RC::kOk);
  ASSERT_TRUE(increment(t0, c.table, 0));
  uint64_t seen = 0;
  Async waiter([&] {
    t1.begin();
    ASSERT_EQ(cc.acquire_all(t1, writes({0, 1})), RC::kOk);
    ASSERT_TRUE(read(t1, c.table, 0, &seen));
    ASSERT_TRUE(increment(t1, c.table, 1));
    EXPECT_EQ(t1.commit(), RC::kOk);
  });
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(waiter.done());
  EXPECT_EQ(t0.commit(), RC::kOk);
  waiter.join();
  EXPECT_EQ(seen, 1u);
  EXPECT_EQ(c.value(1), 1u);
  cc_thread.reset();
  cc.close();
}
INSTANTIATE_TEST_SUITE_P(Orthrus, OrthrusWaits, ::testing::ValuesIn(OrthrusOptions::waits()),
                         [](const auto& info) { return info.param; });

// Dora: worker 0 owns partition 0, worker 1 partition 1. Worker 0 locks A
// (its own partition, in its own table) and B (worker 1's, by a request to
// worker 1); worker 1's
// request for A reaches worker 0's partition, which queues it, and worker 1
// (serving its own partition meanwhile) proceeds only after worker 0 commits.
// With `idle workers` beyond the two (each only waits in worker_done), more
// workers than cores: every waiting worker sleeps on its doorbell after its
// spin rounds (idle_sleeps counts it), and a message or the last worker_done
// wakes it; at most one worker per core nobody sleeps.
class DoraWorkers : public ::testing::TestWithParam<bool> {};

TEST_P(DoraWorkers, CrossPartitionTransactionWaitsForEveryOwner) {
  const bool oversubscribed = GetParam();
  const int cores = static_cast<int>(Topology::get().cpus.size());
  const int workers = oversubscribed ? cores + 2 : 2;
  if (!oversubscribed && cores < 2) GTEST_SKIP() << "needs 2 cores for one worker per core";
  Dora cc;
  cc.open(0, workers);
  ASSERT_EQ(cc.sleeps_when_idle(), oversubscribed);
  const uint64_t a = key_in_partition(0, workers), b = key_in_partition(1, workers);
  Counters<Dora> c(std::max(a, b) + 1);
  Txn<Dora> t0(cc, 0, nullptr), t1(cc, 1, nullptr);
  std::vector<std::thread> idle_workers;
  for (int i = 2; i < workers; ++i) idle_workers.emplace_back([&cc, i] { cc.worker_done(i); });
  std::atomic<bool> t0_locked{false};
  uint64_t seen = 0;
  Async worker1([&] {
    while (!t0_locked.load()) cc.serve_pending(1);  // the owner of partition 1 at work
    t1.begin();
    ASSERT_EQ(cc.acquire_all(t1, writes({a})), RC::kOk);
    ASSERT_TRUE(read(t1, c.table, a, &seen));
    EXPECT_EQ(t1.commit(), RC::kOk);
    cc.worker_done(1);
  });
  t0.begin();
  ASSERT_EQ(cc.acquire_all(t0, writes({a, b})), RC::kOk);
  ASSERT_TRUE(increment(t0, c.table, a));  // (worker 1 asks only after these)
  ASSERT_TRUE(increment(t0, c.table, b));
  t0_locked = true;
  while (cc.serve_pending(0) == 0) std::this_thread::yield();  // worker 1's request: queued behind t0
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(worker1.done());
  EXPECT_EQ(t0.commit(), RC::kOk);
  cc.worker_done(0);  // serves partition 0 (the release, then the grant) until every worker is done
  worker1.join();
  for (auto& t : idle_workers) t.join();
  EXPECT_EQ(seen, 1u);
  EXPECT_EQ(c.value(b), 1u);
  if (oversubscribed) EXPECT_GT(cc.idle_sleeps(), 0u);  // the idle workers slept through the 50 ms pause
  else EXPECT_EQ(cc.idle_sleeps(), 0u);
}
INSTANTIATE_TEST_SUITE_P(Dora, DoraWorkers, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "MoreWorkersThanCores" : "OneWorkerPerCore"; });

// The doorbell's hand-off: a sleeper wakes at a ring after it read the
// count, and a ring between seen() and sleep() ends the sleep at once (no
// lost wake-up).
TEST(Doorbell, RingWakesTheSleeperAndARingBeforeTheSleepIsNotLost) {
  Doorbell bell;
  const uint32_t before = bell.seen();
  bell.ring();
  bell.sleep(before);  // returns at once: the count moved on
  std::atomic<bool> woke{false};
  std::thread sleeper([&] {
    bell.sleep(bell.seen());
    woke = true;
  });
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(woke.load());
  bell.ring();
  sleeper.join();
  EXPECT_TRUE(woke.load());
  EXPECT_EQ(bell.sleeps(), 2u);
}

}  // namespace
}  // namespace ccb
