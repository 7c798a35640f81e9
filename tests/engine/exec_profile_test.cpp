// The execution profile (engine/stats/exec_profile.h, --profile): a
// transaction with a known amount of work in each place gets that time in the
// right category. The work is a busy wait inside a NO_WAIT variant whose read
// (a "lock" call) and commit ("validation") take a set time, and inside the
// procedure ("execute"); an attempt refused a lock lands whole in "abort".
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <type_traits>

#include "engine/cc/nowait/nowait.h"
#include "engine/txn/txn.h"
#include "engine/core/clock.h"
#include "engine/stats/exec_profile.h"
#include "engine/core/json.h"

namespace ccb {
namespace {

constexpr uint64_t kMs = 1000000;
// The profile counts clock ticks calibrated against now_ns(): allow 3% for the
// calibration when comparing with busy waits timed by now_ns().
constexpr double kSlack = 0.03;

using C = ExecProfile::Category;
double ns(const ExecProfile& p, C c) { return p.seconds(c) * 1e9; }
double at_least(uint64_t want_ns) { return static_cast<double>(want_ns) * (1 - kSlack); }

void spin_ns(uint64_t ns) {
  const uint64_t end = now_ns() + ns;
  while (now_ns() < end) {
  }
}

// NO_WAIT whose read() and commit() each busy-wait a set time first.
class SlowNoWait : public NoWait {
 public:
  static constexpr const char* kName = "slow-nowait";
  static inline uint64_t read_ns = 0, commit_ns = 0;
  RC read(auto& txn, auto& a) {
    spin_ns(read_ns);
    return NoWait::read(txn, a);
  }
  RC commit(auto& txn) {
    spin_ns(commit_ns);
    return NoWait::commit(txn);
  }
};

class ExecProfileTest : public ::testing::Test {
 protected:
  ExecProfileTest() : table_(0, "t", 8, 4, 4), txn_(cc_, 0, nullptr), other_(cc_, 1, nullptr), plain_(cc_, 2, nullptr) {
    for (uint64_t k = 0; k < 4; ++k) table_.load(k, k);
    SlowNoWait::read_ns = SlowNoWait::commit_ns = 0;
  }
  // One attempt: read row 0, `work_ns` of procedure work, update row 1, commit.
  template <bool kOn, class TxnT>
  bool attempt(AttemptProfiler<kOn>& p, TxnT& txn, uint64_t work_ns) {
    p.start();
    txn.begin();
    bool ok = txn.read(table_, 0) != nullptr;
    spin_ns(work_ns);
    ok = ok && txn.update(table_, 1) != nullptr;
    const bool committed = ok ? txn.commit() == RC::kOk : (txn.abort(), false);
    p.end(committed);
    return committed;
  }
  bool attempt(AttemptProfiler<true>& p, uint64_t work_ns) { return attempt(p, txn_, work_ns); }
  SlowNoWait cc_;
  Table<SlowNoWait> table_;
  Txn<SlowNoWait, true> txn_;  // --profile's transaction
  Txn<SlowNoWait> other_, plain_;
};

TEST_F(ExecProfileTest, CommittedAttemptSplitsIntoLockExecuteValidation) {
  ExecProfile prof;
  AttemptProfiler<true> p(prof);
  p.attach(txn_);
  SlowNoWait::read_ns = 2 * kMs;    // lock
  SlowNoWait::commit_ns = 3 * kMs;  // validation
  const uint64_t t0 = now_ns();
  ASSERT_TRUE(attempt(p, 4 * kMs));  // execute
  const uint64_t elapsed = now_ns() - t0;

  // Each category holds at least its planted work and the sum is at most the
  // attempt's time (nothing counted twice), so no category can hold another's
  // work. No upper bounds per category: a preempted busy wait runs long.
  EXPECT_EQ(prof.ticks[C::kAbort], 0u);
  EXPECT_EQ(prof.ticks[C::kAnalysis], 0u);
  EXPECT_GE(ns(prof, C::kLock), at_least(2 * kMs));
  EXPECT_GE(ns(prof, C::kExecute), at_least(4 * kMs));
  EXPECT_GE(ns(prof, C::kValidation), at_least(3 * kMs));
  EXPECT_GT(prof.ticks[C::kIndex], 0u);  // two lookups
  EXPECT_LE(static_cast<double>(prof.total_ticks()) * profile_ns_per_tick(), elapsed * (1 + kSlack));
}

TEST_F(ExecProfileTest, AbortedAttemptAndBackoffLandInAbort) {
  ExecProfile prof;
  AttemptProfiler<true> p(prof);
  p.attach(txn_);
  SlowNoWait::read_ns = 1 * kMs;
  SlowNoWait::commit_ns = 1 * kMs;
  // Another transaction holds row 1's write lock: the update is refused.
  other_.begin();
  ASSERT_NE(other_.update(table_, 1), nullptr);
  ASSERT_FALSE(attempt(p, 2 * kMs));
  p.backoff([] { spin_ns(kMs); });
  EXPECT_GE(ns(prof, C::kAbort), at_least(4 * kMs));  // read (1) + work (2) + backoff (1)
  EXPECT_EQ(prof.total_ticks(), prof.ticks[C::kAbort]);
  // The backoff is abort's part waited after the attempt (profile.abort_seconds.backoff), not the attempt's.
  EXPECT_GE(static_cast<double>(prof.backoff_ticks) * profile_ns_per_tick(), at_least(1 * kMs));
  EXPECT_LT(prof.backoff_ticks, prof.ticks[C::kAbort]);  // the attempt (3 ms) is the rest
  const uint64_t aborted = prof.ticks[C::kAbort];

  ASSERT_EQ(other_.commit(), RC::kOk);
  ASSERT_TRUE(attempt(p, 2 * kMs));  // the retry commits: abort time unchanged
  EXPECT_EQ(prof.ticks[C::kAbort], aborted);
  EXPECT_GE(ns(prof, C::kLock), at_least(1 * kMs));
  EXPECT_GE(ns(prof, C::kValidation), at_least(1 * kMs));
  EXPECT_GE(ns(prof, C::kExecute), at_least(2 * kMs));
}

// acquire_all() (LockSorted, PreNoWait) reads rows through the transaction,
// which times them itself: the nested read counts once, as lock.
TEST_F(ExecProfileTest, AcquireAllCountsNestedAccessesOnce) {
  ExecProfile prof;
  AttemptProfiler<true> p(prof);
  p.attach(txn_);
  SlowNoWait::read_ns = 3 * kMs;
  const uint64_t t0 = now_ns();
  p.start();
  txn_.begin();
  ASSERT_EQ(p.acquire([&] { return txn_.read(table_, 2) != nullptr ? RC::kOk : txn_.failure(); }), RC::kOk);
  spin_ns(2 * kMs);
  ASSERT_EQ(txn_.commit(), RC::kOk);
  p.end(true);
  const uint64_t elapsed = now_ns() - t0;
  EXPECT_GE(ns(prof, C::kLock), at_least(3 * kMs));
  EXPECT_GE(ns(prof, C::kExecute), at_least(2 * kMs));
  EXPECT_LE(static_cast<double>(prof.total_ticks()) * profile_ns_per_tick(), elapsed * (1 + kSlack));
}

TEST_F(ExecProfileTest, SharesSumToOneAndSecondsAreReported) {
  ExecProfile prof;
  AttemptProfiler<true> p(prof);
  p.attach(txn_);
  ASSERT_TRUE(attempt(p, kMs));
  prof.add_ns(C::kAnalysis, kMs);
  const auto shares = prof.shares();
  double sum = 0;
  for (double s : shares) sum += s;
  EXPECT_NEAR(sum, 1.0, 1e-12);
  EXPECT_GT(shares[5], 0.0);  // analysis
  JsonWriter w;
  w.begin_object();
  prof.to_json(w);
  w.end_object();
  const std::string json = w.str();
  for (const char* key : {"\"abort\"", "\"lock\"", "\"execute\"", "\"index\"", "\"validation\"", "\"analysis\"",
                          "\"seconds\"", "\"abort_seconds\"", "\"attempts\"", "\"backoff\""})
    EXPECT_NE(json.find(key), std::string::npos) << key << " in " << json;
}

TEST_F(ExecProfileTest, EmptyProfileHasZeroShares) {
  for (double s : ExecProfile{}.shares()) EXPECT_EQ(s, 0.0);
}

// Profiling off is a compile-time choice: the unprofiled transaction has no
// profile at all (no member, no timing calls) and the off profiler no state.
template <class TxnT>
concept HasProfileTimes = requires(TxnT& t) { t.profile_times(); };
static_assert(!HasProfileTimes<Txn<SlowNoWait>> && HasProfileTimes<Txn<SlowNoWait, true>>);
static_assert(!Txn<SlowNoWait>::kIsProfiled && Txn<SlowNoWait, true>::kIsProfiled);
static_assert(sizeof(Txn<SlowNoWait, true>) >= sizeof(Txn<SlowNoWait>) + sizeof(AttemptTimes));

TEST_F(ExecProfileTest, ProfilingOffTimesNothing) {
  static_assert(std::is_empty_v<AttemptProfiler<false>>, "the off profiler must carry no state");
  ExecProfile prof;
  AttemptProfiler<false> p(prof);
  p.attach(plain_);  // attaches nothing: the transaction's calls are untimed code
  SlowNoWait::read_ns = kMs;
  ASSERT_TRUE(attempt(p, plain_, kMs));
  EXPECT_EQ(p.acquire([] { return RC::kOk; }), RC::kOk);
  p.backoff([] {});
  EXPECT_EQ(prof.total_ticks(), 0u);
}

}  // namespace
}  // namespace ccb
