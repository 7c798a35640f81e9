// Runs a loaded workload in-process under protocol CC with history recording
// (binding the workload's partitions first for a protocol that locks them),
// and returns what the stress tests assert on: commits, aborts, invariants and
// the serializability checker's verdict. Shared by every stress suite (engine,
// protocols, TPC-C, the other workloads), so "a high-contention run is
// correct" means the same thing everywhere.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/exec/online_executor.h"
#include "engine/core/json.h"
#include "engine/verify/checker.h"
#include "workloads/ycsb/ycsb.h"

namespace ccb::test_support {

struct RunShape {
  int threads = 4;  // more than the CI machine's 2 cores: good at exposing races
  double seconds = 0.4;
  uint64_t seed = 7;
  uint32_t txn_buffer = 512;
};

struct VerifiedRun {
  uint64_t commits = 0;
  uint64_t aborts = 0;
  std::array<uint64_t, static_cast<size_t>(RC::kCount)> aborts_by_reason{};
  std::vector<uint64_t> commits_by_type;
  bool invariants_ok = false;
  std::string invariant_detail;  // "name: detail; " for every invariant
  uint64_t recorded_txns = 0;    // committed transactions in the history (warm-up included)
  verify::CheckResult check;
  std::string cc_stats;  // the protocol's statistics as JSON, if it has any
};

template <class CC, class W>
VerifiedRun run_verified(CC& cc, W& workload, const RunShape& shape = {}) {
  EngineConfig cfg;
  cfg.cc = CC::kName;
  cfg.workload = W::kName;
  cfg.threads = shape.threads;
  cfg.warmup_s = 0.05;
  cfg.duration_s = shape.seconds;
  cfg.seed = shape.seed;
  cfg.verify = true;
  cfg.txn_buffer = shape.txn_buffer;
  cfg.backoff_max_us = 20;
  cfg.load_threads = 2;
  if constexpr (requires { cc.bind_workload(cfg, workload); }) cc.bind_workload(cfg, workload);  // as rundb/run.h
  OnlineExecutor<CC, W> exec(cfg, cc, workload);
  RunOutcome<W> out = exec.run();

  VerifiedRun r;
  r.commits = out.stats.commits;
  r.aborts = out.stats.aborts;
  r.aborts_by_reason = out.stats.aborts_by_reason;
  for (const auto& t : out.stats.per_type) r.commits_by_type.push_back(t.commits);
  r.invariants_ok = true;
  for (const auto& inv : workload.check_invariants(out.workload_states)) {
    r.invariants_ok &= inv.ok;
    r.invariant_detail += inv.name + ": " + inv.detail + "; ";
  }
  verify::History h = verify::HistoryLog::merge(out.history_logs);
  r.recorded_txns = h.txns.size();
  r.check = verify::check_serializable(h);
  if constexpr (HasProtocolStats<CC>) {
    JsonWriter w;
    w.begin_object();
    cc.stats_json(w);
    w.end_object();
    r.cc_stats = w.str();
  }
  return r;
}

// YCSB at theta 0.99 on 256 rows, 8 requests per transaction, half writes.
inline YcsbOptions contended_ycsb() {
  YcsbOptions opt;
  opt.table_size = 256;
  opt.payload_size = 16;
  opt.req_per_txn = 8;
  opt.read_ratio = 0.5;
  opt.key_skew.theta = 0.99;
  return opt;
}

}  // namespace ccb::test_support
