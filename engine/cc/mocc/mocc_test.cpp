// MOCC's defining behaviour (a comparator of the Strife paper's Fig 8; PartCC,
// the other, is engine/cc/partcc/partcc_test.cpp), on deterministic schedules: a row whose
// temperature crosses the threshold is locked on the next read (a concurrent
// writer then waits instead of aborting the reader), the temperature halves
// every decay period, an aborted transaction's retry takes its retrospective
// lock list in canonical order before running and does not abort again on
// the row that made it abort, and a busy lock out of canonical order releases
// the locks above it and waits, or, with too many of them, aborts.
// Waiting is observed with a second thread (cc_test::Async).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "engine/cc/mocc/mocc.h"
#include "tests/cc/cc_test_util.h"

namespace ccb {
namespace {

using cc_test::Async;
using cc_test::Counters;
using cc_test::increment;
using cc_test::read;

constexpr auto kPause = std::chrono::milliseconds(50);

// `reader` has read `key` under the row's shared lock: a concurrent writer
// waits for it instead of invalidating the read, so `reader` commits, and
// then the writer.
template <class TxnT, class TableT>
void expect_writer_waits_for_locked_reader(TxnT& reader, TxnT& writer, TableT& table, uint64_t key) {
  Async w([&] {
    writer.begin();
    EXPECT_TRUE(increment(writer, table, key));
    EXPECT_EQ(writer.commit(), RC::kOk);
  });
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(w.done()) << "the writer must wait for the reader's lock";
  EXPECT_EQ(reader.commit(), RC::kOk) << "the reader holding the lock is not aborted";
  w.join();
}

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
  expect_writer_waits_for_locked_reader(t1_, t2_, c_.table, A);
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

// The keys 0 .. n-1 of `table`, ordered by their rows' addresses: MOCC's
// canonical lock order.
template <class TableT>
std::vector<uint64_t> keys_by_address(const TableT& table, uint64_t n) {
  std::vector<uint64_t> keys(n);
  for (uint64_t k = 0; k < n; ++k) keys[k] = k;
  std::sort(keys.begin(), keys.end(), [&](uint64_t x, uint64_t y) { return table.lookup(x) < table.lookup(y); });
  return keys;
}

// The retrospective lock list (section 4.2) and canonical mode (section 4.1).
class MoccRllTest : public ::testing::Test {
 protected:
  static constexpr uint64_t kRows = Mocc::kMaxReleasedLocks + 4;
  static constexpr uint64_t kShared = 1, kExclusive = RwLockWord::kExclusive | 1;

  // Threshold 0 makes every row hot (every access locks), 1000 none.
  explicit MoccRllTest(uint32_t threshold = 1000) : cc_(threshold, 1000) {}
  RwLockWord& lock(uint64_t key) { return c_.table.lookup(key)->meta.lock; }
  uint64_t word(uint64_t key) { return lock(key).word.load(); }
  // T1 reads `key`, T2 increments it and commits, T1's commit fails
  // validation: T1 leaves the row in its RLL. (Read before `then`, committed
  // after it.)
  void fail_validation_on(uint64_t key, const std::function<void()>& then = [] {}) {
    ASSERT_TRUE(read(t1_, c_.table, key));
    then();
    t2_.begin();
    ASSERT_TRUE(increment(t2_, c_.table, key));
    ASSERT_EQ(t2_.commit(), RC::kOk);
    ASSERT_EQ(t1_.commit(), RC::kValidation);
  }

  Mocc cc_;
  Counters<Mocc> c_{kRows};
  std::vector<uint64_t> k_ = keys_by_address(c_.table, kRows);  // k_[0] has the lowest address
  Txn<Mocc> t1_{cc_, 0, nullptr}, t2_{cc_, 1, nullptr};
};

class MoccAllHotTest : public MoccRllTest {
 protected:
  MoccAllHotTest() : MoccRllTest(0) {}
};

TEST_F(MoccRllTest, RetryDoesNotAbortAgainOnTheRowThatMadeItAbort) {
  const uint64_t a = k_[0];
  t1_.begin();
  fail_validation_on(a);
  EXPECT_FALSE(cc_.hot(c_.table.lookup(a)->meta)) << "one failure is below the threshold: the row stays cold";
  // The retry takes the row's lock before the procedure reads it...
  t1_.begin(/*restarts=*/1);
  EXPECT_EQ(word(a), kShared) << "the retry holds the row of its failed validation before running";
  ASSERT_TRUE(read(t1_, c_.table, a));
  // ... so a writer waits for it instead of clobbering the read again: the
  // retry under its RLL is not aborted on the same row.
  expect_writer_waits_for_locked_reader(t1_, t2_, c_.table, a);
  EXPECT_EQ(c_.value(a), 2u);
  EXPECT_EQ(word(a), 0u);
  EXPECT_EQ(cc_.total_stats().rll_locks, 1u);
}

TEST_F(MoccRllTest, OnlyTheRetryOfTheSameRequestUsesTheList) {
  const uint64_t a = k_[0];
  t1_.begin();
  fail_validation_on(a);
  t1_.begin(/*restarts=*/0);  // a new request (the failed one was dropped)
  EXPECT_EQ(word(a), 0u) << "a new request starts without the last request's list";
  ASSERT_TRUE(read(t1_, c_.table, a));
  EXPECT_EQ(word(a), 0u) << "the row is cold: read optimistically";
  EXPECT_EQ(t1_.commit(), RC::kOk);
  t1_.begin(/*restarts=*/1);
  EXPECT_EQ(word(a), 0u) << "the list was dropped with the request";
  EXPECT_EQ(t1_.commit(), RC::kOk);
  EXPECT_EQ(cc_.total_stats().rll_locks, 0u);
}

// The retry takes its RLL's locks (writes exclusive, the read that failed
// validation shared) in address order before its first access: with another
// holder in the middle of the list, it holds the locks below and none above.
TEST_F(MoccRllTest, RetryTakesItsListInCanonicalOrderBeforeRunning) {
  const uint64_t lo = k_[0], mid = k_[1], hi = k_[2], stale = k_[3];
  t1_.begin();
  ASSERT_TRUE(increment(t1_, c_.table, hi));  // written against the address order
  ASSERT_TRUE(increment(t1_, c_.table, lo));
  fail_validation_on(stale, [&] { ASSERT_TRUE(increment(t1_, c_.table, mid)); });
  for (uint64_t k : {lo, mid, hi, stale}) EXPECT_EQ(word(k), 0u) << "the failed attempt released " << k;

  ASSERT_TRUE(lock(mid).try_lock_exclusive());  // another transaction holds mid
  Async retry([&] { t1_.begin(/*restarts=*/1); });
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(retry.done()) << "the retry waits for mid before it runs";
  EXPECT_EQ(word(lo), kExclusive) << "below mid: taken first";
  EXPECT_EQ(word(hi), 0u) << "above mid: not before mid";
  EXPECT_EQ(word(stale), 0u);
  lock(mid).unlock_exclusive();
  retry.join();
  EXPECT_EQ(word(lo), kExclusive);
  EXPECT_EQ(word(mid), kExclusive);
  EXPECT_EQ(word(hi), kExclusive);
  EXPECT_EQ(word(stale), kShared) << "the read that failed validation: shared";
  EXPECT_EQ(cc_.total_stats().rll_locks, 4u);

  // The procedure runs again without a single lock conflict or upgrade.
  ASSERT_TRUE(increment(t1_, c_.table, hi));
  ASSERT_TRUE(increment(t1_, c_.table, lo));
  ASSERT_TRUE(read(t1_, c_.table, stale));
  ASSERT_TRUE(increment(t1_, c_.table, mid));
  EXPECT_EQ(t1_.commit(), RC::kOk);
  for (uint64_t k : {lo, mid, hi}) EXPECT_EQ(c_.value(k), 1u) << k;
  for (uint64_t k : {lo, mid, hi, stale}) EXPECT_EQ(word(k), 0u) << k;
}

// Out of canonical order, a free lock is simply taken (a try never waits).
TEST_F(MoccAllHotTest, FreeLockOutOfOrderIsTakenWithoutReleasing) {
  const uint64_t lo = k_[0], hi = k_[1];
  t1_.begin();
  ASSERT_TRUE(read(t1_, c_.table, hi));
  ASSERT_TRUE(read(t1_, c_.table, lo));
  EXPECT_EQ(word(hi), kShared);
  EXPECT_EQ(word(lo), kShared);
  EXPECT_EQ(t1_.commit(), RC::kOk);
  EXPECT_EQ(cc_.total_stats().canonical_releases, 0u);
}

// A busy lock below a lock held: the holder releases the locks at or above it
// (canonical mode restored), then waits instead of aborting; a released lock
// stays wanted and is taken again, in address order, before a lock above it.
TEST_F(MoccAllHotTest, BusyLockOutOfOrderReleasesTheLocksAboveAndWaits) {
  const uint64_t lo = k_[0], hi = k_[1], top = k_[2];
  t1_.begin();
  ASSERT_TRUE(read(t1_, c_.table, hi));  // holds hi
  t2_.begin();
  ASSERT_TRUE(increment(t2_, c_.table, lo));  // holds lo exclusively
  Async reader([&] { EXPECT_TRUE(read(t1_, c_.table, lo)); });
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(reader.done()) << "lo is busy: awaited in canonical mode";
  EXPECT_EQ(word(hi), 0u) << "hi, above lo, was released to restore canonical mode";
  EXPECT_EQ(t2_.commit(), RC::kOk);
  reader.join();
  EXPECT_EQ(cc_.total_stats().canonical_releases, 1u);
  EXPECT_EQ(word(lo), kShared);
  EXPECT_EQ(word(hi), 0u);
  ASSERT_TRUE(read(t1_, c_.table, top));
  EXPECT_EQ(word(hi), kShared) << "hi is taken again before top, above it";
  EXPECT_EQ(word(top), kShared);
  EXPECT_EQ(t1_.commit(), RC::kOk) << "hi, read before the release, was not written since";
  EXPECT_EQ(c_.value(lo), 1u);
  EXPECT_EQ(cc_.total_stats().lock_order_aborts, 0u);
}

// A shared lock that must become exclusive at commit counts as held at its
// row: tried (here another reader holds it too), then released and awaited.
TEST_F(MoccAllHotTest, UpgradeAtCommitWaitsForTheOtherReader) {
  const uint64_t a = k_[0];
  t1_.begin();
  t2_.begin();
  ASSERT_TRUE(read(t1_, c_.table, a));
  ASSERT_TRUE(read(t2_, c_.table, a));
  ASSERT_TRUE(increment(t1_, c_.table, a));  // the upgrade is left to commit
  EXPECT_EQ(word(a), 2 * kShared);
  Async committer([&] { EXPECT_EQ(t1_.commit(), RC::kOk); });
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(committer.done()) << "t2 still reads a: t1 waits for its exclusive lock";
  EXPECT_EQ(word(a), kShared) << "t1 gave up its shared lock to wait in canonical mode";
  EXPECT_EQ(t2_.commit(), RC::kOk);
  committer.join();
  EXPECT_EQ(c_.value(a), 1u);
  EXPECT_EQ(word(a), 0u);
}

// More than kMaxReleasedLocks locks above a busy one: too many to release
// (section 4.2), so the attempt aborts; its retry takes the refused lock too,
// in canonical order, before running.
TEST_F(MoccAllHotTest, TooManyLocksAboveABusyOneAbortAndTheRetryTakesAll) {
  const uint64_t lo = k_[0];
  t1_.begin();
  for (uint64_t i = 1; i <= Mocc::kMaxReleasedLocks + 1; ++i) ASSERT_TRUE(read(t1_, c_.table, k_[i]));
  t2_.begin();
  ASSERT_TRUE(increment(t2_, c_.table, lo));
  EXPECT_FALSE(read(t1_, c_.table, lo)) << "tried once, not awaited";
  EXPECT_EQ(t1_.failure(), RC::kLockConflict);
  EXPECT_EQ(cc_.total_stats().lock_order_aborts, 1u);
  EXPECT_EQ(cc_.total_stats().canonical_releases, 0u);
  t1_.abort();
  for (uint64_t i = 1; i <= Mocc::kMaxReleasedLocks + 1; ++i) EXPECT_EQ(word(k_[i]), 0u);
  EXPECT_EQ(t2_.commit(), RC::kOk);
  t1_.begin(/*restarts=*/1);
  for (uint64_t i = 0; i <= Mocc::kMaxReleasedLocks + 1; ++i) EXPECT_EQ(word(k_[i]), kShared) << i;
  for (uint64_t i = 1; i <= Mocc::kMaxReleasedLocks + 1; ++i) ASSERT_TRUE(read(t1_, c_.table, k_[i]));
  ASSERT_TRUE(read(t1_, c_.table, lo));
  EXPECT_EQ(t1_.commit(), RC::kOk);
  EXPECT_EQ(cc_.total_stats().lock_order_aborts, 1u);
  EXPECT_EQ(c_.value(lo), 1u);
}

}  // namespace
}  // namespace ccb
