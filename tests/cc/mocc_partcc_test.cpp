// The comparators of the Strife paper's Fig 8 (issue 14): MOCC and PartCC,
// each on deterministic schedules of its defining behaviour. MOCC: a row whose
// temperature crosses the threshold is locked on the next read (a concurrent
// writer then waits instead of aborting the reader), the temperature halves
// every decay period, and an out-of-order lock is tried, never waited for.
// PartCC: two transactions on one partition serialize, on two partitions run in parallel,
// and an unpredicted partition out of order is tried once. Waiting is observed
// with a second thread (as tests/cc/lock_test.cpp).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "engine/cc/mocc.h"
#include "engine/cc/partcc.h"
#include "tests/cc/cc_test_util.h"

namespace ccb {
namespace {

using cc_test::Async;
using cc_test::Counters;
using cc_test::increment;
using cc_test::read;

constexpr auto kPause = std::chrono::milliseconds(50);


// ---- MOCC -----------------------------------------------------------------------

class MoccTest : public ::testing::Test {
 protected:
  static constexpr uint32_t kThreshold = 2;
  static constexpr uint64_t A = 0;
  Mocc cc_{kThreshold, 1000};
  Counters<Mocc> c_{4};
  Txn<Mocc> t1_{cc_, 0, nullptr}, t2_{cc_, 1, nullptr};

  const Mocc::RowMeta& meta(uint64_t key) { return c_.table.lookup(key)->meta; }
  uint64_t lock_word(uint64_t key) { return meta(key).lock.word.load(); }
  // T1 reads A, T2 increments A and commits, T1 commits: returns T1's outcome.
  RC read_overwritten_by_other() {
    t1_.begin();
    EXPECT_TRUE(read(t1_, c_.table, A));
    t2_.begin();
    EXPECT_TRUE(increment(t2_, c_.table, A));
    EXPECT_EQ(t2_.commit(), RC::kOk);
    return t1_.commit();
  }
};

TEST_F(MoccTest, RowCrossingTheThresholdIsLockedOnTheNextRead) {
  // Cold: read optimistically (no lock), and each failed validation heats A.
  for (uint32_t i = 0; i < kThreshold; ++i) {
    EXPECT_FALSE(cc_.hot(meta(A)));
    t1_.begin();
    ASSERT_TRUE(read(t1_, c_.table, A));
    EXPECT_EQ(lock_word(A), 0u) << "a cold read takes no lock";
    t1_.abort();
    EXPECT_EQ(read_overwritten_by_other(), RC::kValidation);
    EXPECT_EQ(cc_.temperature(meta(A)), i + 1);
  }
  ASSERT_TRUE(cc_.hot(meta(A)));
  // Hot: the next read takes A's reader lock...
  t1_.begin();
  ASSERT_TRUE(read(t1_, c_.table, A));
  EXPECT_EQ(lock_word(A), 1u) << "a hot read holds the record's shared lock";
  // ... so a writer waits for the reader rather than invalidating it.
  Async writer([&] {
    t2_.begin();
    EXPECT_TRUE(increment(t2_, c_.table, A));
    EXPECT_EQ(t2_.commit(), RC::kOk);
  });
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(writer.done()) << "the writer must wait for the hot read's lock";
  EXPECT_EQ(t1_.commit(), RC::kOk) << "the reader of a hot record is not aborted";
  writer.join();
  EXPECT_EQ(c_.value(A), kThreshold + 1);
  EXPECT_EQ(lock_word(A), 0u);
  EXPECT_EQ(cc_.total_stats().hot_reads, 1u);
}

TEST(MoccDecay, TemperatureHalvesEveryPeriod) {
  Mocc cc(4, 1000);
  Counters<Mocc> c(4);
  Txn<Mocc> t1(cc, 0, nullptr), t2(cc, 1, nullptr);
  const Mocc::RowMeta& a = c.table.lookup(0)->meta;
  for (int i = 0; i < 4; ++i) {  // four failed validations on row 0, all while it is cold
    t1.begin();
    ASSERT_TRUE(read(t1, c.table, 0));
    t2.begin();
    ASSERT_TRUE(increment(t2, c.table, 0));
    ASSERT_EQ(t2.commit(), RC::kOk);
    ASSERT_EQ(t1.commit(), RC::kValidation);
  }
  EXPECT_EQ(cc.temperature(a), 4u);
  EXPECT_TRUE(cc.hot(a));
  const int period_epochs = 1000 / Mocc::kEpochMillis;
  for (int e = 0; e < period_epochs; ++e) cc.tick();
  EXPECT_EQ(cc.temperature(a), 2u);
  EXPECT_FALSE(cc.hot(a));
  t1.begin();
  ASSERT_TRUE(read(t1, c.table, 0));
  EXPECT_EQ(a.lock.word.load(), 0u) << "cooled down: read optimistically again";
  EXPECT_EQ(t1.commit(), RC::kOk);
  for (int e = 0; e < period_epochs; ++e) cc.tick();
  EXPECT_EQ(cc.temperature(a), 1u);
}

TEST(MoccLockOrder, OutOfOrderLockIsTriedNotAwaited) {
  Mocc cc(0, 1000);  // threshold 0: every row hot, every access locks
  Counters<Mocc> c(4);
  Txn<Mocc> t1(cc, 0, nullptr), t2(cc, 1, nullptr);
  // lo / hi: the keys of the rows at the lower / higher address.
  const bool zero_first = c.table.lookup(0) < c.table.lookup(1);
  const uint64_t lo = zero_first ? 0 : 1, hi = zero_first ? 1 : 0;
  t1.begin();
  ASSERT_TRUE(read(t1, c.table, hi));  // holds hi
  t2.begin();
  ASSERT_TRUE(increment(t2, c.table, lo));  // holds lo exclusively
  EXPECT_FALSE(read(t1, c.table, lo)) << "lo is below hi: tried once, not awaited";
  EXPECT_EQ(t1.failure(), RC::kLockConflict);
  EXPECT_EQ(cc.total_stats().lock_order_aborts, 1u);
  t1.abort();
  EXPECT_EQ(t2.commit(), RC::kOk);
  EXPECT_EQ(c.value(lo), 1u);
}

// ---- PartCC -------------------------------------------------------------------

class PartCCTest : public ::testing::Test {
 protected:
  // Two partitions: even keys in 0, odd keys in 1.
  void SetUp() override {
    cc_.set_partitioning(2, nullptr, [](const void*, GlobalKey k, uint32_t n) {
      return static_cast<uint32_t>(local_key_of(k) % n);
    });
  }
  static TxnDesc writes(std::initializer_list<uint64_t> keys) {
    TxnDesc d;
    for (uint64_t k : keys) d.write_set.push_back(make_global_key(0, k));
    return d;
  }
  PartCC cc_;
  Counters<PartCC> c_{8};
  Txn<PartCC> t1_{cc_, 0, nullptr}, t2_{cc_, 1, nullptr};
};

TEST_F(PartCCTest, TwoTransactionsOnOnePartitionSerialize) {
  t1_.begin();
  ASSERT_EQ(cc_.acquire_all(t1_, writes({0})), RC::kOk);
  EXPECT_TRUE(cc_.locked(0));
  EXPECT_FALSE(cc_.locked(1));
  Async second([&] {
    t2_.begin();
    EXPECT_EQ(cc_.acquire_all(t2_, writes({2})), RC::kOk);  // key 2: partition 0 as well
    EXPECT_TRUE(increment(t2_, c_.table, 2));
    EXPECT_TRUE(increment(t2_, c_.table, 0));
    EXPECT_EQ(t2_.commit(), RC::kOk);
  });
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(second.done()) << "the second transaction must wait for partition 0";
  ASSERT_TRUE(increment(t1_, c_.table, 0));
  EXPECT_EQ(t1_.commit(), RC::kOk);
  second.join();
  EXPECT_EQ(c_.value(0), 2u);
  EXPECT_EQ(c_.value(2), 1u);
  EXPECT_FALSE(cc_.locked(0));
}

TEST_F(PartCCTest, TwoTransactionsOnTwoPartitionsRunInParallel) {
  t1_.begin();
  t2_.begin();
  ASSERT_EQ(cc_.acquire_all(t1_, writes({0, 2})), RC::kOk);
  ASSERT_EQ(cc_.acquire_all(t2_, writes({1, 3})), RC::kOk);  // returns at once: nothing shared
  EXPECT_TRUE(cc_.locked(0));
  EXPECT_TRUE(cc_.locked(1));
  ASSERT_TRUE(increment(t1_, c_.table, 0));
  ASSERT_TRUE(increment(t2_, c_.table, 1));
  ASSERT_TRUE(increment(t1_, c_.table, 2));
  ASSERT_TRUE(increment(t2_, c_.table, 3));
  EXPECT_EQ(t2_.commit(), RC::kOk);
  EXPECT_EQ(t1_.commit(), RC::kOk);
  for (uint64_t k = 0; k < 4; ++k) EXPECT_EQ(c_.value(k), 1u);
  EXPECT_FALSE(cc_.locked(0));
  EXPECT_FALSE(cc_.locked(1));
}

TEST_F(PartCCTest, UnpredictedPartitionOutOfOrderIsTriedOnce) {
  t1_.begin();
  t2_.begin();
  ASSERT_EQ(cc_.acquire_all(t1_, writes({1})), RC::kOk);  // holds partition 1
  ASSERT_EQ(cc_.acquire_all(t2_, writes({0})), RC::kOk);  // holds partition 0
  EXPECT_FALSE(increment(t1_, c_.table, 4)) << "partition 0 < 1: tried, not awaited";
  EXPECT_EQ(t1_.failure(), RC::kLockConflict);
  t1_.abort();
  EXPECT_FALSE(cc_.locked(1));
  // Above every partition held: taken (here free) during execution.
  ASSERT_TRUE(increment(t2_, c_.table, 5));
  EXPECT_TRUE(cc_.locked(1));
  EXPECT_EQ(t2_.commit(), RC::kOk);
  EXPECT_EQ(c_.value(5), 1u);
}

}  // namespace
}  // namespace ccb
