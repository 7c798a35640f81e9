// The online executor's attempt timing (--attempt_latency_type, the executor's
// side of the BCC paper's Figures 11-12) and --retry_aborted, on YCSB under BCC
// (the protocol whose commits may be "saved": engine/txn/attempt_outcome.h).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "engine/cc/bcc/bcc.h"
#include "engine/exec/online_executor.h"
#include "engine/txn/attempt_outcome.h"
#include "tests/cc/cc_test_util.h"
#include "tests/support/forwarded_ycsb.h"
#include "workloads/ycsb/ycsb.h"

namespace ccb {
namespace {

// The executor's side of Figures 11-12 and of --retry_aborted, on YCSB whose
// every first attempt fails (a validation abort before the procedure runs):
// with retries each request commits on its second attempt, so every commit
// and abort of the type is one timed attempt; without (Silo's benchmark
// default) no request ever commits.
template <class CC>
struct FirstAttemptAborts : test_support::ForwardedYcsb<CC> {
  RC run(Txn<CC>& txn, const YcsbRequest& r) {
    return txn.restarts() == 0 ? RC::kValidation : this->inner.run(txn, r);
  }
};

RunOutcome<FirstAttemptAborts<Bcc>> run_first_attempt_aborts(bool retry_aborted) {
  YcsbOptions opt = cc_test::contended_ycsb();
  opt.key_skew.theta = 0;  // no real conflicts: every abort is the scripted one
  YcsbWorkload<Bcc> ycsb(opt);
  ycsb.load(1);
  FirstAttemptAborts<Bcc> w{{ycsb}};
  Bcc cc;
  EngineConfig cfg;
  cfg.threads = 1;
  cfg.duration_s = 0.05;
  cfg.txn_buffer = 16;
  cfg.backoff_max_us = 0;
  cfg.attempt_latency_type = "ycsb";
  cfg.retry_aborted = retry_aborted;
  OnlineExecutor<Bcc, FirstAttemptAborts<Bcc>> exec(cfg, cc, w);
  return exec.run();
}

TEST(ExecutorAttempts, EveryAttemptOfTheTypeIsTimedByOutcome) {
  const auto out = run_first_attempt_aborts(true);
  const AttemptLatencies& a = out.stats.attempts;
  EXPECT_GT(out.stats.commits, 0u);
  EXPECT_EQ(a.of(AttemptOutcome::kCommitted).count() + a.of(AttemptOutcome::kSaved).count(), out.stats.commits);
  EXPECT_EQ(a.of(AttemptOutcome::kAborted).count(), out.stats.aborts);
  EXPECT_EQ(a.of(AttemptOutcome::kSaved).count(), 0u);  // one thread: nothing concurrent to save
  // Each request aborts once, then commits; the interval's ends may cut one
  // request each way (aborted before the measured interval and committed in
  // it, or aborted at its end and never retried), so the counts differ by at
  // most one (signed: unsigned, the first case wrapped around and failed).
  const int64_t aborts = static_cast<int64_t>(out.stats.aborts), commits = static_cast<int64_t>(out.stats.commits);
  EXPECT_LE(std::abs(aborts - commits), 1) << "aborts " << aborts << ", commits " << commits;
}

TEST(ExecutorAttempts, WithoutRetriesAnAbortedRequestIsDropped) {
  const auto out = run_first_attempt_aborts(false);
  EXPECT_EQ(out.stats.commits, 0u);
  EXPECT_GT(out.stats.aborts, 0u);
  EXPECT_EQ(out.stats.attempts.of(AttemptOutcome::kAborted).count(), out.stats.aborts);
}

TEST(ExecutorAttempts, AnUnknownTypeIsAConfigurationError) {
  YcsbOptions opt = cc_test::contended_ycsb();
  YcsbWorkload<Bcc> w(opt);
  w.load(1);
  Bcc cc;
  EngineConfig cfg;
  cfg.threads = 1;
  cfg.duration_s = 0.01;
  cfg.txn_buffer = 16;
  cfg.attempt_latency_type = "NewOrder";
  OnlineExecutor<Bcc, YcsbWorkload<Bcc>> exec(cfg, cc, w);
  try {
    exec.run();
    FAIL() << "expected a configuration error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.flag, "attempt_latency_type");
    EXPECT_NE(std::string(e.what()).find("ycsb"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ccb
