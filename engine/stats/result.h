// The result document of a run: one JSON object per run, the only thing the
// harness reads (ARCHITECTURE property 4). Its fields, their types and which
// are required are defined once, in docs/result.schema.json (docs/results.md
// says what each metric means); the contract tests validate every binary's
// document against that schema.
//
// rundb_result_json() assembles the whole document of bin/rundb-<cc> from a
// RunReport, which run_online<CC> (engine/run.h) fills with what only the
// protocol and workload templates know. The pipeline engine (bin/pipeline)
// and the middle tier (bin/middletier) write their own documents with the
// parts all three share (the commit summary, latency_us, the correctness
// fields, the atomic write). A new metric of the rundb document lands in
// result.cpp and in the schema, nowhere else.
//
// Thread safety: none needed; a document is assembled once, after the run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ccb {

class JsonWriter;
class LatencyHistogram;
struct EngineConfig;
struct InvariantResult;
struct MemoryBound;
struct ThreadReorderStats;
struct ThreadStats;
struct TsDeferStats;
namespace verify {
struct CfCheckResult;
struct CheckResult;
}  // namespace verify

// Writes members into the object that is open in the writer.
using JsonMembers = std::function<void(JsonWriter&)>;

// Everything a rundb run reports. Pointers are null where the run did not
// produce that part (the flag that enables it is named).
struct RunReport {
  const EngineConfig& cfg;
  std::string_view cc;                 // the protocol's kName (config.compile.cc)
  JsonMembers workload_options;        // the workload's knobs, members of "config"
  JsonMembers cc_stats;                // the protocol's own counters, "cc_stats"; empty: it keeps none
  std::vector<std::string> txn_types;  // the workload's types, in ThreadStats::per_type's order
  const ThreadStats& stats;            // merged over the workers, measured interval
  double load_s = 0, warmup_s = 0, measured_s = 0;
  const std::vector<int>& worker_cpus;           // pinned CPU per worker; empty: not pinned
  const TsDeferStats* tsdefer = nullptr;         // --frontend=tsdefer
  const ThreadReorderStats* reorder = nullptr;   // --frontend=reorder
  std::string_view frontend_json;                // the bundle executor's whole "frontend" object; empty: online
  uint64_t contended_latch_acquisitions = 0;
  const MemoryBound* memory_bound = nullptr;     // --memory_bound
  size_t tables_bytes = 0;
  const std::vector<InvariantResult>& invariants;
  const verify::CheckResult* check = nullptr;          // --verify
  const verify::CfCheckResult* cc_free_check = nullptr;  // --verify on the bundle executor
};

// The rundb result document (docs/result.schema.json, $defs/rundb).
std::string rundb_result_json(const RunReport& r);

// The parts the three documents share.

// throughput (commits per measured second), commits, aborts and abort_rate
// (aborts / (aborts + commits)), as docs/results.md defines them.
void write_commit_summary(JsonWriter& w, uint64_t commits, uint64_t aborts, double measured_s);

// latency_us: avg, p50, p90, p95, p99, p999, max in microseconds.
void write_latency_us(JsonWriter& w, const LatencyHistogram& h);

// invariants_ok and invariants; with --verify (check != nullptr) serializable,
// violation and verify.
void write_correctness(JsonWriter& w, const std::vector<InvariantResult>& invariants,
                       const verify::CheckResult* check);

// Exit code 3, with one line on stderr per failed check, if an invariant is
// broken, the history (with --verify) is not serializable, or the bundle
// executor's CC-free queues conflicted; else 0.
int correctness_exit_code(const std::vector<InvariantResult>& invariants, const verify::CheckResult* check,
                          const verify::CfCheckResult* cc_free_check = nullptr);

// Writes `doc` to `path` atomically (temporary file + rename, so a reader
// never sees half a document), or to stdout when `path` is empty.
void write_result_document(const std::string& path, const std::string& doc);

}  // namespace ccb
