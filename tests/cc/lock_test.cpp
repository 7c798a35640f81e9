// The locking protocols' defining behaviour (WaitDie, DlDetect, LockSorted,
// PreNoWait) and the engine hooks they use. The interleavings every protocol
// must handle are tests/engine/protocol_test.cpp's. Waiting is observed with a
// second thread: a blocked call has not returned after a pause, and returns
// once the holder finishes.
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <functional>
#include <thread>
#include <type_traits>

#include "engine/cc/bcc.h"
#include "engine/cc/dldetect.h"
#include "engine/cc/locksorted.h"
#include "engine/cc/prenowait.h"
#include "engine/cc/waitdie.h"
#include "tests/cc/cc_test_util.h"
#include "tests/support/protocols.h"

namespace ccb {
namespace {

using cc_test::Counters;
using cc_test::increment;
using cc_test::read;
using test_support::predict;

constexpr uint64_t A = 0, B = 1, C = 2;
constexpr auto kPause = std::chrono::milliseconds(50);

using cc_test::Async;

// ---- WaitDie ------------------------------------------------------------------

class WaitDieTest : public ::testing::Test {
 protected:
  WaitDie cc_;
  Counters<WaitDie> c_{4};
  Txn<WaitDie> older_{cc_, 0, nullptr}, younger_{cc_, 1, nullptr};
  void SetUp() override {
    older_.begin();  // timestamps follow begin order
    younger_.begin();
  }
};

TEST_F(WaitDieTest, YoungerDies) {
  ASSERT_TRUE(increment(older_, c_.table, A));
  EXPECT_FALSE(read(younger_, c_.table, A));
  EXPECT_EQ(younger_.failure(), RC::kWaitDie);
  EXPECT_FALSE(increment(younger_, c_.table, A));
  EXPECT_EQ(younger_.failure(), RC::kWaitDie);
  younger_.abort();
  EXPECT_EQ(older_.commit(), RC::kOk);
}

TEST_F(WaitDieTest, YoungerUpgradeAgainstOlderReaderDies) {
  ASSERT_TRUE(read(older_, c_.table, A));
  ASSERT_TRUE(read(younger_, c_.table, A));  // shared locks are compatible
  EXPECT_FALSE(increment(younger_, c_.table, A));
  EXPECT_EQ(younger_.failure(), RC::kWaitDie);
  younger_.abort();
  EXPECT_TRUE(increment(older_, c_.table, A));  // now the only holder: upgrades
  EXPECT_EQ(older_.commit(), RC::kOk);
}

TEST_F(WaitDieTest, OlderWaitsForYounger) {
  ASSERT_TRUE(increment(younger_, c_.table, A));
  bool got = false;
  Async waiter([&] { got = increment(older_, c_.table, A); });
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(waiter.done());  // waiting, not dead
  ASSERT_EQ(younger_.commit(), RC::kOk);
  waiter.join();
  ASSERT_TRUE(got);
  EXPECT_EQ(older_.commit(), RC::kOk);
  EXPECT_EQ(c_.value(A), 2u);
}

// Standard wait-die: a retried request keeps its timestamp, so it stays older
// than transactions that started after its first attempt.
TEST_F(WaitDieTest, RetryKeepsTheTimestamp) {
  const uint64_t first = older_.meta().ts;
  older_.abort();
  older_.begin(/*restarts=*/1);
  EXPECT_EQ(older_.meta().ts, first);
  ASSERT_TRUE(increment(older_, c_.table, A));
  EXPECT_FALSE(increment(younger_, c_.table, A));  // still the younger one dies
  EXPECT_EQ(younger_.failure(), RC::kWaitDie);
  younger_.abort();
  older_.abort();
  older_.begin(0);  // a new request: a new, younger timestamp
  EXPECT_GT(older_.meta().ts, younger_.meta().ts);
  older_.abort();
}

// ---- DlDetect -----------------------------------------------------------------

class DlDetectTest : public ::testing::Test {
 protected:
  // These tests hold locks for kPause on purpose: the deadlock timeout (a
  // safety net, docs/protocols.md) must not cut their waits short.
  DlDetectTest() { cc_.wait_timeout_ns = 60'000'000'000; }
  DlDetect cc_;
  Counters<DlDetect> c_{8};
};

// Each transaction locks its first row, then (after both did) the other's: a
// cycle; exactly one of them is aborted, the other commits.
TEST_F(DlDetectTest, TwoTransactionDeadlockAbortsExactlyOneVictim) {
  Txn<DlDetect> t1(cc_, 0, nullptr), t2(cc_, 1, nullptr);
  for (int round = 0; round < 20; ++round) {
    std::barrier sync(2);
    RC rc1 = RC::kOk, rc2 = RC::kOk;
    auto body = [&](Txn<DlDetect>& t, uint64_t first, uint64_t second, RC& rc) {
      t.begin();
      ASSERT_TRUE(increment(t, c_.table, first));
      sync.arrive_and_wait();
      rc = increment(t, c_.table, second) ? t.commit() : t.failure();
      if (rc != RC::kOk) t.abort();
    };
    std::thread a([&] { body(t1, A, B, rc1); });
    std::thread b([&] { body(t2, B, A, rc2); });
    a.join();
    b.join();
    EXPECT_EQ((rc1 == RC::kDeadlock) + (rc2 == RC::kDeadlock), 1) << "round " << round;
    EXPECT_EQ((rc1 == RC::kOk) + (rc2 == RC::kOk), 1) << "round " << round;
  }
  EXPECT_EQ(c_.value(A), 20u);
  EXPECT_EQ(c_.value(B), 20u);
}

TEST_F(DlDetectTest, ThreeTransactionCycleAbortsExactlyOneVictim) {
  Txn<DlDetect> t[3] = {{cc_, 0, nullptr}, {cc_, 1, nullptr}, {cc_, 2, nullptr}};
  for (int round = 0; round < 10; ++round) {
    std::barrier sync(3);
    RC rc[3];
    std::vector<std::thread> threads;
    for (int i = 0; i < 3; ++i) {
      threads.emplace_back([&, i] {
        t[i].begin();
        ASSERT_TRUE(increment(t[i], c_.table, i));
        sync.arrive_and_wait();
        rc[i] = increment(t[i], c_.table, (i + 1) % 3) ? t[i].commit() : t[i].failure();
        if (rc[i] != RC::kOk) t[i].abort();
      });
    }
    for (auto& th : threads) th.join();
    int victims = 0;
    for (RC r : rc) victims += r == RC::kDeadlock;
    EXPECT_EQ(victims, 1) << "round " << round;
  }
}

// Two readers that both upgrade wait for each other: one victim.
TEST_F(DlDetectTest, UpgradeDeadlockAbortsExactlyOneVictim) {
  Txn<DlDetect> t1(cc_, 0, nullptr), t2(cc_, 1, nullptr);
  for (int round = 0; round < 10; ++round) {
    std::barrier sync(2);
    RC rc1 = RC::kOk, rc2 = RC::kOk;
    auto body = [&](Txn<DlDetect>& t, RC& rc) {
      t.begin();
      ASSERT_TRUE(read(t, c_.table, A));
      sync.arrive_and_wait();
      rc = increment(t, c_.table, A) ? t.commit() : t.failure();
      if (rc != RC::kOk) t.abort();
    };
    std::thread a([&] { body(t1, rc1); });
    std::thread b([&] { body(t2, rc2); });
    a.join();
    b.join();
    EXPECT_EQ((rc1 == RC::kDeadlock) + (rc2 == RC::kDeadlock), 1) << "round " << round;
  }
  EXPECT_EQ(c_.value(A), 10u);
}

// A waiter that is in no cycle is never a victim: it gets the lock when the
// holder commits, long after deadlock searches started.
TEST_F(DlDetectTest, WaiterWithoutCycleIsGrantedOnRelease) {
  Txn<DlDetect> t1(cc_, 0, nullptr), t2(cc_, 1, nullptr);
  t1.begin();
  t2.begin();
  ASSERT_TRUE(increment(t1, c_.table, A));
  bool got = false;
  Async waiter([&] { got = increment(t2, c_.table, A); });
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(waiter.done());
  ASSERT_EQ(t1.commit(), RC::kOk);
  waiter.join();
  ASSERT_TRUE(got);
  EXPECT_EQ(t2.commit(), RC::kOk);
  EXPECT_EQ(c_.value(A), 2u);
}

// Requests are granted in queue order: a reader arriving behind a queued
// writer waits even though the current holder is a reader.
TEST_F(DlDetectTest, QueuedWriterIsNotOvertakenByReaders) {
  Txn<DlDetect> t1(cc_, 0, nullptr), t2(cc_, 1, nullptr), t3(cc_, 2, nullptr);
  t1.begin();
  t2.begin();
  t3.begin();
  ASSERT_TRUE(read(t1, c_.table, A));
  std::atomic<bool> writer_done{false};
  Async writer([&] {
    ASSERT_TRUE(increment(t2, c_.table, A));
    std::this_thread::sleep_for(kPause);
    writer_done = true;
    ASSERT_EQ(t2.commit(), RC::kOk);
  });
  std::this_thread::sleep_for(kPause);
  uint64_t seen = 0;
  Async reader([&] { ASSERT_TRUE(read(t3, c_.table, A, &seen)); });
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(reader.done());
  ASSERT_EQ(t1.commit(), RC::kOk);
  writer.join();
  reader.join();
  EXPECT_TRUE(writer_done.load());
  EXPECT_EQ(seen, 1u);  // the reader came after the writer
  EXPECT_EQ(t3.commit(), RC::kOk);
}

// A shared request w queued behind an exclusive request x on A, and h, a
// reader of A, upgrading: in place when it is A's only holder, or queued at
// the front when a second reader r holds A too. Then x is aborted as the
// victim of another cycle (x holds C, which h or r wants), which leaves h the
// only transaction w waits for, and h waits for B, which w holds: a deadlock
// that only the edge w -> h drawn at h's upgrade shows (w's own edges, drawn
// when it queued, name x alone). Without that edge the deadlock lasted until
// the wait timeout, which the test lowers to 5 s so that it fails rather than
// hangs then. Lock counts (victim choice) make x, then w, the victims.
void upgrade_behind_queued_shared_request(DlDetect& cc, Counters<DlDetect>& c, bool second_reader) {
  constexpr uint64_t D = 3, E = 4, F = 5;
  cc.wait_timeout_ns = 5'000'000'000;
  Txn<DlDetect> h(cc, 0, nullptr), x(cc, 1, nullptr), w(cc, 2, nullptr), r(cc, 3, nullptr);
  auto finish = [](Txn<DlDetect>& t, bool ok, RC& rc) {
    rc = ok ? t.commit() : t.failure();
    if (rc != RC::kOk) t.abort();
  };
  h.begin();
  ASSERT_TRUE(read(h, c.table, A));
  ASSERT_TRUE(increment(h, c.table, D));
  ASSERT_TRUE(increment(h, c.table, E));  // h: 3 locks, then 5
  w.begin();
  ASSERT_TRUE(read(w, c.table, B));  // w: 2 locks at its wait
  x.begin();
  ASSERT_TRUE(increment(x, c.table, C));  // x: 2 locks at its wait
  if (second_reader) {
    r.begin();
    ASSERT_TRUE(read(r, c.table, A));
    ASSERT_TRUE(increment(r, c.table, F));  // r: 3 locks at its wait
  }
  RC rc_x = RC::kOk, rc_w = RC::kOk, rc_h = RC::kOk, rc_r = RC::kOk;
  Async xa([&] { finish(x, increment(x, c.table, A), rc_x); });
  std::this_thread::sleep_for(kPause);
  Async wa([&] { finish(w, read(w, c.table, A), rc_w); });
  std::this_thread::sleep_for(kPause);
  ASSERT_FALSE(xa.done());
  ASSERT_FALSE(wa.done());  // queued behind x
  // h upgrades (waiting for r if there is one), then waits for C (held by
  // x), then for B (held by w).
  Async ha([&] { finish(h, increment(h, c.table, A) && increment(h, c.table, C) && increment(h, c.table, B), rc_h); });
  if (second_reader) {
    std::this_thread::sleep_for(kPause);
    EXPECT_FALSE(ha.done());  // the upgrade is queued at the front
    finish(r, increment(r, c.table, C), rc_r);  // waits for x: x is the victim
  }
  xa.join();
  wa.join();
  ha.join();
  EXPECT_EQ(rc_x, RC::kDeadlock);
  EXPECT_EQ(rc_w, RC::kDeadlock);
  EXPECT_EQ(rc_h, RC::kOk);
  EXPECT_EQ(rc_r, RC::kOk);
  EXPECT_EQ(cc.deadlock_timeouts(), 0u) << "the deadlock was not detected";
  EXPECT_EQ(c.value(A), 1u);
  EXPECT_EQ(c.value(B), 1u);
  EXPECT_EQ(c.value(C), second_reader ? 2u : 1u);
}

TEST_F(DlDetectTest, UpgradeInPlaceBlocksQueuedSharedRequests) {
  upgrade_behind_queued_shared_request(cc_, c_, false);
}

TEST_F(DlDetectTest, UpgradeQueuedAtTheFrontBlocksQueuedSharedRequests) {
  upgrade_behind_queued_shared_request(cc_, c_, true);
}

// ---- LockSorted and PreNoWait ---------------------------------------------------

template <class CC>
class PredictedLockingTest : public ::testing::Test {
 protected:
  PredictedLockingTest() {
    for (auto* t : {&t1_, &t2_, &t3_}) t->register_table(c_.table);
  }
  CC cc_;
  Counters<CC> c_{4};
  Txn<CC> t1_{cc_, 0, nullptr}, t2_{cc_, 1, nullptr}, t3_{cc_, 2, nullptr};
};
// Protocols that lock the predicted access set up front with the workers' own
// row locks (acquire_all, no lock service, no partitions): LockSorted and
// PreNoWait. An access the prediction missed then follows NoWait's rule.
template <class CC>
struct LocksPredictedRows
    : std::bool_constant<HasAcquireAll<CC> && !HasLockService<CC> && !test_support::NeedsPartitions<CC>> {};
TYPED_TEST_SUITE(PredictedLockingTest, test_support::ProtocolsWhere<LocksPredictedRows>);

// The predicted set is locked before the procedure runs, which then reuses
// those accesses.
TYPED_TEST(PredictedLockingTest, LocksThePredictedSetBeforeExecution) {
  auto& t1 = this->t1_;
  auto& t2 = this->t2_;
  t1.begin();
  ASSERT_EQ(this->cc_.acquire_all(t1, predict({B}, {A})), RC::kOk);
  EXPECT_EQ(t1.accesses().size(), 2u);
  t2.begin();
  EXPECT_FALSE(increment(t2, this->c_.table, A));  // exclusively held
  EXPECT_EQ(t2.failure(), RC::kLockConflict);
  EXPECT_TRUE(read(t2, this->c_.table, B));  // shared
  t2.abort();
  ASSERT_TRUE(increment(t1, this->c_.table, A));
  ASSERT_TRUE(read(t1, this->c_.table, B));
  EXPECT_EQ(t1.accesses().size(), 2u);
  EXPECT_EQ(t1.commit(), RC::kOk);
  EXPECT_EQ(this->c_.value(A), 1u);
}

TEST(PreNoWaitTest, ConflictInTheAcquisitionAbortsAndReleases) {
  PreNoWait cc;
  Counters<PreNoWait> c(4);
  Txn<PreNoWait> t1(cc, 0, nullptr), t2(cc, 1, nullptr), t3(cc, 2, nullptr);
  for (auto* t : {&t1, &t2, &t3}) t->register_table(c.table);
  t1.begin();
  ASSERT_EQ(cc.acquire_all(t1, predict({}, {B})), RC::kOk);
  t2.begin();
  EXPECT_EQ(cc.acquire_all(t2, predict({A}, {B, C})), RC::kLockConflict);  // A locked, then B refused
  t2.abort();
  t3.begin();
  ASSERT_TRUE(increment(t3, c.table, A));  // t2's locks are gone
  ASSERT_TRUE(increment(t3, c.table, C));
  EXPECT_EQ(t3.commit(), RC::kOk);
  EXPECT_EQ(t1.commit(), RC::kOk);
}

// LockSorted waits in key order while holding only smaller keys.
TEST(LockSortedTest, WaitsForTheFirstUnavailableLockHoldingNothingLarger) {
  LockSorted cc;
  Counters<LockSorted> c(4);
  Txn<LockSorted> t1(cc, 0, nullptr), t2(cc, 1, nullptr), t3(cc, 2, nullptr);
  for (auto* t : {&t1, &t2, &t3}) t->register_table(c.table);
  t1.begin();
  ASSERT_EQ(cc.acquire_all(t1, predict({}, {B})), RC::kOk);
  t2.begin();
  RC rc = RC::kUser;
  Async waiter([&] { rc = cc.acquire_all(t2, predict({}, {A, B, C})); });
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(waiter.done());
  t3.begin();
  EXPECT_FALSE(increment(t3, c.table, A));  // t2 holds A (smaller than B)...
  t3.abort();
  t3.begin();
  EXPECT_TRUE(increment(t3, c.table, C));  // ...but not C (larger than B)
  ASSERT_EQ(t3.commit(), RC::kOk);
  ASSERT_TRUE(increment(t1, c.table, B));
  ASSERT_EQ(t1.commit(), RC::kOk);
  waiter.join();
  EXPECT_EQ(rc, RC::kOk);
  for (uint64_t k : {A, B, C}) ASSERT_TRUE(increment(t2, c.table, k));
  EXPECT_EQ(t2.commit(), RC::kOk);
  EXPECT_EQ(c.value(B), 2u);
}

// Procedures touching the same rows in opposite orders never deadlock nor
// abort under LockSorted: the locks were taken in one order beforehand.
TEST(LockSortedTest, OppositeAccessOrdersNeitherDeadlockNorAbort) {
  LockSorted cc;
  Counters<LockSorted> c(4);
  constexpr int kRounds = 2000;
  auto worker = [&](uint32_t thread, bool reverse) {
    Txn<LockSorted> t(cc, thread, nullptr);
    t.register_table(c.table);
    const TxnDesc d = predict({}, {A, B});
    for (int i = 0; i < kRounds; ++i) {
      t.begin();
      ASSERT_EQ(cc.acquire_all(t, d), RC::kOk);
      ASSERT_TRUE(increment(t, c.table, reverse ? B : A));
      ASSERT_TRUE(increment(t, c.table, reverse ? A : B));
      ASSERT_EQ(t.commit(), RC::kOk);
    }
  };
  std::thread a(worker, 0, false), b(worker, 1, true);
  a.join();
  b.join();
  EXPECT_EQ(c.value(A), 2u * kRounds);
  EXPECT_EQ(c.value(B), 2u * kRounds);
}

// ---- Executor hooks ---------------------------------------------------------------

EngineConfig small_config(int threads) {
  EngineConfig cfg;
  cfg.threads = threads;
  cfg.duration_s = 0.01;
  cfg.txn_buffer = 16;
  return cfg;
}

// YCSB with everything but table_by_id: a workload whose keys a protocol that
// locks the predicted access set could not resolve.
template <class CC>
struct YcsbWithoutTableRegistry {
  static constexpr const char* kName = "ycsb";
  using Request = YcsbRequest;
  using ThreadState = typename YcsbWorkload<CC>::ThreadState;
  YcsbWorkload<CC>& inner;
  std::vector<std::string> txn_types() const { return inner.txn_types(); }
  void load(int threads) { inner.load(threads); }
  void generate(Random& rng, uint32_t thread, Request& r) const { inner.generate(rng, thread, r); }
  RC run(Txn<CC>& txn, const Request& r) { return inner.run(txn, r); }
  TxnDesc describe(const Request& r) const { return inner.describe(r); }
  void on_commit(ThreadState& s, const Request& r) const { inner.on_commit(s, r); }
  std::vector<InvariantResult> check_invariants(const std::vector<ThreadState>& s) { return inner.check_invariants(s); }
  void options_json(JsonWriter& w) const { inner.options_json(w); }
  size_t memory_bytes() const { return inner.memory_bytes(); }
  MemoryEstimate memory_estimate() const { return inner.memory_estimate(); }
};

TEST(ExecutorHooks, PredictedLockingNeedsTheWorkloadTables) {
  YcsbOptions opt = cc_test::contended_ycsb();
  YcsbWorkload<LockSorted> ycsb(opt);
  ycsb.load(1);
  YcsbWithoutTableRegistry<LockSorted> w{ycsb};
  LockSorted cc;
  const EngineConfig cfg = small_config(1);
  OnlineExecutor<LockSorted, YcsbWithoutTableRegistry<LockSorted>> exec(cfg, cc, w);
  try {
    exec.run();
    FAIL() << "expected a configuration error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.flag, "cc");
  }
}

TEST(ExecutorHooks, ThreadLimitOfTheProtocol) {
  YcsbOptions opt = cc_test::contended_ycsb();
  YcsbWorkload<WaitDie> w(opt);
  w.load(1);
  WaitDie cc;
  const EngineConfig cfg = small_config(WaitDie::kMaxThreads + 1);
  OnlineExecutor<WaitDie, YcsbWorkload<WaitDie>> exec(cfg, cc, w);
  try {
    exec.run();
    FAIL() << "expected a configuration error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.flag, "threads");
  }
}

// Read-only requests reach the protocol: under BCC they run as snapshot
// transactions, counted in the protocol statistics.
TEST(ExecutorHooks, ReadOnlyRequestsRunAsSnapshots) {
  cc_test::BankWorkload<Bcc> w(16, 0.5);
  w.load(1);
  Bcc cc;
  EngineConfig cfg = small_config(2);
  cfg.duration_s = 0.05;
  cfg.txn_buffer = 64;
  // Short runs, repeated until a read-only request has committed (at most
  // 40 x 50 ms): on a loaded machine one 50 ms run may commit none, which
  // says nothing about the protocol.
  uint64_t read_only_commits = 0;
  for (int round = 0; round < 40 && read_only_commits == 0; ++round) {
    OnlineExecutor<Bcc, cc_test::BankWorkload<Bcc>> exec(cfg, cc, w);
    read_only_commits += exec.run().stats.per_type[1].commits;
  }
  EXPECT_GT(read_only_commits, 0u);
  EXPECT_GT(cc.total_stats().snapshot_txns, 0u);
  EXPECT_EQ(w.bad_audits.load(), 0u);
}

}  // namespace
}  // namespace ccb
