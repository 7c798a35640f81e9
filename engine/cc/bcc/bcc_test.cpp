// BCC (engine/cc/bcc/bcc.h) on the schedules of the paper, driven step by step
// from one thread: Figure 1 (OCC's false abort that BCC saves), each essential
// pattern of Figure 2(a)-(c), dependency cycles, random interleavings checked
// for serializability, read-only snapshot transactions (section 3) and the
// bounded memory of the history tables (section 6.3).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "engine/cc/bcc/bcc.h"
#include "engine/cc/occ/occ.h"
#include "engine/cc/silo/silo.h"
#include "engine/txn/attempt_outcome.h"
#include "engine/core/json.h"
#include "tests/cc/cc_test_util.h"

namespace ccb {
namespace {

using cc_test::Counters;
using cc_test::increment;
using cc_test::read;

constexpr uint64_t A = 0, B = 1, X = 2, Y = 3, Z = 4;

// Figure 1: T1 = r(A) w(B), T2 = r(A) w(A); T2 commits first. T1 ->rw T2 is
// the only dependency, so both may commit. Returns T1's commit.
template <class CC>
RC figure1(CC& cc, Counters<CC>& c) {
  Txn<CC> t1(cc, 0, nullptr), t2(cc, 1, nullptr);
  t1.begin();
  EXPECT_TRUE(read(t1, c.table, A));
  t2.begin();
  EXPECT_TRUE(read(t2, c.table, A));
  EXPECT_TRUE(increment(t2, c.table, A));
  EXPECT_EQ(t2.commit(), RC::kOk);
  EXPECT_TRUE(increment(t1, c.table, B));
  return t1.commit();
}

TEST(BccPaper, Figure1BothCommitUnderBcc) {
  Bcc cc;
  Counters<Bcc> c(8);
  EXPECT_EQ(figure1(cc, c), RC::kOk);
  EXPECT_EQ(c.value(A), 1u);
  EXPECT_EQ(c.value(B), 1u);
  const Bcc::Stats s = cc.total_stats();
  EXPECT_EQ(s.validations, 2u);
  EXPECT_EQ(s.occ_would_abort, 1u);
  EXPECT_EQ(s.saved, 1u);
  EXPECT_EQ(s.aborted_after_check, 0u);
}

TEST(BccPaper, Figure1AbortsT1UnderOcc) {
  Occ occ;
  Counters<Occ> c(8);
  EXPECT_EQ(figure1(occ, c), RC::kValidation);
  Silo silo;
  Counters<Silo> cs(8);
  EXPECT_EQ(figure1(silo, cs), RC::kValidation);
}

// Figures 11 and 12's classification of an attempt (engine/stats/
// attempt_latency.h) on Figure 1's schedule: T1 fails OCC's criterion and BCC
// commits it ("saved"); T2 passes it ("committed"). Under Silo, T1 is
// "aborted" and T2 "committed".
template <class CC>
std::pair<AttemptOutcome, AttemptOutcome> figure1_outcomes(CC& cc, Counters<CC>& c) {
  Txn<CC> t1(cc, 0, nullptr), t2(cc, 1, nullptr);
  t1.begin();
  EXPECT_TRUE(read(t1, c.table, A));
  t2.begin();
  EXPECT_TRUE(read(t2, c.table, A));
  EXPECT_TRUE(increment(t2, c.table, A));
  const RC rc2 = t2.commit();
  const AttemptOutcome o2 = classify_attempt(cc, t2, rc2);
  EXPECT_TRUE(increment(t1, c.table, B));
  const RC rc1 = t1.commit();
  return {classify_attempt(cc, t1, rc1), o2};
}

TEST(BccAttemptOutcome, Figure1T1IsSavedByBcc) {
  Bcc cc;
  Counters<Bcc> c(8);
  const auto [t1, t2] = figure1_outcomes(cc, c);
  EXPECT_EQ(t1, AttemptOutcome::kSaved);
  EXPECT_EQ(t2, AttemptOutcome::kCommitted);
  EXPECT_EQ(cc.total_stats().saved, 1u);
}

TEST(BccAttemptOutcome, Figure1T1IsAbortedUnderSilo) {
  Silo silo;
  Counters<Silo> c(8);
  const auto [t1, t2] = figure1_outcomes(silo, c);
  EXPECT_EQ(t1, AttemptOutcome::kAborted);
  EXPECT_EQ(t2, AttemptOutcome::kCommitted);
}

// A saved commit does not leave its mark on the thread's next commit.
TEST(BccAttemptOutcome, TheNextCleanCommitIsCommittedNotSaved) {
  Bcc cc;
  Counters<Bcc> c(8);
  EXPECT_EQ(figure1_outcomes(cc, c).first, AttemptOutcome::kSaved);
  Txn<Bcc> t(cc, 0, nullptr);
  t.begin();
  EXPECT_TRUE(increment(t, c.table, X));
  const RC rc = t.commit();
  EXPECT_EQ(rc, RC::kOk);
  EXPECT_EQ(classify_attempt(cc, t, rc), AttemptOutcome::kCommitted);
}

TEST(AttemptLatencies, RecordsByOutcomeMergesAndWritesMicroseconds) {
  AttemptLatencies a, b;
  a.record(AttemptOutcome::kCommitted, 10'000);
  a.record(AttemptOutcome::kCommitted, 30'000);
  b.record(AttemptOutcome::kSaved, 50'000);
  a.merge(b);
  EXPECT_EQ(a.of(AttemptOutcome::kCommitted).count(), 2u);
  EXPECT_EQ(a.of(AttemptOutcome::kSaved).count(), 1u);
  EXPECT_EQ(a.of(AttemptOutcome::kAborted).count(), 0u);
  JsonWriter w;
  w.begin_object();
  a.to_json(w, "NewOrder");
  w.end_object();
  std::string json;  // without the writer's indentation
  for (char ch : w.str())
    if (ch != ' ' && ch != '\n') json += ch;
  EXPECT_NE(json.find("\"type\":\"NewOrder\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"committed\":{\"count\":2,\"avg\":20,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"saved\":{\"count\":1,\"avg\":50,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"aborted\":{\"count\":0,\"avg\":null,\"p50\":null,\"p99\":null}"), std::string::npos)
      << json;
}

// --bcc_breakdown's timer: off, it charges nothing; on, a stretch of work is
// charged at least its own length less nothing more than the probe cost.
TEST(BccComponentTimer, ChargesOnlyWhenEnabled) {
  bcc::ComponentTimer off;
  uint64_t total = 0;
  off.charge(total, off.now());
  EXPECT_EQ(total, 0u);
  bcc::ComponentTimer on;
  on.enable();
  EXPECT_GT(on.cycles_per_ns(), 0.0);
  const uint64_t start = on.now();
  const uint64_t until = now_ns() + 2'000'000;
  while (now_ns() < until) {
  }
  on.charge(total, start);
  EXPECT_GT(on.seconds(total), 1.5e-3);
  EXPECT_LT(on.seconds(total), 1.0);
}

// The T2 and T3 of Figure 2(c): T2 reads `x` and writes `y`; T3 overwrites
// `x` and commits first, so T2 ->rw T3. Returns T2's commit, which BCC
// aborts only if a concurrent transaction read `y` (T1 ->rw T2).
RC t2_commit_after_t3_overwrites(Txn<Bcc>& t2, Txn<Bcc>& t3, Table<Bcc>& table, uint64_t x, uint64_t y) {
  t2.begin();
  EXPECT_TRUE(read(t2, table, x));
  EXPECT_TRUE(increment(t2, table, y));
  t3.begin();
  EXPECT_TRUE(increment(t3, table, x));
  EXPECT_EQ(t3.commit(), RC::kOk);
  return t2.commit();
}

class BccPattern : public ::testing::Test {
 protected:
  Bcc cc_;
  Counters<Bcc> c_{8};
  Txn<Bcc> t1_{cc_, 0, nullptr}, t2_{cc_, 1, nullptr}, t3_{cc_, 2, nullptr};

  void expect_abort_by(Bcc::Dependency d) {
    const Bcc::Stats s = cc_.total_stats();
    EXPECT_EQ(s.aborted_after_check, 1u);
    EXPECT_EQ(s.by_dependency[d], 1u);
    EXPECT_EQ(s.saved, 0u);
  }
};

// Figure 2(a): T1 ->ww T2 ->rw T3. T2 read X and Y, T3 overwrites X, T1 (which
// started after T2) overwrites Y, then T2 writes Y.
TEST_F(BccPattern, WwWithAntiDependencyAborts) {
  t2_.begin();
  ASSERT_TRUE(read(t2_, c_.table, X));
  ASSERT_TRUE(increment(t2_, c_.table, Y));
  t3_.begin();
  ASSERT_TRUE(increment(t3_, c_.table, X));
  ASSERT_EQ(t3_.commit(), RC::kOk);
  t1_.begin();
  ASSERT_TRUE(increment(t1_, c_.table, Y));
  ASSERT_EQ(t1_.commit(), RC::kOk);
  EXPECT_EQ(t2_.commit(), RC::kValidation);
  expect_abort_by(Bcc::kWw);
  EXPECT_EQ(c_.value(Y), 1u);
}

// Figure 2(b): T1 ->wr T2 ->rw T3. T2 reads Y written by T1, which committed
// after T2 started; T3 overwrites X that T2 read.
TEST_F(BccPattern, WrWithAntiDependencyAborts) {
  t2_.begin();
  t1_.begin();
  ASSERT_TRUE(increment(t1_, c_.table, Y));
  ASSERT_EQ(t1_.commit(), RC::kOk);
  ASSERT_TRUE(read(t2_, c_.table, Y));
  ASSERT_TRUE(read(t2_, c_.table, X));
  t3_.begin();
  ASSERT_TRUE(increment(t3_, c_.table, X));
  ASSERT_EQ(t3_.commit(), RC::kOk);
  ASSERT_TRUE(increment(t2_, c_.table, Z));
  EXPECT_EQ(t2_.commit(), RC::kValidation);
  expect_abort_by(Bcc::kWr);
  EXPECT_EQ(c_.value(Z), 0u);
}

// Figure 2(c): T1 ->rw T2 ->rw T3. T1 (running) read Y, which T2 writes; T3
// overwrites X that T2 read. T2 aborts; then T1 commits.
TEST_F(BccPattern, RwWithAntiDependencyAborts) {
  t1_.begin();
  ASSERT_TRUE(read(t1_, c_.table, Y));
  const RC rc = t2_commit_after_t3_overwrites(t2_, t3_, c_.table, X, Y);
  EXPECT_EQ(rc, RC::kValidation);
  EXPECT_EQ(classify_attempt(cc_, t2_, rc), AttemptOutcome::kAborted);  // aborted even after BCC's check
  expect_abort_by(Bcc::kRw);
  EXPECT_EQ(t1_.commit(), RC::kOk);
}

// --bcc_fence reaches the protocol: each name selects its ordering (the
// asymmetric one wherever membarrier is available: Linux, not under
// ThreadSanitizer), cc_stats reports the one in effect, and the default is
// per_read.
std::string fence_in_stats(const Bcc& cc) {
  JsonWriter w;
  w.begin_object();
  cc.stats_json(w);
  w.end_object();
  return w.str();
}

TEST(BccFence, TheOptionSelectsTheOrderingAndTheDefaultIsPerRead) {
  EXPECT_EQ(BccOptions{}.fence, "per_read");
  EXPECT_EQ(BccOptions{}.fence_kind(), Bcc::Fence::kPerRead);
  ASSERT_EQ(BccOptions::fences().size(), 2u);
  Bcc cc;
  EXPECT_FALSE(cc.uses_asymmetric_fence());
  EXPECT_NE(fence_in_stats(cc).find("\"fence\": \"per_read\""), std::string::npos) << fence_in_stats(cc);
  BccOptions o;
  o.fence = "asymmetric";
  EXPECT_EQ(o.fence_kind(), Bcc::Fence::kAsymmetric);
  cc.configure(o);
#if defined(__linux__) && !defined(CCB_TSAN)
  EXPECT_TRUE(cc.uses_asymmetric_fence());
  EXPECT_NE(fence_in_stats(cc).find("\"fence\": \"asymmetric\""), std::string::npos) << fence_in_stats(cc);
#endif
  o.fence = "per_read";
  cc.configure(o);
  EXPECT_FALSE(cc.uses_asymmetric_fence());
  EXPECT_NE(fence_in_stats(cc).find("\"fence\": \"per_read\""), std::string::npos) << fence_in_stats(cc);
}

// Figure 2(c) with each fence: the writer's rw search finds the running
// reader's read, which it could not if the read-set insert were not ordered
// (per_read: the insert's fence; asymmetric: the search's membarrier).
TEST(BccFence, EachFenceFindsTheRwPatternOfFigure2c) {
  for (const std::string& fence : BccOptions::fences()) {
    Bcc cc;
    BccOptions o;
    o.fence = fence;
    cc.configure(o);
    Counters<Bcc> c(8);
    Txn<Bcc> t1(cc, 0, nullptr), t2(cc, 1, nullptr), t3(cc, 2, nullptr);
    t1.begin();
    ASSERT_TRUE(read(t1, c.table, Y));
    EXPECT_EQ(t2_commit_after_t3_overwrites(t2, t3, c.table, X, Y), RC::kValidation) << fence;
    EXPECT_EQ(cc.total_stats().by_dependency[Bcc::kRw], 1u) << fence;
    EXPECT_EQ(t1.commit(), RC::kOk) << fence;
  }
}

// The same reads as (c), but T1 finished before T2 started: T1 is not
// concurrent with T2, there is no essential pattern, and BCC saves T2.
TEST_F(BccPattern, ReaderThatFinishedBeforeStartIsNotConcurrent) {
  t1_.begin();
  ASSERT_TRUE(read(t1_, c_.table, Y));
  ASSERT_EQ(t1_.commit(), RC::kOk);
  EXPECT_EQ(t2_commit_after_t3_overwrites(t2_, t3_, c_.table, X, Y), RC::kOk);
  EXPECT_EQ(cc_.total_stats().saved, 1u);
}

// A two-transaction cycle (write skew, T1 ->rw T2 ->rw T1) is aborted.
TEST_F(BccPattern, WriteSkewCycleAborts) {
  t1_.begin();
  t2_.begin();
  ASSERT_TRUE(read(t1_, c_.table, A));
  ASSERT_TRUE(read(t1_, c_.table, B));
  ASSERT_TRUE(read(t2_, c_.table, A));
  ASSERT_TRUE(read(t2_, c_.table, B));
  ASSERT_TRUE(increment(t1_, c_.table, A));
  ASSERT_EQ(t1_.commit(), RC::kOk);
  ASSERT_TRUE(increment(t2_, c_.table, B));
  EXPECT_EQ(t2_.commit(), RC::kValidation);
  expect_abort_by(Bcc::kRw);
}

// A lost update (T1 ->rw T2 ->ww T1 on one row) is aborted.
TEST_F(BccPattern, LostUpdateAborts) {
  t1_.begin();
  t2_.begin();
  ASSERT_TRUE(increment(t1_, c_.table, A));
  ASSERT_TRUE(increment(t2_, c_.table, A));
  ASSERT_EQ(t1_.commit(), RC::kOk);
  EXPECT_EQ(t2_.commit(), RC::kValidation);
  EXPECT_EQ(c_.value(A), 1u);
}

// A three-transaction cycle T1 ->rw T2 ->rw T3 ->rw T1 (each reads the row the
// next one writes): the last committer meets an essential pattern.
TEST_F(BccPattern, ThreeTransactionCycleAborts) {
  t1_.begin();
  t2_.begin();
  t3_.begin();
  ASSERT_TRUE(read(t1_, c_.table, A));
  ASSERT_TRUE(read(t2_, c_.table, B));
  ASSERT_TRUE(read(t3_, c_.table, X));
  ASSERT_TRUE(increment(t1_, c_.table, X));  // T3 ->rw T1
  ASSERT_TRUE(increment(t2_, c_.table, A));  // T1 ->rw T2
  ASSERT_TRUE(increment(t3_, c_.table, B));  // T2 ->rw T3
  int committed = 0;
  committed += t1_.commit() == RC::kOk;
  committed += t2_.commit() == RC::kOk;
  committed += t3_.commit() == RC::kOk;
  EXPECT_LE(committed, 2);
}

// Random interleavings of short transactions on four rows, with read-only
// snapshot transactions started at quiet points and then interleaved: the
// recorded history must be serializable, no increment may be lost, and both
// BCC outcomes (saved, aborted after the check) must occur.
TEST(BccRandom, InterleavingsAreSerializable) {
  Bcc cc(0);  // every snapshot transaction makes a fresh synchronization point
  Counters<Bcc> c(4);
  constexpr int kTxns = 4;  // the last one runs the snapshot transactions
  std::vector<verify::HistoryLog> logs(kTxns);
  std::vector<std::unique_ptr<Txn<Bcc>>> txns;
  for (int i = 0; i < kTxns; ++i) txns.push_back(std::make_unique<Txn<Bcc>>(cc, i, &logs[i]));
  Random rng(42);
  uint64_t committed_increments = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    struct Op {
      uint64_t key;
      bool write;
    };
    std::vector<std::vector<Op>> ops(kTxns);
    std::vector<size_t> done(kTxns, 0);
    std::vector<uint64_t> increments(kTxns, 0);
    std::vector<bool> live(kTxns, true);
    const bool with_snapshot = trial % 5 == 0;
    for (int i = 0; i < kTxns; ++i) {
      const size_t n = 1 + rng.below(4);
      for (size_t k = 0; k < n; ++k) ops[i].push_back({rng.below(4), i < kTxns - 1 && rng.chance(0.4)});
    }
    if (with_snapshot) txns[kTxns - 1]->begin(0, true);  // all idle: the sync cannot block
    else live[kTxns - 1] = false;
    for (int i = 0; i < kTxns - 1; ++i) txns[i]->begin();
    int remaining = with_snapshot ? kTxns : kTxns - 1;
    while (remaining > 0) {
      int i = static_cast<int>(rng.below(kTxns));
      if (!live[i]) continue;
      Txn<Bcc>& t = *txns[i];
      if (done[i] == ops[i].size()) {
        if (t.commit() == RC::kOk) committed_increments += increments[i];
        live[i] = false;
        --remaining;
        continue;
      }
      const Op op = ops[i][done[i]++];
      ASSERT_TRUE(op.write ? increment(t, c.table, op.key) : read(t, c.table, op.key));
      increments[i] += op.write;
    }
  }
  uint64_t total = 0;
  for (uint64_t k = 0; k < 4; ++k) total += c.value(k);
  EXPECT_EQ(total, committed_increments);
  verify::History h = verify::HistoryLog::merge(logs);
  const verify::CheckResult r = verify::check_serializable(h);
  EXPECT_TRUE(r.serializable) << r.violation.message;
  const Bcc::Stats s = cc.total_stats();
  EXPECT_GT(s.saved, 0u);
  EXPECT_GT(s.aborted_after_check, 0u);
  EXPECT_GT(s.snapshot_txns, 0u);
  EXPECT_GT(s.versions_saved, 0u);
  EXPECT_EQ(s.table_grow_failures + s.table_memory_full, 0u);
}

// Section 3: a snapshot transaction reads the state at its synchronization
// point, whatever commits after it, and rows inserted later do not exist.
TEST(BccSnapshot, ReadsTheStateAtTheSynchronizationPoint) {
  Bcc cc(0);
  Counters<Bcc> c(4);
  Txn<Bcc> w(cc, 0, nullptr), s(cc, 1, nullptr), s2(cc, 2, nullptr);
  w.begin();
  ASSERT_TRUE(increment(w, c.table, A));
  ASSERT_EQ(w.commit(), RC::kOk);
  s.begin(0, /*read_only=*/true);
  for (int i = 0; i < 3; ++i) {  // three newer versions of A, one new row
    w.begin();
    ASSERT_TRUE(increment(w, c.table, A));
    if (i == 0) {
      ASSERT_NE(w.insert(c.table, 100), nullptr);
    }
    ASSERT_EQ(w.commit(), RC::kOk);
  }
  cc_test::expect_snapshot_of_old_state(s, c.table, A, 1, B, 100);
  EXPECT_EQ(s.commit(), RC::kOk);
  uint64_t v = 0;
  s2.begin(0, true);  // a new synchronization point sees everything
  ASSERT_TRUE(read(s2, c.table, A, &v));
  EXPECT_EQ(v, 4u);
  EXPECT_TRUE(read(s2, c.table, 100));
  EXPECT_EQ(s2.commit(), RC::kOk);
  EXPECT_EQ(cc.total_stats().syncs, 2u);
  EXPECT_EQ(cc.total_stats().validations, 4u);  // snapshot transactions are not validated
}

// A snapshot taken less than kSnapshotEpochMillis ago is reused.
TEST(BccSnapshot, RecentSnapshotIsReused) {
  Bcc cc(60'000);
  Counters<Bcc> c(4);
  Txn<Bcc> s(cc, 0, nullptr);
  for (int i = 0; i < 3; ++i) {
    s.begin(0, true);
    ASSERT_TRUE(read(s, c.table, A));
    ASSERT_EQ(s.commit(), RC::kOk);
  }
  EXPECT_EQ(cc.total_stats().syncs, 1u);
  EXPECT_EQ(cc.total_stats().snapshot_txns, 3u);
}

// The synchronization point waits until the running transactions finish.
TEST(BccSnapshot, SynchronizationWaitsForRunningTransactions) {
  Bcc cc(0);
  Counters<Bcc> c(4);
  Txn<Bcc> w(cc, 0, nullptr), s(cc, 1, nullptr);
  w.begin();
  ASSERT_TRUE(increment(w, c.table, A));
  std::atomic<bool> started{false};
  uint64_t seen = 99;
  std::thread reader([&] {
    s.begin(0, true);
    started = true;
    read(s, c.table, A, &seen);
    s.commit();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(started.load());
  ASSERT_EQ(w.commit(), RC::kOk);
  reader.join();
  EXPECT_TRUE(started.load());
  EXPECT_EQ(seen, 1u);
}

// Section 4.2: tables are released once no running transaction can search
// them, so with two threads taking turns the history stays a few tables.
TEST(BccHistory, TablesAreReleased) {
  Bcc cc;
  Counters<Bcc> c(64);
  Txn<Bcc> t1(cc, 0, nullptr), t2(cc, 1, nullptr);
  for (int i = 0; i < 40'000; ++i) {
    Txn<Bcc>& t = i % 2 ? t2 : t1;
    t.begin();
    for (uint64_t k = 0; k < 8; ++k) ASSERT_TRUE(read(t, c.table, (i + k) % 64));
    ASSERT_TRUE(increment(t, c.table, i % 64));
    ASSERT_EQ(t.commit(), RC::kOk);
  }
  const Bcc::Stats s = cc.total_stats();
  EXPECT_EQ(s.table_memory_full, 0u);
  EXPECT_LE(s.memory_max, 4096u);  // a handful of 256-byte tables
  JsonWriter w;
  w.begin_object();
  cc.stats_json(w);
  w.end_object();
  for (const char* key : {"saved_by_bcc", "aborted_after_bcc_check", "history_bytes_per_thread_avg",
                          "history_bytes_per_thread_max", "aborts_by_dependency"})
    EXPECT_NE(w.str().find(key), std::string::npos) << key;
}

// Essential pattern (c) through a row t1 read early (row 3, in t1's running
// read set): T1 ->rw T2 ->rw T3. T2 is aborted by the rw search of t1's
// table; t1 then commits.
void expect_t1_rw_t2_rw_t3_found(Bcc& cc, Counters<Bcc>& c, Txn<Bcc>& t1, Txn<Bcc>& t2, Txn<Bcc>& t3) {
  EXPECT_EQ(t2_commit_after_t3_overwrites(t2, t3, c.table, 250, 3), RC::kValidation);
  EXPECT_EQ(cc.total_stats().by_dependency[Bcc::kRw], 1u);
  EXPECT_EQ(t1.commit(), RC::kOk);
}

// A table outgrowing its initial size is replaced by a larger one that keeps
// every read, and other transactions still find them.
TEST(BccHistory, LargeReadSetsGrowTheTable) {
  Bcc cc;
  Counters<Bcc> c(256);
  Txn<Bcc> t1(cc, 0, nullptr), t2(cc, 1, nullptr), t3(cc, 2, nullptr);
  t1.begin();
  for (uint64_t k = 0; k < 200; ++k) ASSERT_TRUE(read(t1, c.table, k));
  expect_t1_rw_t2_rw_t3_found(cc, c, t1, t2, t3);
}

// Read-set tables are not zeroed (bcc::ReadSet): a table laid over the memory
// of an older one, with the next stamp, finds none of the older reads, and
// the rows it inserts itself are found with their TIDs.
TEST(BccHistory, ATableDoesNotSeeTheReadsOfAnOlderTableInItsMemory) {
  alignas(64) bcc::ReadSlot slots[16];
  const uint64_t base = reinterpret_cast<uint64_t>(&slots[0]);
  const uint64_t older = uint64_t{1} << bcc::kStampShift | base | 4;  // 16 slots
  const uint64_t newer = uint64_t{2} << bcc::kStampShift | base | 4;
  const bcc::ReadSet o(older), n(newer);
  auto row = [](uint64_t k) { return 0x10000 + 64 * k; };
  for (uint64_t k = 0; k < 8; ++k) EXPECT_TRUE(bcc::put_read(o, row(k), 100 + k, false));
  EXPECT_FALSE(bcc::put_read(o, row(3), 103, false));  // already there
  for (uint64_t k = 0; k < 8; ++k) EXPECT_EQ(bcc::find_read(older, row(k)), 100 + k);
  for (uint64_t k = 0; k < 8; ++k) EXPECT_EQ(bcc::find_read(newer, row(k)), bcc::kNone) << k;
  EXPECT_TRUE(bcc::put_read(n, row(5), 7, false));
  EXPECT_TRUE(bcc::put_read(n, row(9), 9, false));
  EXPECT_EQ(bcc::find_read(newer, row(5)), 7u);
  EXPECT_EQ(bcc::find_read(newer, row(9)), 9u);
  EXPECT_EQ(bcc::find_read(newer, row(4)), bcc::kNone);
}

// After 65535 transactions a thread's stamps run out: its tables are wiped
// once none is live, and the rw search still finds the reads of its next
// table (the pattern of LargeReadSetsGrowTheTable, T1 on the wiped thread).
TEST(BccHistory, TablesStillWorkAfterTheStampsRunOut) {
  Bcc cc;
  Counters<Bcc> c(256);
  Txn<Bcc> t1(cc, 0, nullptr), t2(cc, 1, nullptr), t3(cc, 2, nullptr);
  for (uint64_t i = 0; i < bcc::kMaxStamp; ++i) {
    t1.begin();
    ASSERT_TRUE(read(t1, c.table, i % 8));
    ASSERT_EQ(t1.commit(), RC::kOk);
  }
  EXPECT_EQ(cc.total_stats().table_wipes, 0u);
  t1.begin();
  EXPECT_EQ(cc.total_stats().table_wipes, 1u);
  for (uint64_t k = 0; k < 8; ++k) ASSERT_TRUE(read(t1, c.table, k));
  expect_t1_rw_t2_rw_t3_found(cc, c, t1, t2, t3);
}

// Section 6.3's bounded history memory (16K entries and 4MB of tables per
// thread): with t0 running throughout, none of t1's tables can be released.
// t1's transactions of 6000 reads use tables of 16K slots (256 KiB; the first
// grows to that size) until the 4 MiB buffer has room for one more. The next
// transaction starts in that room, and its table cannot double: it aborts
// (kHistoryMemory) instead of holding more than the capacity. Its retry wants
// the doubled table and waits, idle, in begin(); once t0 commits t1's tables
// are released, and the retry runs and commits.
TEST(BccHistory, TablesNeverHoldMoreThanTheCapacity) {
  constexpr uint64_t kReads = 6000, kTableBytes = sizeof(bcc::ReadSlot) << 14;
  Bcc cc;
  Counters<Bcc> c(3 * kReads);
  Txn<Bcc> t0(cc, 0, nullptr), t1(cc, 1, nullptr);
  t0.begin();
  ASSERT_TRUE(read(t0, c.table, 0));
  auto read_rows = [&](uint64_t n) {
    for (uint64_t k = 0; k < n; ++k)
      if (!read(t1, c.table, k)) return k;
    return n;
  };
  do {
    t1.begin();
    ASSERT_EQ(read_rows(kReads), kReads);
    ASSERT_EQ(t1.commit(), RC::kOk);
  } while (t1.meta().history->levels[2].used() + 2 * kTableBytes <= bcc::kLevelBytes[2]);
  t1.begin();
  EXPECT_EQ(read_rows(2 * kReads), kTableBytes / sizeof(bcc::ReadSlot) / 2);  // the read that needs a larger table fails
  EXPECT_EQ(t1.failure(), RC::kHistoryMemory);
  t1.abort();
  EXPECT_LE(t1.meta().history->table_bytes(), bcc::kTableMemoryBytes);
  std::atomic<bool> begun{false};
  std::thread retry([&] {
    t1.begin();
    begun.store(true);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(begun.load());  // no room while t0 runs
  EXPECT_EQ(t0.commit(), RC::kOk);
  retry.join();
  EXPECT_EQ(read_rows(2 * kReads), 2 * kReads);
  EXPECT_EQ(t1.commit(), RC::kOk);
  const Bcc::Stats s = cc.total_stats();
  EXPECT_EQ(s.table_grow_failures, 1u);
  EXPECT_EQ(s.table_memory_full, 1u);
  EXPECT_LE(s.memory_max, bcc::kTableMemoryBytes);
  EXPECT_GT(s.memory_max, bcc::kTableMemoryBytes - 2 * kTableBytes);  // the buffers were (nearly) full
}

// An empty circular buffer takes a block of its full size wherever its head
// stands, and a mark older than the tail releases nothing.
TEST(BccRing, AnEmptyBufferTakesAFullSizeBlock) {
  bcc::Ring ring(4096);
  ASSERT_NE(ring.allocate(1024), nullptr);
  const uint64_t mark = ring.mark();
  ring.release_to(mark);
  EXPECT_EQ(ring.used(), 0u);
  EXPECT_TRUE(ring.fits(4096));
  ASSERT_NE(ring.allocate(4096), nullptr);
  EXPECT_EQ(ring.used(), 4096u);
  EXPECT_FALSE(ring.fits(64));
  EXPECT_EQ(ring.allocate(64), nullptr);
  ring.release_to(mark);  // older than the tail moved by the wrap
  EXPECT_EQ(ring.used(), 4096u);
  ring.release_to(ring.mark());
  EXPECT_EQ(ring.used(), 0u);
}

}  // namespace
}  // namespace ccb
