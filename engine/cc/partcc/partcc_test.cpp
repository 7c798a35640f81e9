// PartCC's defining behaviour (a comparator of the Strife paper's Fig 8), on
// deterministic schedules: two transactions on one partition serialize, on
// two partitions run in parallel, and an unpredicted partition out of order is
// tried once. Waiting is observed with a second thread (cc_test::Async).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/cc/partcc/partcc.h"
#include "tests/cc/cc_test_util.h"

namespace ccb {
namespace {

using cc_test::Async;
using cc_test::Counters;
using cc_test::increment;

constexpr auto kPause = std::chrono::milliseconds(50);

// ---- PartCC -------------------------------------------------------------------

class PartCCTest : public ::testing::Test {
 protected:
  // Two partitions: even keys in 0, odd keys in 1.
  void SetUp() override {
    cc_.set_partitioning({2, nullptr, [](const void*, GlobalKey k, uint32_t n) {
                            return static_cast<uint32_t>(local_key_of(k) % n);
                          }});
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

// A partition the request names without naming its row (TxnDesc's
// partition_keys: TPC-C's Payment of a remote customer chosen by last name)
// is locked up front with the others, in order, waiting; the row reached
// later is covered. Without it, the row's partition (0) was taken at access,
// below the partition held (1): tried once, and refused while another
// transaction held it (RC::kLockConflict).
TEST_F(PartCCTest, APartitionKeyIsLockedUpFrontSoItsRowNeverConflicts) {
  t2_.begin();
  ASSERT_EQ(cc_.acquire_all(t2_, writes({0})), RC::kOk);  // holds partition 0
  Async first([&] {
    t1_.begin();
    TxnDesc d = writes({1});
    d.partition_keys.push_back(make_global_key(0, 4));  // partition 0; its row not named
    EXPECT_EQ(cc_.acquire_all(t1_, d), RC::kOk);        // waits for partition 0
    EXPECT_TRUE(increment(t1_, c_.table, 1));
    EXPECT_TRUE(increment(t1_, c_.table, 4));
    EXPECT_EQ(t1_.commit(), RC::kOk);
  });
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(first.done()) << "the first transaction must wait for partition 0 before it runs";
  ASSERT_TRUE(increment(t2_, c_.table, 0));
  EXPECT_EQ(t2_.commit(), RC::kOk);
  first.join();
  EXPECT_EQ(c_.value(1), 1u);
  EXPECT_EQ(c_.value(4), 1u);
  EXPECT_FALSE(cc_.locked(0));
  EXPECT_FALSE(cc_.locked(1));
}

}  // namespace
}  // namespace ccb
