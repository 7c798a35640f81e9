// Dora's defining behaviour as DORA (Strife section 5.4: "partition-local
// record-level locks owned by the thread"): a worker's access to its own
// partition takes no queue round trip and no row lock; a key the plan missed
// is locked at its owner at access (never by a row lock the owners' holders
// would not see), and a refused one is locked up front by the retry; an
// owner that never waits still answers a waiting coordinator at its next
// attempt. Deterministic schedules: the test thread plays the owners; a
// waiting coordinator is observed with a second thread.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/cc/dora/dora.h"
#include "tests/cc/cc_test_util.h"

namespace ccb {
namespace {

using cc_test::Async;
using cc_test::Counters;
using cc_test::increment;
using cc_test::read;

constexpr auto kPause = std::chrono::milliseconds(50);

using cc_test::key_in_partition;  // an unbound Dora routes keys by hash

TxnDesc predict(std::vector<uint64_t> reads, std::vector<uint64_t> writes) {
  TxnDesc d;
  for (uint64_t k : reads) d.read_set.push_back(make_global_key(0, k));
  for (uint64_t k : writes) d.write_set.push_back(make_global_key(0, k));
  std::sort(d.read_set.begin(), d.read_set.end());
  std::sort(d.write_set.begin(), d.write_set.end());
  return d;
}

// The row's NoWait lock word (0: nobody holds a row lock on it).
uint64_t row_lock_word(const Counters<Dora>& c, uint64_t key) {
  return c.table.lookup(key)->meta.lock.word.unmodelled().load();
}

class DoraTest : public ::testing::Test {
 protected:
  void SetUp() override { cc_.open(0, 2); }
  Dora cc_;
  const uint64_t a_ = key_in_partition(0, 2), a2_ = key_in_partition(0, 2, a_ + 1),
                 a3_ = key_in_partition(0, 2, a2_ + 1);
  const uint64_t b_ = key_in_partition(1, 2);
  Counters<Dora> c_{std::max({a_, a2_, a3_, b_}) + 1};
  Txn<Dora> t0_{cc_, 0, nullptr}, t1_{cc_, 1, nullptr};
};

// Worker 0 reads and writes keys of its own partition: the grant comes from
// its table at once (no message sent, nobody serving its inbox), the
// procedure's accesses leave the rows' lock words untouched, and the release
// is local too.
TEST_F(DoraTest, OwnPartitionAccessTakesNoQueueRoundTripAndNoRowLock) {
  t0_.begin();
  ASSERT_EQ(cc_.acquire_all(t0_, predict({a2_}, {a_})), RC::kOk);
  EXPECT_EQ(cc_.messages_sent(0), 0u);
  ASSERT_TRUE(increment(t0_, c_.table, a_));
  ASSERT_TRUE(read(t0_, c_.table, a2_));
  ASSERT_TRUE(read(t0_, c_.table, a3_));  // missed by the plan: its owner (this worker) locks it directly
  EXPECT_EQ(row_lock_word(c_, a_), 0u);
  EXPECT_EQ(row_lock_word(c_, a2_), 0u);
  EXPECT_EQ(row_lock_word(c_, a3_), 0u);
  EXPECT_EQ(t0_.commit(), RC::kOk);
  EXPECT_EQ(cc_.messages_sent(0), 0u);
  EXPECT_EQ(cc_.serve_pending(0), 0u);  // nothing went through the inbox either
  EXPECT_EQ(c_.value(a_), 1u);
  EXPECT_EQ(cc_.table_of(0).locked_keys(), 0u);  // everything released
}

// Worker 0 holds a exclusively through its plan (no row lock). Worker 1
// reads a without having predicted it: the access must not read a in place
// (a row lock would not see worker 0's owner lock), so it asks a's owner,
// which refuses (RC::kLockConflict). Its retry locks a with its plan, waits
// for worker 0's commit and reads the committed value.
TEST_F(DoraTest, UnpredictedAccessAsksTheOwnerAndTheRetryLocksItUpFront) {
  t0_.begin();
  ASSERT_EQ(cc_.acquire_all(t0_, predict({}, {a_})), RC::kOk);
  ASSERT_TRUE(increment(t0_, c_.table, a_));
  RC refused = RC::kOk;
  {
    Async worker1([&] {
      t1_.begin();
      ASSERT_EQ(cc_.acquire_all(t1_, predict({}, {b_})), RC::kOk);
      EXPECT_FALSE(read(t1_, c_.table, a_));
      refused = t1_.failure();
      t1_.abort();
    });
    while (!worker1.done()) cc_.serve_pending(0);  // owner 0 answers the try
  }
  EXPECT_EQ(refused, RC::kLockConflict);
  uint64_t seen = 0;
  Async retry([&] {
    t1_.begin(/*restarts=*/1);
    ASSERT_EQ(cc_.acquire_all(t1_, predict({}, {b_})), RC::kOk);  // b, and a missed before
    ASSERT_TRUE(read(t1_, c_.table, a_, &seen));
    EXPECT_EQ(t1_.commit(), RC::kOk);
  });
  while (cc_.serve_pending(0) == 0) std::this_thread::yield();  // the retry's request for a: queued
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(retry.done());
  EXPECT_EQ(t0_.commit(), RC::kOk);  // the local release grants the retry
  retry.join();
  EXPECT_EQ(seen, 1u);
  cc_.serve_pending(0);  // the retry's release
  EXPECT_EQ(cc_.table_of(0).locked_keys(), 0u);
  EXPECT_EQ(row_lock_word(c_, a_), 0u);
}

// Worker 0 never waits (its plans are its own partition's) and serves its
// inbox at the start of each attempt and at every Dora::kServeEvery-th row
// access, not at each: worker 1's request for a, sent while worker 0 ran a
// transaction of one access, is granted when worker 0 begins its next one.
TEST_F(DoraTest, BusyOwnerAnswersAtItsNextAttempt) {
  t0_.begin();
  ASSERT_EQ(cc_.acquire_all(t0_, predict({}, {a2_})), RC::kOk);
  std::atomic<bool> granted{false};
  Async worker1([&] {
    t1_.begin();
    ASSERT_EQ(cc_.acquire_all(t1_, predict({}, {a_})), RC::kOk);
    granted = true;
    ASSERT_TRUE(increment(t1_, c_.table, a_));
    EXPECT_EQ(t1_.commit(), RC::kOk);
  });
  std::this_thread::sleep_for(kPause);
  ASSERT_TRUE(increment(t0_, c_.table, a2_));  // a row access serves nothing
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(granted.load());
  EXPECT_EQ(t0_.commit(), RC::kOk);
  t0_.begin();
  ASSERT_EQ(cc_.acquire_all(t0_, predict({}, {a3_})), RC::kOk);  // serves the request first
  worker1.join();
  EXPECT_TRUE(granted.load());
  EXPECT_EQ(t0_.commit(), RC::kOk);
  cc_.serve_pending(0);  // worker 1's release
  EXPECT_EQ(c_.value(a_), 1u);
  EXPECT_EQ(cc_.table_of(0).locked_keys(), 0u);
}

// Between actions: worker 1's request is granted at worker 0's
// kServeEvery-th row access, while worker 0's transaction still runs.
TEST_F(DoraTest, BusyOwnerAnswersBetweenActions) {
  static_assert(Dora::kServeEvery == 4, "the schedule below counts four accesses");
  const uint64_t a4 = key_in_partition(0, 2, a3_ + 1), a5 = key_in_partition(0, 2, a4 + 1);
  Counters<Dora> c(a5 + 1);
  t0_.begin();
  ASSERT_EQ(cc_.acquire_all(t0_, predict({a2_, a3_, a4}, {a5})), RC::kOk);
  std::atomic<bool> granted{false};
  Async worker1([&] {
    t1_.begin();
    ASSERT_EQ(cc_.acquire_all(t1_, predict({}, {a_})), RC::kOk);
    granted = true;
    EXPECT_EQ(t1_.commit(), RC::kOk);
  });
  std::this_thread::sleep_for(kPause);
  ASSERT_TRUE(read(t0_, c.table, a2_));
  ASSERT_TRUE(read(t0_, c.table, a3_));
  ASSERT_TRUE(read(t0_, c.table, a4));
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(granted.load());  // three accesses: not served yet
  ASSERT_TRUE(increment(t0_, c.table, a5));  // the fourth serves the request
  worker1.join();
  EXPECT_TRUE(granted.load());
  EXPECT_EQ(t0_.commit(), RC::kOk);
  cc_.serve_pending(0);  // worker 1's release
  EXPECT_EQ(cc_.table_of(0).locked_keys(), 0u);
}

}  // namespace
}  // namespace ccb
