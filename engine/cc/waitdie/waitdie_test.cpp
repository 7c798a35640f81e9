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

}  // namespace
}  // namespace ccb
