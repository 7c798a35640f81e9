// run_online<CC>(cfg, workload): load -> run -> check -> JSON result, for one
// workload under protocol CC. Returns the process exit code: 0 ok, 3 a
// correctness check failed (invariant broken or history not serializable; the
// JSON result is still written, with the evidence), 4 the measured interval
// committed nothing (no result is written: a throughput of 0 is no
// measurement; under sim the message names where each core last spun).
//
// Only what needs the protocol and workload types is here: the run itself and
// the RunReport it fills. The document is assembled from that report in
// engine/stats/result.cpp (its fields: docs/result.schema.json).
#pragma once

#include <glog/logging.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/config.h"
#include "engine/core/memory.h"
#include "engine/exec/bundle_executor.h"
#include "engine/exec/online_executor.h"
#include "engine/core/json.h"
#include "engine/stats/attempt_latency.h"
#include "engine/stats/memory_bound.h"
#include "engine/verify/cf_check.h"
#include "engine/verify/checker.h"
#include "engine/verify/history_io.h"
#include "rundb/frontends.h"
#include "rundb/result.h"

namespace ccb {

// The sim build (engine/sim/sim.h) runs the executors' threads as fibers:
// the online executor's workers, epoch ticker and controller, the bundle
// executor's workers (which also coordinate and analyse) and ticker, and a
// lock service's threads (Orthrus's CC
// threads; their message queues park a waiting fiber). A configuration with
// threads it does not simulate is refused (ConfigError naming the flag).
template <class CC>
void check_sim_support(const EngineConfig& cfg) {
  if (!kSimBuild) return;
  require(!cfg.pin, "pin", "false in the sim build (every virtual core runs on one OS thread)");
}

// A run whose measured interval committed nothing (issue 46: a livelock the
// simulation's schedule made permanent exited 0 with throughput 0): one
// error on stderr, and under sim a line per virtual core saying where it
// last spun or parked and how many spin rounds and aborts it had in the
// interval; exit 4, no result written.
inline int refuse_zero_commits(const EngineConfig& cfg, const ThreadStats& s, double measured_s) {
  std::fprintf(stderr,
               "error: the measured interval (%.6f %s s, --duration/--measure_txns) committed nothing (%llu "
               "aborts, %llu rolled back by design, %d threads): no result written\n",
               measured_s, kSimBuild ? "virtual" : "wall", static_cast<unsigned long long>(s.aborts),
               static_cast<unsigned long long>(s.user_aborts), cfg.threads);
#if CCB_SIM_BUILD
  std::fprintf(stderr, "%s", sim::describe_cores().c_str());
#endif
  std::fflush(stderr);
  return kExitNoCommits;
}

// kProfile: --profile, fixed at compile time here at the top so that the
// unprofiled instantiation holds no profiled code (the rundb binaries pass
// kProfileBuild: only the profile build's are profiled; rundb/CMakeLists.txt).
template <class CC, bool kProfile = false, class W>
int run_online(const EngineConfig& cfg, W& workload) {
  const MemoryEstimate need = workload.memory_estimate();
  require_memory_fits(need.bytes, need.size_flag, available_memory_bytes(), cfg.ignore_memory_limit);
  CC cc;
  JsonMembers cc_options;  // the protocol's own flags, members of "config"; empty: it has none
  if constexpr (HasProtocolOptions<CC>) {
    const typename CC::Options options = CC::Options::from_flags();
    cc.configure(options);
    cc_options = [options](JsonWriter& w) { options.to_json(w); };
  }
  if constexpr (BindsWorkload<CC, W>) cc.bind_workload(cfg, workload);  // PartCC's partitions
  // --frontend resolved once (the registry, rundb/frontends.cpp): flag errors before loading.
  const ResolvedFrontend frontend = ResolvedFrontend::from_flags(cfg);
  if constexpr (HasLockService<CC>) {
    // Dora's and Orthrus's owner threads live in the online executor, and its
    // thread-aware reordering (--frontend=reorder) would stall them: each
    // worker's batch waits on owners that are themselves workers (the
    // registry's owner-threads field, partitioners/frontends.txt).
    require(frontend.spec().owner_threads, "frontend",
            "protocol " + std::string(CC::kName) + " runs with --frontend=" + owner_thread_frontends() + " only");
  }
  check_executor_support<CC, W>(cfg);  // thread-count errors before loading
  check_sim_support<CC>(cfg);
  attempt_latency_type_index(cfg.attempt_latency_type, workload.txn_types(), W::kName);  // its error before loading
#if CCB_SIM_BUILD
  {
    std::vector<std::string> types = workload.txn_types();
    types.emplace_back(sim::kAnalysisWorkType);  // a bundle executor's analysis, after the transactions
    std::vector<double> scales = sim::parse_work_scale(sim::options().work_scale, types);
    sim::set_work_scales(std::move(scales), std::move(types));
  }
#endif
  if (cfg.validate_only) return 0;     // every check above passed; nothing loaded or written
  // Before the load, so the buffer (as large as the tables) is gone again
  // when they are allocated.
  std::optional<MemoryBound> bound;
  if (cfg.memory_bound) bound = measure_memory_bound(std::max<size_t>(need.bytes, size_t{64} << 10), 0.05, cfg.seed);
  const auto t_load = std::chrono::steady_clock::now();
  workload.load(cfg.load_threads);
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_load).count();
  LOG(INFO) << "loaded " << W::kName << " in " << load_s << " s";

  RunOutcome<W> out;
  if (!frontend.bundle()) {
    OnlineExecutor<CC, W> exec(cfg, cc, workload, frontend.spec());
    out = exec.template run<kProfile>();
  } else {
    const std::unique_ptr<BundleFrontend> planner = frontend.make_bundle_frontend();
    BundleExecutor<CC, W> exec(cfg, cc, workload, *planner, frontend.spec());
    out = exec.template run<kProfile>();
  }
  if (out.stats.commits == 0) return refuse_zero_commits(cfg, out.stats, out.measured_s);
  // A workload that can tell its measured interval was not what the flags
  // asked for (TSKD's runtime skew still calibrating, workloads/extensions/
  // extended.h) refuses it here: a ConfigError, exit 2, nothing written.
  if constexpr (ChecksMeasurement<W>)
    workload.check_measurement(out.stats.commits);
  const auto invariants = workload.check_invariants(out.workload_states);

  verify::CheckResult check;
  verify::CfCheckResult cc_free_check;  // bundle executor: the CC-free queues did not conflict
  if (cfg.verify) {
    verify::History h = verify::HistoryLog::merge(out.history_logs);
    check = verify::check_serializable(h);
    if (frontend.bundle()) cc_free_check = verify::check_cc_free_queues(h, out.queue_tags);
    if (!cfg.history_out.empty()) verify::write_history(cfg.history_out, h);
  }

  JsonMembers sim_json;  // the sim build's "sim" object; empty natively
#if CCB_SIM_BUILD
  sim_json = [](JsonWriter& w) { sim::write_json(w); };
#endif
  JsonMembers cc_stats;  // empty: the protocol keeps no statistics of its own
  if constexpr (HasProtocolStats<CC>) cc_stats = [&](JsonWriter& w) { cc.stats_json(w); };
  const RunReport report{
      .cfg = cfg,
      .cc = CC::kName,
      .cc_options = std::move(cc_options),
      .workload_options = [&](JsonWriter& w) { workload.options_json(w); },
      .frontend_options = [&](JsonWriter& w) { frontend.options_json(w); },
      .cc_stats = std::move(cc_stats),
      .txn_types = workload.txn_types(),
      .stats = out.stats,
      .load_s = load_s,
      .warmup_s = out.warmup_s,
      .measured_s = out.measured_s,
      .worker_cpus = out.worker_cpus,
      .tsdefer = out.tsdefer ? &*out.tsdefer : nullptr,
      .reorder = out.reorder ? &*out.reorder : nullptr,
      .frontend_json = out.frontend_json,
      .contended_latch_acquisitions = out.contended_latch_acquisitions,
      .memory_bound = bound ? &*bound : nullptr,
      .tables_bytes = workload.memory_bytes(),
      .invariants = invariants,
      .check = cfg.verify ? &check : nullptr,
      .cc_free_check = cfg.verify && frontend.bundle() ? &cc_free_check : nullptr,
      .sim = std::move(sim_json),
  };
  write_result_document(cfg.out, rundb_result_json(report));
  return correctness_exit_code(invariants, report.check, report.cc_free_check);
}

}  // namespace ccb
