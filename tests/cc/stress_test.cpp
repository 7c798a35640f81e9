// Multi-threaded stress of protocol-specific behaviour, self-checking (as
// tests/engine/stress_test.cpp, which runs every serializable protocol on
// contended YCSB): 4 workers (more than the CI machine's cores), counters
// that must add up to the committed increments, and a recorded history that
// must be serializable. A bank workload adds audits that read every account:
// under locking each audit reads under locks, under BCC (and Silo) it is a
// declared read-only snapshot transaction (BCC section 3, Silo section 4.9),
// and every audit must see the constant total. Then MOCC's hot-row locks,
// Strife's Fig 8 comparators on TPC-C and HOT, BCC's snapshots, instruments
// and fences, and Silo's snapshots.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <type_traits>
#include <vector>

#include "tests/cc/cc_test_util.h"
#include "tests/support/protocols.h"
#include "tests/tpcc/tpcc_test_util.h"
#include "workloads/hot/hot.h"
#include "workloads/tpcc/tpcc.h"

namespace ccb {
namespace {

// Bank audits read every account: every attempt of one must see the constant
// total, not only the committed ones, under every protocol whose read-only
// attempts see a consistent state (kConsistentReadOnlyAttempts: reads under
// locks, or BCC's snapshots). Optimistic protocols read before they validate
// (no opacity); Silo's snapshots are tested below and in
// silo_snapshot_test.cpp.
template <class CC>
struct SeesConsistentAudits
    : std::bool_constant<test_support::kSerializable<CC> && test_support::kConsistentReadOnlyAttempts<CC>> {};

template <class CC>
class BankAuditStress : public ::testing::Test {};
TYPED_TEST_SUITE(BankAuditStress, test_support::ProtocolsWhere<SeesConsistentAudits>);

TYPED_TEST(BankAuditStress, AuditsSeeConstantTotals) {
  using CC = TypeParam;
  CC cc;
  cc_test::BankWorkload<CC> w(64, 0.2);
  w.load(1);
  const cc_test::RunResult r = cc_test::run(cc, w, 0.4, 11);
  EXPECT_GT(r.commits, test_support::kMinStressCommits<CC>);
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
    test_support::expect_only_conflict_aborts<Mocc>(r.aborts_by_reason);
    EXPECT_GT(cc.total_stats().hot_reads + cc.total_stats().hot_writes, 0u) << r.cc_stats;
  }
}

// The Fig 8 comparators on the other workloads, at high
// contention: TPC-C's standard mix on one warehouse (consistency conditions)
// and HOT with the hot records moving during the run (no lost update; PartCC
// meets mispredicted partitions). MOCC with threshold 1, so hot-row locks are
// taken within the short run.
template <class CC>
class Fig8Stress : public ::testing::Test {
 protected:
  template <class W>
  static cc_test::RunResult run(W& w) {
    CC cc = make();
    w.load(2);
    return cc_test::run(cc, w, 0.4, 13);  // binds PartCC to the workload's partitions
  }
  static CC make() {
    if constexpr (std::is_same_v<CC, Mocc>) {
      return Mocc(1, 1000);
    } else {
      return CC();
    }
  }
  static void expect_correct(const cc_test::RunResult& r) {
    EXPECT_GT(r.commits, 100u);
    EXPECT_TRUE(r.invariants_ok) << r.invariant_detail;
    EXPECT_TRUE(r.check.serializable) << r.check.violation.message;
  }
};
// Named, not a property: the series Strife's Fig 8 compares with, whose
// locking follows the workload (MOCC's hot rows, PartCC's partitions).
using Fig8Comparators = ::testing::Types<Mocc, PartCC>;
TYPED_TEST_SUITE(Fig8Stress, Fig8Comparators);

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

// Section 6.3's capacity under load: 4 workers (more than the machine's
// cores, so a descheduled worker's running transaction keeps the others'
// tables alive) whose transactions read 20000 rows each, so 1 MiB tables,
// four to the 4 MiB buffer. Without the bound the tables overflowed to the
// heap; now no thread ever holds more than its capacity, the workers wait or
// abort instead, and every worker keeps committing.
TEST(BccStress, HistoryMemoryStaysWithinItsCapacity) {
  constexpr uint64_t kRows = 100'000, kReads = 20'000;
  Bcc cc;
  cc_test::Counters<Bcc> c(kRows);
  std::atomic<bool> stop{false};
  // Atomic: the main thread reads them while the workers run.
  std::vector<std::atomic<uint64_t>> commits(4);
  std::vector<uint64_t> memory_aborts(4);
  std::vector<std::thread> workers;
  for (uint32_t t = 0; t < 4; ++t)
    workers.emplace_back([&, t] {
      Txn<Bcc> txn(cc, t, nullptr);
      Random rng(seed_for(23, t));
      while (!stop.load(std::memory_order_relaxed)) {
        txn.begin();
        const uint64_t first = rng.below(kRows);
        bool ok = true;
        for (uint64_t k = 0; k < kReads && ok; ++k) ok = cc_test::read(txn, c.table, (first + k) % kRows);
        ok = ok && cc_test::increment(txn, c.table, first);
        if (!ok) {
          memory_aborts[t] += txn.failure() == RC::kHistoryMemory;
          txn.abort();
        } else if (txn.commit() == RC::kOk) {
          commits[t].fetch_add(1, std::memory_order_relaxed);
        }
      }
    });
  // At least 600 ms under load, then until every worker has committed once
  // or 60 s (a worker the bound starves never does, and fails then). Not a
  // fixed 600 ms: under ThreadSanitizer on a loaded 2-core CI machine a
  // worker's 20000-read transaction can take most of 600 ms, and whether one
  // finished by then was a matter of the schedule.
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  auto all_committed = [&] {
    for (const auto& n : commits)
      if (n.load(std::memory_order_relaxed) == 0) return false;
    return true;
  };
  while (!all_committed() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  stop.store(true);
  for (auto& w : workers) w.join();
  const Bcc::Stats s = cc.total_stats();
  EXPECT_LE(s.memory_max, bcc::kTableMemoryBytes);
  uint64_t aborts = 0;
  for (uint32_t t = 0; t < 4; ++t) {
    EXPECT_GT(commits[t].load(), 0u) << "worker " << t;
    aborts += memory_aborts[t];
  }
  EXPECT_EQ(aborts, s.table_grow_failures);
#ifndef CCB_TSAN
  // The bound was reached, so the run tested it. Under ThreadSanitizer the
  // workers run several times slower, the other threads' histories are
  // released before they fill the buffers, and whether the bound is reached
  // in 600 ms depends on the schedule; the deterministic
  // BccHistory.TablesNeverHoldMoreThanTheCapacity reaches it in every build.
  EXPECT_GT(s.table_memory_full + s.table_grow_failures, 0u);
#endif
}

// Figures 11-12 and Table 1's instruments under contention (4 workers):
// every NewOrder-like attempt is filed once by outcome, the "saved" ones are
// exactly the protocol's saved commits, the component timers run in every
// worker, the protocol's counters agree with the engine's, and the history
// stays serializable.
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
  BccOptions timed;
  timed.breakdown = true;
  cc.configure(timed);
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
  // The protocol's counters cover the measured interval, as the engine's:
  // every validation commits or aborts, and each failure of OCC's criterion
  // is either saved or aborted after the BCC check.
  EXPECT_EQ(s.validations, out.stats.commits + out.stats.aborts);
  EXPECT_EQ(s.aborted_after_check, out.stats.aborts);
  EXPECT_EQ(s.saved + s.aborted_after_check, s.occ_would_abort);
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

// Every --bcc_fence value, set as rundb sets it (Bcc::configure), at high
// contention: YCSB theta 0.9 and TPC-C's standard mix on one warehouse, 4
// workers, recorded histories serializable. Writers do search (OCC's
// criterion fails), so the insert/search ordering is exercised; the
// asymmetric fence runs where membarrier is available (not under TSan).
template <class W>
void expect_serializable_with_fence(const std::string& fence, W& w, uint64_t seed) {
  Bcc cc;
  BccOptions o;
  o.fence = fence;
  cc.configure(o);
  w.load(2);
  const cc_test::RunResult r = cc_test::run(cc, w, 0.4, seed);
  EXPECT_GT(r.commits, 100u) << fence;
  EXPECT_TRUE(r.invariants_ok) << fence << ": " << r.invariant_detail;
  EXPECT_TRUE(r.check.serializable) << fence << ": " << r.check.violation.message;
  EXPECT_GT(cc.total_stats().occ_would_abort, 0u) << fence;  // writers did search
  EXPECT_NE(r.cc_stats.find(std::string("\"fence\": \"") + cc.fence_name() + "\""), std::string::npos) << r.cc_stats;
#if defined(__linux__) && !defined(CCB_TSAN)
  EXPECT_EQ(cc.fence_name(), fence);
#endif
}

TEST(BccStress, EveryFenceIsSerializableOnContendedYcsb) {
  for (const std::string& fence : BccOptions::fences()) {
    YcsbWorkload<Bcc> w(cc_test::contended_ycsb());
    expect_serializable_with_fence(fence, w, 17);
  }
}

TEST(BccStress, EveryFenceIsSerializableOnTpccWithOneWarehouse) {
  for (const std::string& fence : BccOptions::fences()) {
    TpccWorkload<Bcc> w(tpcc::testing::small_options(1));
    expect_serializable_with_fence(fence, w, 23);
  }
}

// OCC, Silo and TicToc validating as DBx1000 built with BOUNDED_SPINNING
// (--occ_validation=bounded with and without --occ_read_abort,
// --silo_validation=bounded, --tictoc_validation=bounded): they abort where the defaults wait; under
// contention nothing is lost and the history is serializable.
// One protocol configured with `options`, at high contention.
template <class CC, class Options>
void expect_bounded_validation_serializable(const Options& options, const std::string& what) {
  CC cc;
  cc.configure(options);
  YcsbWorkload<CC> w(cc_test::contended_ycsb());
  w.load(2);
  const cc_test::RunResult r = cc_test::run(cc, w, 0.4, 9);
  EXPECT_GT(r.commits, 100u) << what;
  EXPECT_TRUE(r.invariants_ok) << what << ": " << r.invariant_detail;
  EXPECT_TRUE(r.check.serializable) << what << ": " << r.check.violation.message;
  test_support::expect_only_conflict_aborts<CC>(r.aborts_by_reason);
}

TEST(OccStress, BoundedValidationIsSerializable) {
  for (bool read_abort : {false, true})
    expect_bounded_validation_serializable<Occ>(OccOptions{.validation = "bounded", .read_abort = read_abort},
                                                read_abort ? "with read abort" : "without read abort");
}

TEST(SiloStress, BoundedValidationIsSerializable) {
  expect_bounded_validation_serializable<Silo>(SiloOptions{.validation = "bounded"}, "silo");
}

TEST(TicTocStress, BoundedValidationIsSerializable) {
  expect_bounded_validation_serializable<TicToc>(TicTocOptions{.validation = "bounded"}, "tictoc");
}

}  // namespace
}  // namespace ccb
