// LockSorted's defining behaviour: it waits in key order for the first
// unavailable lock while holding only smaller keys, so opposite access orders
// neither deadlock nor abort. Waiting is observed with a second thread. The
// acquisition every protocol that locks the predicted set shares is
// tests/cc/lock_test.cpp's.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/cc/locksorted/locksorted.h"
#include "tests/cc/cc_test_util.h"
#include "tests/support/protocols.h"

namespace ccb {
namespace {

using cc_test::Async;
using cc_test::Counters;
using cc_test::increment;
using test_support::predict;

constexpr uint64_t A = 0, B = 1, C = 2;
constexpr auto kPause = std::chrono::milliseconds(50);

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

}  // namespace
}  // namespace ccb
