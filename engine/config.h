// Run configuration: command-line flags (gflags) -> validated EngineConfig.
//
// Every flag is range-checked here; a bad value raises ConfigError naming the
// flag and what is allowed, which main() turns into one line on stderr and
// exit code 2 before anything is loaded or written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/core/cli.h"  // ConfigError, with_exit_codes, require, in_range: shared with the tools
#include "engine/tsdefer_options.h"

namespace ccb {

class JsonWriter;

// none, tsdefer and reorder run on the online executor; the others plan
// batches for the bundle executor (engine/exec/bundle_executor.h).
inline bool uses_bundle_executor(const std::string& frontend) {
  return frontend != "none" && frontend != "tsdefer" && frontend != "reorder";
}

inline const std::vector<std::string>& available_frontends() {
  static const std::vector<std::string> names = {"none", "tsdefer", "reorder", "strife", "strife-static", "schism", "horticulture", "tskd-s", "tskd-c", "tskd-h", "tskd-o", "tspar-s", "tspar-c", "tspar-h", "tsdefer-s", "tsdefer-c", "tsdefer-h"};  // rundb/frontends.h
  return names;
}

struct EngineConfig {
  std::string cc;  // protocol compiled into this binary
  std::string workload;
  int threads = 1;
  double duration_s = 0;
  double warmup_s = 0;
  uint64_t measure_txns = 0;  // > 0: measure this many commits instead of a duration
  uint64_t seed = 0;
  std::string out;
  bool verify = false;
  std::string history_out;  // with verify: where to save the history ("" = don't)
  std::string frontend;
  bool pin = false;
  bool timeline = false;
  bool memory_bound = false;  // measure the memory-latency bound before loading (engine/stats/memory_bound.h)
  bool prefetch = true;  // Txn::prefetch of the declared accesses (engine/cc/txn.h)
  bool profile = false;  // --profile: the execution profile (engine/stats/exec_profile.h)
  uint32_t txn_buffer = 0;       // pre-generated requests per worker
  uint32_t backoff_max_us = 0;   // cap of randomized exponential backoff after an abort
  int load_threads = 0;
  bool ignore_memory_limit = false;  // load even if the estimate exceeds the memory available
  TsDeferOptions tsdefer;  // used with frontend "tsdefer" (engine/exec/tsdefer.h)
  std::string attempt_latency_type;  // "" = off; else a transaction type (engine/stats/attempt_latency.h)
  bool bcc_breakdown = false;        // BCC times its memory management and clock accesses (bcc-tab1)
  bool retry_aborted = true;         // false: an aborted request is dropped, as Silo's benchmark does
  // MOCC (engine/cc/mocc.h): a row is hot from this many validation failures
  // on it; the count halves every decay period.
  static constexpr uint32_t kMoccDefaultThreshold = 10;
  static constexpr uint32_t kMoccDefaultDecayMs = 1000;
  uint32_t mocc_temperature_threshold = kMoccDefaultThreshold;
  uint32_t mocc_decay_ms = kMoccDefaultDecayMs;

  // `workloads`: the names this binary can run (its registry).
  static EngineConfig from_flags(const char* cc_name, const std::vector<std::string>& workloads);
  void to_json(JsonWriter& w) const;  // the runtime part of the "config" object
};

// The engine's parse_command_line (engine/core/cli.h): --help and
// --list_flags list the flags of engine/ and workloads/ and those defined in
// files whose path contains one of `program_sources` (the program's own
// directory, e.g. "systems/pipeline/": the harness checks a figure's flags
// against --list_flags), under a header naming the protocol.
bool parse_command_line(int argc, char** argv, const char* cc_name, const std::vector<std::string>& program_sources);

// main() of a program that takes the engine's flags (bin/rundb-<cc>,
// bin/pipeline, bin/middletier): glog to stderr, the command line parsed
// (--help: exit 0), the config validated for `program` and the `workloads` it
// runs, then `body(cfg)`, all under the exit-code contract (with_exit_codes).
// `program_sources`: where the program defines its own flags (as above).
int program_main(int argc, char** argv, const char* program, const std::vector<std::string>& workloads,
                 const std::vector<std::string>& program_sources, const std::function<int(const EngineConfig&)>& body);

// Refuses (ConfigError naming the first one given, with `why`) the `flags` a
// program parses with the engine's but does not use.
void reject_flags(std::initializer_list<const char*> flags, const std::string& why);

// Refuses (ConfigError naming `size_flag`) a load whose estimated bytes
// exceed the memory available, unless `ignore_limit`; available_bytes == 0
// means unknown, and then nothing is refused.
void require_memory_fits(size_t needed_bytes, const char* size_flag, size_t available_bytes, bool ignore_limit);

}  // namespace ccb
