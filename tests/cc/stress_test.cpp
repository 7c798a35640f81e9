// Multi-threaded stress of the protocols of issues 5 and 14, self-checking (as
// tests/engine/stress_test.cpp): 4 workers (more than the CI machine's cores)
// on YCSB at theta 0.99, where every write increments a counter, so the
// counters must add up to the committed increments, and the recorded history
// must be serializable. A bank workload adds audits that read every account:
// under locking each audit reads under locks, under BCC (and Silo) it is a
// declared read-only snapshot transaction (BCC section 3, Silo section 4.9),
// and every audit must see the constant total.
#include <gtest/gtest.h>

#include <type_traits>

#include "engine/cc/bcc.h"
#include "engine/cc/dldetect.h"
#include "engine/cc/dora.h"
#include "engine/cc/locksorted.h"
#include "engine/cc/mocc.h"
#include "engine/cc/orthrus.h"
#include "engine/cc/partcc.h"
#include "engine/cc/prenowait.h"
#include "engine/cc/silo.h"
#include "engine/cc/waitdie.h"
#include "tests/cc/cc_test_util.h"
#include "tests/tpcc/tpcc_test_util.h"
#include "workloads/hot/hot.h"
#include "workloads/tpcc/tpcc.h"

namespace ccb {
namespace {

template <class CC>
class CcStress : public ::testing::Test {};
using Protocols = ::testing::Types<Bcc, WaitDie, DlDetect, LockSorted, PreNoWait, Mocc, Dora, Orthrus>;
TYPED_TEST_SUITE(CcStress, Protocols);

// The one abort reason each protocol may report under contention.
template <class CC>
constexpr RC kConflictReason = RC::kLockConflict;
template <> constexpr RC kConflictReason<Bcc> = RC::kValidation;
template <> constexpr RC kConflictReason<WaitDie> = RC::kWaitDie;
template <> constexpr RC kConflictReason<DlDetect> = RC::kDeadlock;
// A second reason where a protocol has two (MOCC: validation of cold rows,
// out-of-order locks of hot ones).
template <class CC>
constexpr RC kOtherConflictReason = kConflictReason<CC>;
template <> constexpr RC kConflictReason<Mocc> = RC::kValidation;
template <> constexpr RC kOtherConflictReason<Mocc> = RC::kLockConflict;

// Commits a 0.4 s run must reach. Dora's 4 owners are the workers: on the CI
// machine's 2 cores (and under TSan) each cross-partition lock request waits
// until its owner thread is scheduled again, so its floor only proves
// progress.
template <class CC>
constexpr uint64_t kMinCommits = 100;
template <> constexpr uint64_t kMinCommits<Dora> = 10;

template <class CC>
void expect_only_conflict_aborts(const cc_test::RunResult& r) {
  for (size_t i = 1; i < static_cast<size_t>(RC::kCount); ++i) {
    if (static_cast<RC>(i) != kConflictReason<CC> && static_cast<RC>(i) != kOtherConflictReason<CC>) {
      EXPECT_EQ(r.aborts_by_reason[i], 0u) << rc_name(static_cast<RC>(i));
    }
  }
  if constexpr (std::is_same_v<CC, LockSorted>) {
    EXPECT_EQ(r.aborts, 0u);  // waits, never aborts
  }
}

TYPED_TEST(CcStress, HighContentionYcsbLosesNoUpdateAndIsSerializable) {
  using CC = TypeParam;
  CC cc;
  YcsbWorkload<CC> w(cc_test::contended_ycsb());
  w.load(2);
  const cc_test::RunResult r = cc_test::run(cc, w, 0.4, 7);
  EXPECT_GT(r.commits, kMinCommits<CC>);
  EXPECT_TRUE(r.invariants_ok) << r.invariant_detail;
  EXPECT_GE(r.recorded_txns, r.commits);
  EXPECT_TRUE(r.check.serializable) << r.check.violation.message;
  expect_only_conflict_aborts<CC>(r);
  if constexpr (std::is_same_v<CC, Bcc>) {
    // The protocol's counters cover the measured interval, as the engine's:
    // every validation commits or aborts, and each failure of OCC's criterion
    // is either saved or aborted after the BCC check.
    const Bcc::Stats s = cc.total_stats();
    EXPECT_EQ(s.validations, r.commits + r.aborts) << r.cc_stats;
    EXPECT_EQ(s.aborted_after_check, r.aborts) << r.cc_stats;
    EXPECT_EQ(s.saved + s.aborted_after_check, s.occ_would_abort) << r.cc_stats;
    EXPECT_NE(r.cc_stats.find("saved_by_bcc"), std::string::npos);
  }
}

TYPED_TEST(CcStress, BankAuditsSeeConstantTotals) {
  using CC = TypeParam;
  if constexpr (std::is_same_v<CC, Mocc>) {
    // As Silo's: until the first snapshot epoch completes (>= 1 s, longer
    // than this run) audits run as optimistic transactions, which may read an
    // inconsistent state before validation aborts them (no opacity). Silo's
    // snapshots are tested in silo_snapshot_test.cpp.
    GTEST_SKIP() << "audits see inconsistent state before validation, as under Silo";
  }
  CC cc;
  cc_test::BankWorkload<CC> w(64, 0.2);
  w.load(1);
  const cc_test::RunResult r = cc_test::run(cc, w, 0.4, 11);
  EXPECT_GT(r.commits, kMinCommits<CC>);
  EXPECT_TRUE(r.invariants_ok) << r.invariant_detail;
  EXPECT_EQ(w.bad_audits.load(), 0u);
  EXPECT_TRUE(r.check.serializable) << r.check.violation.message;
  if constexpr (std::is_same_v<CC, Bcc>) {
    EXPECT_GT(cc.total_stats().snapshot_txns, 0u);
  }
}

// MOCC with a low threshold (1: a row is hot from its first failed
// validation) and with every row hot (0): hot reads and writes lock, cold ones
// validate, under contention; nothing lost, serializable.
TEST(MoccStress, HotRecordLockingIsSerializable) {
  for (uint32_t threshold : {0u, 1u}) {
    Mocc cc(threshold, 1000);
    YcsbWorkload<Mocc> w(cc_test::contended_ycsb());
    w.load(2);
    const cc_test::RunResult r = cc_test::run(cc, w, 0.4, 9);
    EXPECT_GT(r.commits, 100u) << threshold;
    EXPECT_TRUE(r.invariants_ok) << r.invariant_detail;
    EXPECT_TRUE(r.check.serializable) << r.check.violation.message;
    expect_only_conflict_aborts<Mocc>(r);
    EXPECT_GT(cc.total_stats().hot_reads + cc.total_stats().hot_writes, 0u) << r.cc_stats;
  }
}

// Stress (4 workers, YCSB theta 0.99): PartCC bound to YCSB's key ranges,
// counters add up and the history is serializable.
TEST(PartCCStress, ContendedYcsbIsSerializable) {
  PartCC cc;
  YcsbWorkload<PartCC> w(cc_test::contended_ycsb());
  EngineConfig cfg;
  cfg.threads = 4;
  cc.bind_workload(cfg, w);
  EXPECT_EQ(cc.partitions(), 4u);
  w.load(2);
  const cc_test::RunResult r = cc_test::run(cc, w, 0.4, 5);
  EXPECT_GT(r.commits, 100u);
  EXPECT_TRUE(r.invariants_ok) << r.invariant_detail;
  EXPECT_TRUE(r.check.serializable) << r.check.violation.message;
  EXPECT_EQ(r.aborts, 0u) << "predicted partitions are locked up front in order: no aborts";
}

// The Fig 8 comparators on the other workloads of issue 14 item 5, at high
// contention: TPC-C's standard mix on one warehouse (consistency conditions)
// and HOT with the hot records moving during the run (no lost update; PartCC
// meets mispredicted partitions). MOCC with threshold 1, so hot-row locks are
// taken within the short run.
template <class CC>
class Fig8Stress : public ::testing::Test {
 protected:
  template <class W>
  static cc_test::RunResult run(W& w) {
    if constexpr (std::is_same_v<CC, Mocc>) {
      Mocc cc(1, 1000);
      w.load(2);
      return cc_test::run(cc, w, 0.4, 13);
    } else {
      CC cc;
      EngineConfig cfg;
      cfg.threads = 4;
      cc.bind_workload(cfg, w);
      w.load(2);
      return cc_test::run(cc, w, 0.4, 13);
    }
  }
  static void expect_correct(const cc_test::RunResult& r) {
    EXPECT_GT(r.commits, 100u);
    EXPECT_TRUE(r.invariants_ok) << r.invariant_detail;
    EXPECT_TRUE(r.check.serializable) << r.check.violation.message;
  }
};
using Fig8Protocols = ::testing::Types<Mocc, PartCC>;
TYPED_TEST_SUITE(Fig8Stress, Fig8Protocols);

TYPED_TEST(Fig8Stress, TpccStandardMixOnOneWarehouse) {
  TpccWorkload<TypeParam> w(tpcc::testing::small_options(1));
  this->expect_correct(this->run(w));
}

TYPED_TEST(Fig8Stress, HotWithMovingHotRecords) {
  HotOptions o;
  o.table_size = 4000;
  o.hot_records = 4;
  o.partitions = 4;
  o.shift_s = 0.05;
  HotWorkload<TypeParam> w(o);
  this->expect_correct(this->run(w));
  EXPECT_GE(w.epoch(), 3u);
}

// Snapshots renewed every millisecond: many synchronization points, saved
// versions and version-chunk reuse under load.
TEST(BccStress, FrequentSnapshotsStayConsistent) {
  Bcc cc(1);
  cc_test::BankWorkload<Bcc> w(32, 0.3);
  w.load(1);
  const cc_test::RunResult r = cc_test::run(cc, w, 0.4, 13);
  EXPECT_TRUE(r.invariants_ok) << r.invariant_detail;
  EXPECT_EQ(w.bad_audits.load(), 0u);
  EXPECT_TRUE(r.check.serializable) << r.check.violation.message;
  EXPECT_GT(cc.total_stats().versions_saved, 0u);
  EXPECT_GT(cc.total_stats().syncs, 1u);
}

// Figures 11-12 and Table 1's instruments under contention (4 workers):
// every NewOrder-like attempt is filed once by outcome, the "saved" ones are
// exactly the protocol's saved commits, the component timers run in every
// worker, and the history stays serializable.
TEST(BccStress, AttemptOutcomesAndComponentTimersUnderContention) {
  Bcc cc;
  YcsbWorkload<Bcc> w(cc_test::contended_ycsb());
  w.load(2);
  EngineConfig cfg;
  cfg.cc = Bcc::kName;
  cfg.workload = "ycsb";
  cfg.threads = 4;
  cfg.warmup_s = 0.05;
  cfg.duration_s = 0.4;
  cfg.seed = 17;
  cfg.verify = true;
  cfg.txn_buffer = 512;
  cfg.backoff_max_us = 20;
  cfg.attempt_latency_type = "ycsb";
  cfg.bcc_breakdown = true;
  cc.configure(cfg);
  OnlineExecutor<Bcc, YcsbWorkload<Bcc>> exec(cfg, cc, w);
  RunOutcome<YcsbWorkload<Bcc>> out = exec.run();
  const AttemptLatencies& a = out.stats.attempts;
  const Bcc::Stats s = cc.total_stats();
  EXPECT_GT(out.stats.commits, 100u);
  EXPECT_EQ(a.of(AttemptOutcome::kCommitted).count() + a.of(AttemptOutcome::kSaved).count(), out.stats.commits);
  EXPECT_EQ(a.of(AttemptOutcome::kSaved).count(), s.saved);
  EXPECT_EQ(a.of(AttemptOutcome::kAborted).count(), out.stats.aborts);
  EXPECT_GT(s.mm_cycles, 0u);
  EXPECT_GT(s.clock_cycles, 0u);
  const verify::CheckResult check = verify::check_serializable(verify::HistoryLog::merge(out.history_logs));
  EXPECT_TRUE(check.serializable) << check.violation.message;
}

// Silo's snapshot transactions (section 4.9) with a new floor at every epoch
// (40 ms): audits on snapshots see constant totals while transfers commit.
TEST(SiloStress, AuditsOnSnapshotsSeeConstantTotals) {
  Silo cc(1);
  cc_test::BankWorkload<Silo> w(32, 0.3);
  w.load(1);
  {  // The first read-only request starts version saving; after a tick every
     // audit runs on a snapshot (before, they would run validated and an
     // attempt could see a torn total).
    Txn<Silo> first(cc, 0, nullptr);
    first.begin(0, /*read_only=*/true);
    first.abort();
    cc.tick();
  }
  const cc_test::RunResult r = cc_test::run(cc, w, 0.4, 19);
  EXPECT_GT(r.commits, 100u);
  EXPECT_TRUE(r.invariants_ok) << r.invariant_detail;
  EXPECT_EQ(w.bad_audits.load(), 0u);
  EXPECT_TRUE(r.check.serializable) << r.check.violation.message;
  EXPECT_GT(cc.total_stats().snapshot_txns, 0u);
  EXPECT_GT(cc.total_stats().versions_saved, 0u);
  EXPECT_NE(r.cc_stats.find("versions_saved"), std::string::npos);
  EXPECT_EQ(r.aborts_by_reason[static_cast<size_t>(RC::kValidation)], r.aborts);
}

// The other ordering of read-set inserts (Bcc::Fence): plain stores, and a
// membarrier by every searching writer. The default is the per-read fence.
TEST(BccStress, AsymmetricFenceYcsbIsSerializable) {
  EXPECT_FALSE(Bcc().uses_asymmetric_fence());
  Bcc cc(Bcc::kSnapshotEpochMillis, Bcc::Fence::kAsymmetric);
#if defined(__linux__) && !defined(CCB_TSAN)
  EXPECT_TRUE(cc.uses_asymmetric_fence());
#endif
  YcsbWorkload<Bcc> w(cc_test::contended_ycsb());
  w.load(2);
  const cc_test::RunResult r = cc_test::run(cc, w, 0.4, 17);
  EXPECT_GT(r.commits, 100u);
  EXPECT_TRUE(r.invariants_ok) << r.invariant_detail;
  EXPECT_TRUE(r.check.serializable) << r.check.violation.message;
  EXPECT_GT(cc.total_stats().occ_would_abort, 0u);  // writers did search
}

}  // namespace
}  // namespace ccb
