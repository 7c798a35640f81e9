// TsDEFER under contention, self-checking, under every optimistic protocol
// (tests/support/protocols.h: OCC and its descendants, where TSKD applies
// TsDEFER). (1) Finite queues (the way a queue-based executor uses TsDEFER):
// 4 workers on 2 cores drain their queues of YCSB requests at theta 0.99 on
// 256 rows, with deferp = 1 so candidates are deferred often; every
// transaction of every queue must commit exactly once, the counters must add
// up, and the history must be serializable. (2) The online executor with
// --frontend=tsdefer (TSKD[CC]) under the same contention. (3) NoWait's
// contended-latch count equals its lock-conflict aborts (each abort is one
// failed first try).
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "engine/exec/tsdefer.h"
#include "tests/support/protocols.h"
#include "tests/support/verified_run.h"

namespace ccb {
namespace {

template <class CC>
class TsDeferStressTest : public ::testing::Test {};
TYPED_TEST_SUITE(TsDeferStressTest, test_support::OptimisticProtocols);

TYPED_TEST(TsDeferStressTest, EveryQueuedTransactionCommitsExactlyOnceAndTheHistoryIsSerializable) {
  using CC = TypeParam;
  constexpr int kThreads = 4;
  constexpr uint32_t kQueue = 4000;
  YcsbWorkload<CC> workload(test_support::contended_ycsb());
  workload.load(2);
  CC cc;
  TsDeferOptions opt;
  opt.deferp = 1.0;
  TsDefer tsdefer(opt, kThreads);

  std::vector<std::vector<YcsbRequest>> queues(kThreads, std::vector<YcsbRequest>(kQueue));
  for (int t = 0; t < kThreads; ++t) {
    Random rng(seed_for(99, t));
    std::vector<TsDeferSet> sets;
    for (auto& r : queues[t]) {
      workload.generate(rng, t, r);
      sets.push_back(TsDeferSet::from_desc(workload.describe(r), 1.0, rng));
    }
    tsdefer.assign(t, std::move(sets), TsDefer::Replay::kNo);
  }
  std::vector<std::vector<int>> commits(kThreads, std::vector<int>(kQueue, 0));
  std::vector<typename YcsbWorkload<CC>::ThreadState> states(kThreads);
  std::vector<verify::HistoryLog> logs(kThreads);
  std::vector<uint64_t> aborts(kThreads, 0);
  std::atomic<int> ready{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      Random rng(seed_for(5, t));
      Txn<CC> txn(cc, t, &logs[t]);
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      while (const std::optional<uint32_t> id = tsdefer.next(t, rng)) {
        const YcsbRequest& req = queues[t][*id];
        for (uint32_t retries = 0;; ++retries) {  // retried at once, without regPos (§5 step 4)
          txn.begin(retries);
          RC rc = workload.run(txn, req);
          if (rc == RC::kOk) rc = txn.commit();
          else txn.abort();
          if (rc == RC::kOk) break;
          ++aborts[t];
        }
        workload.on_commit(states[t], req);
        ++commits[t][*id];
        tsdefer.reg_pos(t);
      }
    });
  }
  for (auto& w : workers) w.join();

  for (int t = 0; t < kThreads; ++t)
    for (uint32_t i = 0; i < kQueue; ++i) ASSERT_EQ(commits[t][i], 1) << "thread " << t << " transaction " << i;
  const TsDeferStats s = tsdefer.total_stats();
  EXPECT_GT(s.deferrals, 100u);  // the rule did reorder the queues
  for (const auto& inv : workload.check_invariants(states)) EXPECT_TRUE(inv.ok) << inv.name << ": " << inv.detail;
  verify::History h = verify::HistoryLog::merge(logs);
  EXPECT_EQ(h.txns.size(), size_t{kThreads} * kQueue);
  const verify::CheckResult check = verify::check_serializable(h);
  EXPECT_TRUE(check.serializable) << check.violation.message;
}

// The online executor with TsDEFER, through the same path as bin/rundb-<cc>.
template <class CC>
RunOutcome<YcsbWorkload<CC>> run_online(YcsbWorkload<CC>& workload, CC& cc, FrontendSpec::OnlineOrder order) {
  EngineConfig cfg;
  cfg.cc = CC::kName;
  cfg.workload = "ycsb";
  cfg.threads = 4;
  cfg.warmup_s = 0.05;
  cfg.duration_s = 0.3;
  cfg.seed = 3;
  cfg.verify = true;
  cfg.txn_buffer = 256;
  cfg.backoff_max_us = 20;
  cfg.tsdefer.deferp = 1.0;
  FrontendSpec frontend;
  frontend.online_order = order;
  OnlineExecutor<CC, YcsbWorkload<CC>> exec(cfg, cc, workload, frontend);
  return exec.run();
}

TYPED_TEST(TsDeferStressTest, OnlineExecutorWithTsDeferIsSerializable) {
  YcsbWorkload<TypeParam> workload(test_support::contended_ycsb());
  workload.load(2);
  TypeParam cc;
  auto out = run_online(workload, cc, FrontendSpec::OnlineOrder::kTsDefer);
  EXPECT_GT(out.stats.commits, 100u);
  ASSERT_TRUE(out.tsdefer.has_value());
  EXPECT_GT(out.tsdefer->deferrals, 0u);
  EXPECT_EQ(out.tsdefer->lookups, 2 * out.tsdefer->candidates);
  for (const auto& inv : workload.check_invariants(out.workload_states)) EXPECT_TRUE(inv.ok) << inv.detail;
  const verify::CheckResult check = verify::check_serializable(verify::HistoryLog::merge(out.history_logs));
  EXPECT_TRUE(check.serializable) << check.violation.message;
}

TEST(ContendedLatchCount, NoWaitCountsEachLockConflictAbort) {
  YcsbWorkload<NoWait> workload(test_support::contended_ycsb());
  workload.load(2);
  NoWait cc;
  auto out = run_online(workload, cc, FrontendSpec::OnlineOrder::kBuffer);
  EXPECT_FALSE(out.tsdefer.has_value());
  const uint64_t conflicts = out.stats.aborts_by_reason[static_cast<size_t>(RC::kLockConflict)];
  EXPECT_GT(conflicts, 0u);
  EXPECT_EQ(out.contended_latch_acquisitions, conflicts);
}

}  // namespace
}  // namespace ccb
