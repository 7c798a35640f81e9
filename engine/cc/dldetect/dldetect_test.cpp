// DlDetect's defining behaviour on deterministic schedules: a deadlock cycle
// aborts exactly one victim, a waiter without a cycle is granted on release,
// a queued writer is not overtaken by readers, an upgrade blocks queued shared
// requests. Waiting is observed with a second thread: a blocked call has not
// returned after a pause, and returns once the holder finishes.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <barrier>
#include <thread>
#include <vector>

#include "engine/cc/dldetect/dldetect.h"
#include "tests/cc/cc_test_util.h"

namespace ccb {
namespace {

using cc_test::Async;
using cc_test::Counters;
using cc_test::increment;
using cc_test::read;

constexpr uint64_t A = 0, B = 1, C = 2;
constexpr auto kPause = std::chrono::milliseconds(50);

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

}  // namespace
}  // namespace ccb
