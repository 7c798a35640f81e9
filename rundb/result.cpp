#include "rundb/result.h"

#include "engine/config.h"
#include "engine/core/memory.h"
#include "engine/exec/thread_reorder.h"
#include "engine/exec/tsdefer.h"
#include "engine/stats/histogram.h"
#include "engine/core/json.h"
#include "engine/stats/memory_bound.h"
#include "engine/stats/provenance.h"
#include "engine/stats/thread_stats.h"
#include "engine/verify/cf_check.h"
#include "engine/verify/checker.h"

namespace ccb {
namespace {

double per(double count, double total) { return total > 0 ? count / total : 0.0; }

// frontend.reorder: the thread-aware reordering's planning, done before the
// warm-up (its rate: planned transactions per second of planning), and the
// workers' progress through the planned batches (docs/results.md;
// ding-txt-reorder-overhead).
void write_reorder_stats(JsonWriter& w, const ThreadReorderStats& r, double measured_s) {
  const double txns = static_cast<double>(r.txns);
  w.key("reorder").begin_object();
  w.key("batches").value(r.batches);
  w.key("txns").value(r.txns);
  w.key("reorder_ns_per_txn").value(per(static_cast<double>(r.reorder_ns), txns));
  w.key("reorder_txn_per_s").value(r.reorder_ns ? txns * 1e9 / static_cast<double>(r.reorder_ns) : 0.0);
  w.key("batches_per_s").value(per(per(static_cast<double>(r.measured_parts), static_cast<double>(r.workers)), measured_s));
  w.key("batch_spread").value(r.batch_spread);
  w.end_object();
}

void write_per_txn_type(JsonWriter& w, const RunReport& r) {
  w.key("per_txn_type").begin_object();
  for (size_t t = 0; t < r.txn_types.size(); ++t) {
    const TxnTypeStats& ts = r.stats.per_type[t];
    w.key(r.txn_types[t]).begin_object();
    w.key("commits").value(ts.commits);
    w.key("throughput").value(per(static_cast<double>(ts.commits), r.measured_s));
    w.key("aborts").value(ts.aborts);
    w.key("user_aborts").value(ts.user_aborts);
    w.key("avg_latency_us").value(ts.commits ? static_cast<double>(ts.latency_ns_sum) / ts.commits / 1e3 : 0.0);
    w.end_object();
  }
  w.end_object();
}

// The online executor writes {"name", and its front-end's counters}; the
// bundle executor the whole object (engine/exec/bundle_report.h).
void write_frontend(JsonWriter& w, const RunReport& r) {
  if (!r.frontend_json.empty()) {
    w.key("frontend").raw_value(r.frontend_json);
    return;
  }
  w.key("frontend").begin_object().key("name").value(r.cfg.frontend);
  if (r.tsdefer != nullptr) write_tsdefer_stats(w, *r.tsdefer, r.stats.commits);
  if (r.reorder != nullptr) write_reorder_stats(w, *r.reorder, r.measured_s);
  w.end_object();
}

}  // namespace

std::string rundb_result_json(const RunReport& r) {
  const EngineConfig& cfg = r.cfg;
  const ThreadStats& s = r.stats;
  const double commits = static_cast<double>(s.commits);
  JsonWriter w;
  w.begin_object();
  w.key("config").begin_object();
  cfg.to_json(w);
  if (r.cc_options) r.cc_options(w);
  r.workload_options(w);
  if (r.frontend_options) r.frontend_options(w);
  write_build_info(w, r.cc);
  w.end_object();
  w.key("provenance").begin_object();
  write_provenance(w, cfg.threads, r.worker_cpus);
  w.end_object();

  write_commit_summary(w, s.commits, s.aborts, r.measured_s);
  w.key("user_aborts").value(s.user_aborts);
  w.key("retries_per_100k").value(s.commits ? static_cast<double>(s.aborts) * 1e5 / commits : 0.0);
  w.key("aborts_by_reason").begin_object();
  for (size_t rc = 1; rc < s.aborts_by_reason.size(); ++rc)
    w.key(rc_name(static_cast<RC>(rc))).value(s.aborts_by_reason[rc]);
  w.end_object();
  write_latency_us(w, s.latency);
  write_per_txn_type(w, r);
  if (!cfg.attempt_latency_type.empty()) {
    w.key("attempt_latency_us").begin_object();
    s.attempts.to_json(w, cfg.attempt_latency_type);
    w.end_object();
  }
  w.key("phases").begin_object();
  w.key("load_s").value(r.load_s);
  w.key("warmup_s").value(r.warmup_s);
  w.key("measured_s").value(r.measured_s);
  if (r.check != nullptr) w.key("verify_s").value(r.check->check_seconds);
  w.end_object();
  write_frontend(w, r);
  if (r.memory_bound != nullptr) {
    w.key("memory_bound").begin_object();
    write_memory_bound(w, *r.memory_bound);
    w.end_object();
  }
  w.key("contended_latch_acquisitions").value(r.contended_latch_acquisitions);
  w.key("contended_latch_acquisitions_per_100k")
      .value(s.commits ? static_cast<double>(r.contended_latch_acquisitions) * 1e5 / commits : 0.0);
  w.key("memory").begin_object();
  w.key("peak_rss_bytes").value(peak_rss_bytes());
  w.key("tables_bytes").value(r.tables_bytes);
  w.key("huge_page_bytes").value(huge_page_bytes());
  w.key("transparent_hugepages").value(transparent_hugepage_mode());
  w.end_object();
  if (r.cc_stats) {
    w.key("cc_stats").begin_object();
    r.cc_stats(w);
    w.end_object();
  }
  if (cfg.profile) s.profile.to_json(w);
  if (cfg.timeline) {
    w.key("timeline").begin_array();
    for (uint64_t c : s.timeline) w.value(c);
    w.end_array();
  }
  write_correctness(w, r.invariants, r.check);
  if (r.cc_free_check != nullptr) {
    w.key("cc_free_check").begin_object();
    w.key("ok").value(r.cc_free_check->ok);
    w.key("cc_free_txns").value(r.cc_free_check->cc_free_txns);
    w.key("message").value(r.cc_free_check->message);
    w.end_object();
  }
  if (r.sim) r.sim(w);
  w.end_object();
  return w.str();
}

}  // namespace ccb
