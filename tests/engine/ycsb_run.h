// Runs a short, high-contention YCSB workload in-process under protocol CC with
// history recording, and returns what the tests assert on: commits, the
// invariants and the serializability checker's verdict.
#pragma once

#include "engine/exec/online_executor.h"
#include "engine/verify/checker.h"
#include "workloads/ycsb/ycsb.h"

namespace ccb::testing_support {

struct YcsbRunResult {
  uint64_t commits = 0;
  uint64_t recorded_txns = 0;
  bool invariants_ok = false;
  std::string invariant_detail;
  verify::CheckResult check;
};

// 4 workers on a 256-row table at theta 0.99: far more threads than cores on
// the CI machine, which is good at exposing races.
template <class CC>
YcsbRunResult run_contended_ycsb(double seconds, uint64_t seed) {
  EngineConfig cfg;
  cfg.cc = CC::kName;
  cfg.workload = "ycsb";
  cfg.threads = 4;
  cfg.warmup_s = 0.05;
  cfg.duration_s = seconds;
  cfg.seed = seed;
  cfg.verify = true;
  cfg.txn_buffer = 512;
  cfg.backoff_max_us = 20;
  cfg.load_threads = 2;
  YcsbOptions opt;
  opt.table_size = 256;
  opt.payload_size = 16;
  opt.req_per_txn = 8;
  opt.read_ratio = 0.5;
  opt.theta = 0.99;
  YcsbWorkload<CC> workload(opt);
  workload.load(cfg.load_threads);
  CC cc;
  OnlineExecutor<CC, YcsbWorkload<CC>> exec(cfg, cc, workload);
  RunOutcome<YcsbWorkload<CC>> out = exec.run();

  YcsbRunResult r;
  r.commits = out.stats.commits;
  const auto invariants = workload.check_invariants(out.workload_states);
  r.invariants_ok = invariants.size() == 1 && invariants[0].ok;
  r.invariant_detail = invariants.empty() ? "" : invariants[0].detail;
  verify::History h = verify::HistoryLog::merge(out.history_logs);
  r.recorded_txns = h.txns.size();
  r.check = verify::check_serializable(h);
  return r;
}

}  // namespace ccb::testing_support
