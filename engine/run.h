// run_online<CC>(cfg, workload): load -> run -> check -> JSON result, for one
// workload under protocol CC. Returns the process exit code: 0 ok, 3 a
// correctness check failed (invariant broken or history not serializable; the
// JSON result is still written, with the evidence).
#pragma once

#include <glog/logging.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <unistd.h>

#include "engine/config.h"
#include "engine/core/memory.h"
#include "engine/exec/bundle_executor.h"
#include "engine/exec/frontends.h"
#include "engine/exec/online_executor.h"
#include "engine/stats/json.h"
#include "engine/stats/memory_bound.h"
#include "engine/stats/provenance.h"
#include "engine/verify/checker.h"
#include "engine/verify/history_io.h"

namespace ccb {

// Writes `doc` to `path` atomically (temp file + rename), or to stdout.
inline void write_result_document(const std::string& path, const std::string& doc) {
  if (path.empty()) {
    std::fwrite(doc.data(), 1, doc.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
    return;
  }
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write " + tmp);
    f << doc << '\n';
    if (!f.flush()) throw std::runtime_error("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot rename " + tmp + " to " + path);
  }
}

// frontend.reorder: the thread-aware reordering step's cost in the measured
// interval (docs/results.md; ding-txt-reorder-overhead).
inline void write_reorder_stats(JsonWriter& w, const ThreadReorderStats& r, double measured_s) {
  const double txns = static_cast<double>(r.txns);
  w.key("reorder").begin_object();
  w.key("batches").value(r.batches);
  w.key("txns").value(r.txns);
  w.key("reorder_ns_per_txn").value(r.txns ? static_cast<double>(r.reorder_ns) / txns : 0.0);
  w.key("reorder_txn_per_s").value(r.reorder_ns ? txns * 1e9 / static_cast<double>(r.reorder_ns) : 0.0);
  w.key("barrier_wait_ns_per_txn").value(r.txns ? static_cast<double>(r.wait_ns) / txns : 0.0);
  w.key("batches_per_s").value(measured_s > 0 ? static_cast<double>(r.batches) / measured_s : 0.0);
  w.end_object();
}

// The result document's parts every executor writes the same way (the
// online and bundle executors here, the pipeline engine in engine/pipeline).

// latency_us: avg, p50, p90, p95, p99, p999, max in microseconds.
inline void write_latency_us(JsonWriter& w, const LatencyHistogram& h) {
  w.key("latency_us").begin_object();
  w.key("avg").value(h.mean() / 1e3);
  w.key("p50").value(h.quantile(0.50) / 1e3);
  w.key("p90").value(h.quantile(0.90) / 1e3);
  w.key("p95").value(h.quantile(0.95) / 1e3);
  w.key("p99").value(h.quantile(0.99) / 1e3);
  w.key("p999").value(h.quantile(0.999) / 1e3);
  w.key("max").value(static_cast<double>(h.max()) / 1e3);
  w.end_object();
}

inline bool all_hold(const std::vector<InvariantResult>& invariants) {
  bool ok = true;
  for (const auto& inv : invariants) ok &= inv.ok;
  return ok;
}

// invariants_ok and invariants; with --verify (check != nullptr) serializable,
// violation and verify.
inline void write_correctness(JsonWriter& w, const std::vector<InvariantResult>& invariants,
                              const verify::CheckResult* check) {
  w.key("invariants_ok").value(all_hold(invariants));
  w.key("invariants").begin_array();
  for (const auto& inv : invariants)
    w.begin_object().key("name").value(inv.name).key("ok").value(inv.ok).key("detail").value(inv.detail).end_object();
  w.end_array();
  if (check != nullptr) {
    w.key("serializable").value(check->serializable);
    w.key("violation").raw_value(verify::violation_to_json(check->violation));
    w.key("verify").raw_value(verify::check_result_to_json(*check));
  }
}

// Exit code 3, with one line on stderr per failed check, if an invariant is
// broken or the history (with --verify) is not serializable; else 0.
inline int correctness_exit_code(const std::vector<InvariantResult>& invariants, const verify::CheckResult* check) {
  int rc = 0;
  for (const auto& inv : invariants) {
    if (!inv.ok) {
      std::fprintf(stderr, "error: invariant %s broken: %s\n", inv.name.c_str(), inv.detail.c_str());
      rc = 3;
    }
  }
  if (check != nullptr && !check->serializable) {
    std::fprintf(stderr, "error: history not serializable: %s\n", check->violation.message.c_str());
    rc = 3;
  }
  return rc;
}

// kProfile: --profile, fixed at compile time here at the top so that the
// unprofiled instantiation holds no profiled code (the rundb binaries compile
// the two in separate translation units, engine/rundb/CMakeLists.txt).
template <class CC, bool kProfile = false, class W>
int run_online(const EngineConfig& cfg, W& workload) {
  const MemoryEstimate need = workload.memory_estimate();
  require_memory_fits(need.bytes, need.size_flag, available_memory_bytes(), cfg.ignore_memory_limit);
  CC cc;
  if constexpr (requires { cc.configure(cfg); }) cc.configure(cfg);  // protocol-specific flags (BCC)
  if constexpr (requires { cc.bind_workload(cfg, workload); }) cc.bind_workload(cfg, workload);  // PartCC's partitions
  const BundleSettings bundle = BundleSettings::from_flags(cfg);  // flag errors before loading
  if (uses_bundle_executor(cfg.frontend)) check_frontend_support(cfg.frontend, workload);
  if constexpr (HasLockService<CC>) {
    // Dora's and Orthrus's owner threads live in the online executor only.
    require(!uses_bundle_executor(cfg.frontend), "frontend",
            "protocol " + std::string(CC::kName) + " runs with --frontend=none or tsdefer only");
  }
  check_executor_support<CC, W>(cfg);  // thread-count errors before loading
  // Before the load, so the buffer (as large as the tables) is gone again
  // when they are allocated.
  std::optional<MemoryBound> bound;
  if (cfg.memory_bound) bound = measure_memory_bound(std::max<size_t>(need.bytes, size_t{64} << 10), 0.05, cfg.seed);
  const auto t_load = std::chrono::steady_clock::now();
  workload.load(cfg.load_threads);
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_load).count();
  LOG(INFO) << "loaded " << W::kName << " in " << load_s << " s";

  RunOutcome<W> out;
  if (!uses_bundle_executor(cfg.frontend)) {
    OnlineExecutor<CC, W> exec(cfg, cc, workload);
    out = exec.template run<kProfile>();
  } else {
    const std::unique_ptr<BundleFrontend> frontend = make_frontend(cfg, bundle);
    BundleExecutor<CC, W> exec(cfg, cc, workload, *frontend, bundle.batch_size, cfg.frontend);
    out = exec.template run<kProfile>();
  }
  const ThreadStats& s = out.stats;

  const auto invariants = workload.check_invariants(out.workload_states);

  verify::CheckResult check;
  verify::CfCheckResult cc_free_check;  // bundle executor: the CC-free queues did not conflict
  if (cfg.verify) {
    verify::History h = verify::HistoryLog::merge(out.history_logs);
    check = verify::check_serializable(h);
    if (uses_bundle_executor(cfg.frontend)) cc_free_check = verify::check_cc_free_queues(h, out.queue_tags);
    if (!cfg.history_out.empty()) verify::write_history(cfg.history_out, h);
  }

  JsonWriter w;
  w.begin_object();
  w.key("config").begin_object();
  cfg.to_json(w);
  workload.options_json(w);
  w.key("compile").begin_object();
  w.key("cc").value(CC::kName);
  w.key("build_type").value(build_info().build_type);
  w.key("sanitize").value(build_info().sanitize);
  w.key("native").value(build_info().native);
  w.end_object();
  w.end_object();
  w.key("provenance").begin_object();
  write_provenance(w, cfg.threads, out.worker_cpus);
  w.end_object();

  const double commits = static_cast<double>(s.commits);
  const double attempts = commits + static_cast<double>(s.aborts);
  w.key("throughput").value(out.measured_s > 0 ? commits / out.measured_s : 0.0);
  w.key("commits").value(s.commits);
  w.key("aborts").value(s.aborts);
  w.key("user_aborts").value(s.user_aborts);
  w.key("abort_rate").value(attempts > 0 ? static_cast<double>(s.aborts) / attempts : 0.0);
  w.key("retries_per_100k").value(s.commits ? static_cast<double>(s.aborts) * 1e5 / commits : 0.0);
  w.key("aborts_by_reason").begin_object();
  for (size_t r = 1; r < s.aborts_by_reason.size(); ++r) w.key(rc_name(static_cast<RC>(r))).value(s.aborts_by_reason[r]);
  w.end_object();
  write_latency_us(w, s.latency);
  w.key("per_txn_type").begin_object();
  const auto types = workload.txn_types();
  for (size_t t = 0; t < types.size(); ++t) {
    const TxnTypeStats& ts = s.per_type[t];
    w.key(types[t]).begin_object();
    w.key("commits").value(ts.commits);
    w.key("throughput").value(out.measured_s > 0 ? static_cast<double>(ts.commits) / out.measured_s : 0.0);
    w.key("aborts").value(ts.aborts);
    w.key("user_aborts").value(ts.user_aborts);
    w.key("avg_latency_us").value(ts.commits ? static_cast<double>(ts.latency_ns_sum) / ts.commits / 1e3 : 0.0);
    w.end_object();
  }
  w.end_object();
  if (!cfg.attempt_latency_type.empty()) {
    w.key("attempt_latency_us").begin_object();
    s.attempts.to_json(w, cfg.attempt_latency_type);
    w.end_object();
  }
  w.key("phases").begin_object();
  w.key("load_s").value(load_s);
  w.key("warmup_s").value(out.warmup_s);
  w.key("measured_s").value(out.measured_s);
  if (cfg.verify) w.key("verify_s").value(check.check_seconds);
  w.end_object();
  if (out.frontend_json.empty()) {
    w.key("frontend").begin_object().key("name").value(cfg.frontend);
    if (out.tsdefer) write_tsdefer_stats(w, *out.tsdefer, s.commits);
    if (out.reorder) write_reorder_stats(w, *out.reorder, out.measured_s);
    w.end_object();
  } else {
    w.key("frontend").raw_value(out.frontend_json);
  }
  if (bound) {
    w.key("memory_bound").begin_object();
    write_memory_bound(w, *bound);
    w.end_object();
  }
  w.key("contended_latch_acquisitions").value(out.contended_latch_acquisitions);
  w.key("contended_latch_acquisitions_per_100k")
      .value(s.commits ? static_cast<double>(out.contended_latch_acquisitions) * 1e5 / commits : 0.0);
  w.key("memory").begin_object();
  w.key("peak_rss_bytes").value(peak_rss_bytes());
  w.key("tables_bytes").value(workload.memory_bytes());
  w.end_object();
  if constexpr (HasProtocolStats<CC>) {
    w.key("cc_stats").begin_object();
    cc.stats_json(w);
    w.end_object();
  }
  if (cfg.profile) s.profile.to_json(w);
  if (cfg.timeline) {
    w.key("timeline").begin_array();
    for (uint64_t c : s.timeline) w.value(c);
    w.end_array();
  }
  write_correctness(w, invariants, cfg.verify ? &check : nullptr);
  if (cfg.verify) {
    if (uses_bundle_executor(cfg.frontend)) {
      w.key("cc_free_check").begin_object();
      w.key("ok").value(cc_free_check.ok);
      w.key("cc_free_txns").value(cc_free_check.cc_free_txns);
      w.key("message").value(cc_free_check.message);
      w.end_object();
    }
  }
  w.end_object();
  write_result_document(cfg.out, w.str());

  int rc = correctness_exit_code(invariants, cfg.verify ? &check : nullptr);
  if (cfg.verify && !cc_free_check.ok) {
    std::fprintf(stderr, "error: conflict-free phase had a conflict: %s\n", cc_free_check.message.c_str());
    rc = 3;
  }
  return rc;
}

}  // namespace ccb
