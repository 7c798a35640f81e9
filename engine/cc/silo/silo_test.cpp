// Silo's commit against a write lock held by another committer, under both
// --silo_validation choices: bounded (DBx1000's no-wait locking with
// PRE_ABORT and BOUNDED_SPINNING) gives up after its bounded back-off and
// aborts; wait waits for the lock. The other committer is the test itself
// holding the row's TID lock bit, as a committing transaction does between
// its phases 1 and 3; waiting is observed with a second thread. Also the
// pre-abort: a row changed since the access aborts before any lock is taken.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/cc/silo/silo.h"
#include "tests/cc/cc_test_util.h"

namespace ccb {
namespace {

using cc_test::Async;
using cc_test::Counters;
using cc_test::increment;
using cc_test::read;

constexpr uint64_t A = 0, B = 1;
constexpr auto kPause = std::chrono::milliseconds(50);

class SiloValidationTest : public ::testing::Test {
 protected:
  Silo cc_{1};
  Counters<Silo> c_{4};
  Txn<Silo> t_{cc_, 0, nullptr}, other_{cc_, 1, nullptr};
  Shared<uint64_t>& tid_word(uint64_t key) { return c_.table.lookup(key)->meta.tid; }
  bool locked(uint64_t key) { return (tid_word(key).unmodelled().load() & Silo::kLockBit) != 0; }
  void configure(const char* validation) { cc_.configure(SiloOptions{.validation = validation}); }
};

TEST(SiloOptionsTest, DefaultIsWait) {
  EXPECT_EQ(SiloOptions{}.validation, "wait");
  EXPECT_FALSE(SiloOptions{}.bounded());
  EXPECT_TRUE(SiloOptions{.validation = "bounded"}.bounded());
}

TEST_F(SiloValidationTest, BoundedAbortsOnALockedWriteInsteadOfWaiting) {
  configure("bounded");
  t_.begin();
  ASSERT_TRUE(increment(t_, c_.table, A));
  ASSERT_TRUE(increment(t_, c_.table, B));
  lock_bit<Silo::kLockBit>(tid_word(B));  // another committer holds B
  RC rc = RC::kOk;
  Async committer([&] { rc = t_.commit(); });
  std::this_thread::sleep_for(kPause);
  const bool gave_up = committer.done();
  if (!gave_up) unlock_bit<Silo::kLockBit>(tid_word(B));  // a waiting commit: let it end
  committer.join();
  ASSERT_TRUE(gave_up);
  EXPECT_EQ(rc, RC::kValidation);
  t_.abort();
  EXPECT_FALSE(locked(A));  // the lock it took on A is released
  EXPECT_TRUE(locked(B));   // the other committer's is untouched
  unlock_bit<Silo::kLockBit>(tid_word(B));
  EXPECT_EQ(c_.value(A), 0u);
  t_.begin();
  ASSERT_TRUE(increment(t_, c_.table, B));
  EXPECT_EQ(t_.commit(), RC::kOk);
  EXPECT_EQ(c_.value(B), 1u);
}

TEST_F(SiloValidationTest, WaitWaitsForALockedWrite) {
  configure("wait");
  t_.begin();
  ASSERT_TRUE(increment(t_, c_.table, B));
  lock_bit<Silo::kLockBit>(tid_word(B));
  RC rc = RC::kValidation;
  Async committer([&] { rc = t_.commit(); });
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(committer.done());  // waiting for the lock, not aborted
  unlock_bit<Silo::kLockBit>(tid_word(B));
  committer.join();
  EXPECT_EQ(rc, RC::kOk);
  EXPECT_EQ(c_.value(B), 1u);
  EXPECT_FALSE(locked(B));
}

// Pre-abort: a row read that changed since the read aborts before the write
// set is locked.
TEST_F(SiloValidationTest, BoundedPreAbortsOnAChangedRead) {
  configure("bounded");
  t_.begin();
  ASSERT_TRUE(read(t_, c_.table, A));
  ASSERT_TRUE(increment(t_, c_.table, B));
  other_.begin();
  ASSERT_TRUE(increment(other_, c_.table, A));
  ASSERT_EQ(other_.commit(), RC::kOk);
  EXPECT_EQ(t_.commit(), RC::kValidation);
  t_.abort();
  EXPECT_FALSE(locked(A));
  EXPECT_FALSE(locked(B));
  EXPECT_EQ(c_.value(A), 1u);
  EXPECT_EQ(c_.value(B), 0u);
}

TEST_F(SiloValidationTest, BoundedCommitInstallsAndUnlocks) {
  configure("bounded");
  t_.begin();
  ASSERT_TRUE(increment(t_, c_.table, B));
  ASSERT_TRUE(increment(t_, c_.table, A));
  EXPECT_EQ(t_.commit(), RC::kOk);
  EXPECT_EQ(c_.value(A), 1u);
  EXPECT_EQ(c_.value(B), 1u);
  EXPECT_FALSE(locked(A));
  EXPECT_FALSE(locked(B));
}

}  // namespace
}  // namespace ccb
