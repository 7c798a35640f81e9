// OCC's commit against a row latch held by another validator, under both
// --occ_validation choices: bounded (DBx1000's BOUNDED_SPINNING) gives up
// after its bounded back-off and aborts; wait waits for the latch. The other
// validator is the test itself holding the row's latch bit (lock_bit), as a
// committing transaction does between latching and installing; waiting is
// observed with a second thread (a blocked commit has not returned after a
// pause, and returns once the latch is released).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/cc/occ/occ.h"
#include "tests/cc/cc_test_util.h"

namespace ccb {
namespace {

using cc_test::Async;
using cc_test::Counters;
using cc_test::increment;
using cc_test::read;

constexpr uint64_t A = 0, B = 1;
constexpr auto kPause = std::chrono::milliseconds(50);

class OccTest : public ::testing::Test {
 protected:
  Occ cc_;
  Counters<Occ> c_{4};
  Txn<Occ> t_{cc_, 0, nullptr}, other_{cc_, 1, nullptr};
  Shared<uint64_t>& latch_word(uint64_t key) { return c_.table.lookup(key)->meta.word; }
  bool latched(uint64_t key) { return (latch_word(key).unmodelled().load() & Occ::kLatch) != 0; }
  void configure(const char* validation) { cc_.configure(OccOptions{.validation = validation}); }
};

TEST(OccOptionsTest, DefaultIsWait) {
  EXPECT_EQ(OccOptions{}.validation, "wait");
  EXPECT_FALSE(OccOptions{}.bounded());
  EXPECT_TRUE(OccOptions{.validation = "bounded"}.bounded());
  EXPECT_FALSE(OccOptions{}.read_abort);
}

TEST_F(OccTest, BoundedAbortsOnALatchedRowInsteadOfWaiting) {
  configure("bounded");
  t_.begin();
  ASSERT_TRUE(read(t_, c_.table, A));
  ASSERT_TRUE(increment(t_, c_.table, B));
  lock_bit<Occ::kLatch>(latch_word(B));  // another validator holds B
  RC rc = RC::kOk;
  Async committer([&] { rc = t_.commit(); });
  std::this_thread::sleep_for(kPause);
  const bool gave_up = committer.done();  // after the bounded back-off, without waiting
  if (!gave_up) unlock_bit<Occ::kLatch>(latch_word(B));  // a waiting commit: let it end
  committer.join();
  ASSERT_TRUE(gave_up);
  EXPECT_EQ(rc, RC::kValidation);
  t_.abort();
  EXPECT_FALSE(latched(A));  // the latch it took before B is released
  EXPECT_TRUE(latched(B));   // the other validator's is untouched
  unlock_bit<Occ::kLatch>(latch_word(B));
  EXPECT_EQ(c_.value(B), 0u);  // nothing installed
  // A retry once the latch is free commits.
  t_.begin(1);
  ASSERT_TRUE(increment(t_, c_.table, B));
  EXPECT_EQ(t_.commit(), RC::kOk);
  EXPECT_EQ(c_.value(B), 1u);
}

TEST_F(OccTest, WaitWaitsForALatchedRow) {
  configure("wait");
  t_.begin();
  ASSERT_TRUE(increment(t_, c_.table, B));
  lock_bit<Occ::kLatch>(latch_word(B));
  RC rc = RC::kValidation;
  Async committer([&] { rc = t_.commit(); });
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(committer.done());  // waiting for the latch, not aborted
  unlock_bit<Occ::kLatch>(latch_word(B));
  committer.join();
  EXPECT_EQ(rc, RC::kOk);
  EXPECT_EQ(c_.value(B), 1u);
  EXPECT_FALSE(latched(B));
}

// Under bounded a row overwritten since the start aborts the validation at
// that row, releasing the latches taken so far.
TEST_F(OccTest, BoundedStaleRowAbortsAndReleases) {
  configure("bounded");
  t_.begin();
  ASSERT_TRUE(read(t_, c_.table, A));
  ASSERT_TRUE(increment(t_, c_.table, B));
  other_.begin();
  ASSERT_TRUE(increment(other_, c_.table, A));
  ASSERT_EQ(other_.commit(), RC::kOk);  // A's wts is now above t_'s start
  EXPECT_EQ(t_.commit(), RC::kValidation);
  t_.abort();
  EXPECT_FALSE(latched(A));
  EXPECT_FALSE(latched(B));
  EXPECT_EQ(c_.value(A), 1u);
  EXPECT_EQ(c_.value(B), 0u);
}

// A committed bounded transaction installs and unlatches every row, as wait does.
TEST_F(OccTest, BoundedCommitInstallsAndUnlatches) {
  configure("bounded");
  t_.begin();
  ASSERT_TRUE(increment(t_, c_.table, B));
  ASSERT_TRUE(read(t_, c_.table, A));
  ASSERT_TRUE(increment(t_, c_.table, A));  // upgraded access
  EXPECT_EQ(t_.commit(), RC::kOk);
  EXPECT_EQ(c_.value(A), 1u);
  EXPECT_EQ(c_.value(B), 1u);
  EXPECT_FALSE(latched(A));
  EXPECT_FALSE(latched(B));
}

// --occ_read_abort: a read of a row written since the start aborts at once
// (DBx1000's Row_occ::access); off, the read succeeds and the commit fails.
TEST_F(OccTest, ReadAbortAbortsAtTheReadOfAStaleRow) {
  cc_.configure(OccOptions{.read_abort = true});
  t_.begin();
  other_.begin();
  ASSERT_TRUE(increment(other_, c_.table, A));
  ASSERT_EQ(other_.commit(), RC::kOk);
  EXPECT_TRUE(read(t_, c_.table, B));  // unchanged since the start
  EXPECT_FALSE(read(t_, c_.table, A));
  EXPECT_EQ(t_.failure(), RC::kValidation);
  t_.abort();
}

TEST_F(OccTest, WithoutReadAbortTheStaleReadFailsAtCommit) {
  t_.begin();
  other_.begin();
  ASSERT_TRUE(increment(other_, c_.table, A));
  ASSERT_EQ(other_.commit(), RC::kOk);
  EXPECT_TRUE(read(t_, c_.table, A));
  EXPECT_EQ(t_.commit(), RC::kValidation);
  t_.abort();
}

}  // namespace
}  // namespace ccb
