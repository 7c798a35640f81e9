// bin/pipeline: the pipeline engine of the batching-and-reordering paper
// (engine.h) as a program of the figure harness (docs/harness.md, "To add a
// program"; docs/pipeline.md): --name=value flags (its own are the rows of
// options.cpp), --seed, exit 2
// with one line naming the flag on bad input (nothing written), one JSON
// document to --out (stdout without it), exit 3 when a correctness check
// (invariant, --verify) fails.
#include <glog/logging.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "engine/config.h"
#include "systems/pipeline/engine.h"
#include "systems/pipeline/options.h"
#include "systems/pipeline/procedures.h"
#include "engine/stats/histogram.h"
#include "engine/core/json.h"
#include "engine/stats/provenance.h"
#include "engine/stats/result.h"
#include "engine/verify/checker.h"
#include "engine/verify/history_io.h"

namespace {

using namespace ccb;
using namespace ccb::pipeline;

// The flags (options.cpp), with the engine's run length, seed and --verify.
PipelineOptions options_from_flags(const EngineConfig& cfg) {
  PipelineOptions o = PipelineOptions::from_flags();
  o.reorder.fvs.seed = cfg.seed;
  o.warmup_s = cfg.warmup_s;
  o.duration_s = cfg.duration_s;
  o.seed = cfg.seed;
  o.verify = cfg.verify;
  return o;
}

double seconds(uint64_t ns) { return static_cast<double>(ns) / 1e9; }

void write_busy(JsonWriter& w, const char* name, uint64_t busy_ns, double run_s) {
  w.key(name).begin_object().key("busy_s").value(seconds(busy_ns));
  w.key("utilization").value(run_s > 0 ? seconds(busy_ns) / run_s : 0.0).end_object();
}
void write_busy_list(JsonWriter& w, const char* name, const std::vector<uint64_t>& busy_ns, double run_s) {
  w.key(name).begin_array();
  for (uint64_t b : busy_ns) {
    w.begin_object().key("busy_s").value(seconds(b));
    w.key("utilization").value(run_s > 0 ? seconds(b) / run_s : 0.0).end_object();
  }
  w.end_array();
}
void write_queue(JsonWriter& w, const char* name, const QueueSample& q) {
  w.key(name).begin_object().key("avg").value(q.avg()).key("max").value(q.max).end_object();
}

template <class P>
int run(const EngineConfig& cfg, const PipelineOptions& opt, P& procedure) {
  Engine<P> engine(opt, procedure);
  const PipelineResult r = engine.run();

  verify::CheckResult check;
  if (cfg.verify) {
    std::vector<verify::HistoryLog> logs{r.history};
    verify::History h = verify::HistoryLog::merge(logs);
    check = verify::check_serializable(h);
    if (!cfg.history_out.empty()) verify::write_history(cfg.history_out, h);
  }

  JsonWriter w;
  w.begin_object();
  w.key("config").begin_object();
  w.key("program").value("pipeline");
  cfg.to_json(w);
  opt.to_json(w);
  procedure.options_json(w);
  write_build_info(w);
  w.end_object();
  w.key("provenance").begin_object();
  write_provenance(w, r.threads, {});
  w.end_object();

  write_commit_summary(w, r.commits, r.aborts(), r.measured_s);
  w.key("restarts_per_txn").value(r.commits ? static_cast<double>(r.restarts) / static_cast<double>(r.commits) : 0.0);
  w.key("aborts_by_reason").begin_object();
  for (size_t i = 0; i < static_cast<size_t>(AbortReason::kCount); ++i)
    w.key(abort_reason_name(static_cast<AbortReason>(i))).value(r.aborts_by_reason[i]);
  w.end_object();
  write_latency_us(w, r.latency);
  w.key("components").begin_object();
  write_busy_list(w, "clients", r.client_busy_ns, r.run_s);
  write_busy(w, "processor", r.processor_busy_ns, r.run_s);
  write_busy_list(w, "storage", r.storage_busy_ns, r.run_s);
  if (validator_batching(opt.mode)) {
    write_busy(w, "batch_prep", r.prep_busy_ns, r.run_s);
    write_busy_list(w, "reorder", r.reorder_busy_ns, r.run_s);
    write_busy(w, "validation", r.validation_busy_ns, r.run_s);
  } else {
    write_busy(w, "validator", r.validator_busy_ns, r.run_s);
  }
  w.end_object();
  w.key("queues").begin_object();
  write_queue(w, "processor", r.q_processor);
  write_queue(w, "storage", r.q_storage);
  write_queue(w, "validator", r.q_validator);
  write_queue(w, "reorder", r.q_reorder);
  write_queue(w, "validation", r.q_validation);
  w.end_object();
  const ReorderStats& s = r.reorder;
  const double batches = static_cast<double>(s.batches);
  w.key("reorder").begin_object();
  w.key("batches").value(s.batches);
  w.key("txns").value(s.txns);
  w.key("throughput").value(s.busy_ns ? static_cast<double>(s.txns) / seconds(s.busy_ns) : 0.0);
  w.key("us_per_batch").value(s.batches ? static_cast<double>(s.busy_ns) / batches / 1e3 : 0.0);
  w.key("edge_limit_share").value(s.batches ? static_cast<double>(s.edge_limit_hits) / batches : 0.0);
  w.key("avg_fvs_size").value(s.batches ? static_cast<double>(s.fvs_total) / batches : 0.0);
  w.key("max_fvs_size").value(s.fvs_max);
  w.key("avg_nonviable").value(s.batches ? static_cast<double>(s.nonviable_total) / batches : 0.0);
  w.key("avg_graph_nodes").value(s.batches ? static_cast<double>(s.nodes_total) / batches : 0.0);
  w.key("avg_graph_edges").value(s.batches ? static_cast<double>(s.edges_total) / batches : 0.0);
  w.end_object();
  w.key("batches").begin_object();
  w.key("storage").value(r.storage_batches);
  w.key("validator").value(r.validator_batches);
  w.end_object();
  w.key("phases").begin_object();
  w.key("warmup_s").value(opt.warmup_s);
  w.key("measured_s").value(r.measured_s);
  w.key("run_s").value(r.run_s);
  if (cfg.verify) w.key("verify_s").value(check.check_seconds);
  w.end_object();
  w.key("memory").begin_object().key("peak_rss_bytes").value(peak_rss_bytes()).end_object();
  write_correctness(w, r.invariants, cfg.verify ? &check : nullptr);
  w.end_object();
  write_result_document(cfg.out, w.str());

  return correctness_exit_code(r.invariants, cfg.verify ? &check : nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  return program_main(argc, argv, "pipeline", {"micro", "smallbank"}, [](const EngineConfig& cfg) {
    // Engine flags that do not apply to the pipeline engine.
    reject_flags({"threads", "measure_txns", "frontend", "pin", "timeline", "txn_buffer", "backoff_max_us",
                  "load_threads"},
                 "not used by the pipeline engine; its threads are --clients, --storage_workers and "
                 "--reorder_workers (plus one processor and the validator stages)");
    const PipelineOptions opt = options_from_flags(cfg);
    if (cfg.workload == "micro") {
      const MicroOptions mo = MicroOptions::from_flags();
      if (cfg.validate_only) return (MicroGenerator(mo), 0);  // the generator's checks (cheap)
      MicroProcedure procedure(mo);
      return run(cfg, opt, procedure);
    }
    const SmallBankOptions so = SmallBankOptions::from_flags();
    if (cfg.validate_only) return (SmallBankProcedure::check(so, cfg.ignore_memory_limit), 0);
    SmallBankProcedure procedure(so, cfg.ignore_memory_limit);
    return run(cfg, opt, procedure);
  });
}
