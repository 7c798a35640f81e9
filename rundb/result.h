// The result document of bin/rundb-<cc> (docs/result.schema.json,
// $defs/rundb; docs/results.md says what each metric means).
// rundb_result_json() assembles it from a RunReport, which run_online<CC>
// (rundb/run.h) fills with what only the protocol and workload templates
// know; the parts every program shares come from engine/stats/result.h. A new
// metric of the rundb document lands in result.cpp and in the schema, nowhere
// else.
//
// Thread safety: none needed; a document is assembled once, after the run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/stats/result.h"

namespace ccb {

class JsonWriter;
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

// Everything a rundb run reports. Pointers are null where the run did not
// produce that part (the flag that enables it is named).
struct RunReport {
  const EngineConfig& cfg;
  std::string_view cc;                 // the protocol's kName (config.compile.cc)
  JsonMembers cc_options;              // the protocol's own flags, members of "config"; empty: it has none
  JsonMembers workload_options;        // the workload's knobs, members of "config"
  JsonMembers frontend_options;        // the bundle front-end's echoed flags (--partition_time); empty: none
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
  JsonMembers sim;  // the sim build's "sim" object (engine/sim/sim.h); empty natively
};

// The rundb result document (docs/result.schema.json, $defs/rundb).
std::string rundb_result_json(const RunReport& r);

}  // namespace ccb
