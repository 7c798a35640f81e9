// WaitDie's defining behaviour on deterministic schedules: the younger
// requester dies, the older waits, a retry keeps its timestamp. Waiting is
// observed with a second thread: a blocked call has not returned after a
// pause, and returns once the holder finishes.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/cc/waitdie/waitdie.h"
#include "tests/cc/cc_test_util.h"

namespace ccb {
namespace {

using cc_test::Async;
using cc_test::Counters;
using cc_test::increment;
using cc_test::read;

constexpr uint64_t A = 0;
constexpr auto kPause = std::chrono::milliseconds(50);

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

// BCC §6.2's 2PL (--waitdie_read_then_upgrade): the older transaction's
// read-modify-write holds the row's read lock while it waits to upgrade, so
// the younger reader's own upgrade meets it and dies: "only one thread can
// wait for the write lock while the rest are aborted".
TEST_F(WaitDieTest, ReadThenUpgradeKeepsAReadLockSoTheYoungerUpgradeDies) {
  cc_.configure(WaitDieOptions{.read_then_upgrade = true, .latched_reads = false});
  ASSERT_TRUE(read(younger_, c_.table, A));
  bool got = false;
  Async waiter([&] { got = increment(older_, c_.table, A); });  // read lock, then waits to upgrade
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(waiter.done());
  EXPECT_FALSE(increment(younger_, c_.table, A));
  EXPECT_EQ(younger_.failure(), RC::kWaitDie);
  younger_.abort();
  waiter.join();
  ASSERT_TRUE(got);
  EXPECT_EQ(older_.commit(), RC::kOk);
  EXPECT_EQ(c_.value(A), 1u);
  EXPECT_EQ(c_.table.lookup(A)->meta.lock.word.load(), 0u);
}

// A first read-modify-write whose upgrade dies leaves no read lock behind
// (the refused access is not in the access set, so the abort could not
// release it).
TEST_F(WaitDieTest, ReadThenUpgradeThatDiesReleasesItsReadLock) {
  cc_.configure(WaitDieOptions{.read_then_upgrade = true, .latched_reads = false});
  ASSERT_TRUE(read(older_, c_.table, A));
  EXPECT_FALSE(increment(younger_, c_.table, A));
  EXPECT_EQ(younger_.failure(), RC::kWaitDie);
  younger_.abort();
  EXPECT_EQ(c_.table.lookup(A)->meta.lock.word.load(), RwLockWord::owner_bit(0));
  EXPECT_EQ(older_.commit(), RC::kOk);
  EXPECT_EQ(c_.table.lookup(A)->meta.lock.word.load(), 0u);
}

// The same schedule with the exclusive lock taken at once (the default, as
// DBx1000's WAIT_DIE): the older writer waits holding nothing, and the
// younger reader, the only holder, upgrades and commits first.
TEST_F(WaitDieTest, WithoutReadThenUpgradeTheYoungerReaderUpgradesFirst) {
  ASSERT_TRUE(read(younger_, c_.table, A));
  bool got = false;
  Async waiter([&] { got = increment(older_, c_.table, A); });  // waits for the exclusive lock
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(waiter.done());
  EXPECT_TRUE(increment(younger_, c_.table, A));
  EXPECT_EQ(younger_.commit(), RC::kOk);
  waiter.join();
  ASSERT_TRUE(got);
  EXPECT_EQ(older_.commit(), RC::kOk);
  EXPECT_EQ(c_.value(A), 2u);
}

// BCC §6.1's latch-protected read lock (--waitdie_latched_reads): readers
// share the row, a writer's request meets them (the younger dies), and the
// latch is never left set: after the readers release, the word is free.
TEST_F(WaitDieTest, LatchedReadLocksShareTheRowAndLeaveNoLatchBehind) {
  cc_.configure(WaitDieOptions{.read_then_upgrade = false, .latched_reads = true});
  Txn<WaitDie> youngest{cc_, 2, nullptr};
  youngest.begin();
  ASSERT_TRUE(read(older_, c_.table, A));
  ASSERT_TRUE(read(younger_, c_.table, A));
  const uint64_t both = RwLockWord::owner_bit(0) | RwLockWord::owner_bit(1);
  EXPECT_EQ(c_.table.lookup(A)->meta.lock.word.load(), both);
  EXPECT_FALSE(increment(youngest, c_.table, A));
  EXPECT_EQ(youngest.failure(), RC::kWaitDie);
  youngest.abort();
  EXPECT_EQ(younger_.commit(), RC::kOk);
  EXPECT_EQ(c_.table.lookup(A)->meta.lock.word.load(), RwLockWord::owner_bit(0));
  EXPECT_TRUE(increment(older_, c_.table, A));  // the only holder: upgrades
  EXPECT_EQ(older_.commit(), RC::kOk);
  EXPECT_EQ(c_.table.lookup(A)->meta.lock.word.load(), 0u);
  EXPECT_EQ(c_.value(A), 1u);
}

}  // namespace
}  // namespace ccb
