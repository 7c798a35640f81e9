// Run configuration: command-line flags (gflags) -> validated EngineConfig.
//
// Every flag is declared once, as a row of EngineConfig::flags (config.cpp,
// engine/core/options.h), which checks it; a bad value raises ConfigError
// naming the flag and what is allowed, which main() turns into one line on
// stderr and exit code 2 before anything is loaded or written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <source_location>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/core/cli.h"  // ConfigError, with_exit_codes, require, in_range: shared with the tools
#include "engine/core/options.h"
#include "engine/tsdefer_options.h"

namespace ccb {

class JsonWriter;

// The front-ends --frontend accepts, as partitioners/frontends.txt registers
// them (cmake/registries.cmake gives the kernel their names in
// generated/frontend_names.h), in the registry's order. The kernel takes
// only the names, to check the flag: the program above it resolves the
// name into the spec the executors run (rundb/frontends.cpp,
// engine/exec/frontend_spec.h), and builds the front-ends.
const std::vector<std::string>& available_frontends();

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
  std::string frontend;  // as given; the executors take its resolved spec (engine/exec/frontend_spec.h)
  bool pin = false;
  bool timeline = false;
  bool memory_bound = false;  // measure the memory-latency bound before loading (engine/stats/memory_bound.h)
  bool prefetch = true;  // Txn::prefetch of the declared accesses (engine/txn/txn.h)
  bool profile = false;  // --profile: the execution profile (engine/stats/exec_profile.h)
  uint32_t txn_buffer = 0;       // pre-generated requests per worker
  uint32_t backoff_max_us = 0;   // cap of randomized exponential backoff after an abort
  std::string abort_policy = "backoff";  // backoff | buffer (engine/exec/abort_buffer.h)
  uint32_t abort_buffer_size = 0;        // with buffer: slots per worker
  uint32_t abort_penalty_us = 0;         // with buffer: a parked request's penalty, uniform in [0, this]
  bool abort_buffer() const { return abort_policy == "buffer"; }
  static const std::vector<std::string>& abort_policies();  // {"backoff", "buffer"}
  int load_threads = 0;
  bool ignore_memory_limit = false;  // load even if the estimate exceeds the memory available
  bool validate_only = false;  // check every flag and combination as a run would, then exit 0 (nothing loaded or written)
  TsDeferOptions tsdefer;  // used by the online executor's TsDEFER (engine/exec/tsdefer.h) and TSKD's front-ends
  std::string attempt_latency_type;  // "" = off; else a transaction type (engine/stats/attempt_latency.h)
  bool retry_aborted = true;         // false: an aborted request is dropped, as Silo's benchmark does
  // A protocol's own flags are its options struct's (e.g. engine/cc/mocc/mocc.h), not these.

  // The engine's flags (engine/core/options.h), in the order they are read and echoed.
  static OptionsTable<EngineConfig> flags;
  // `workloads`: the names this binary can run (its registry).
  static EngineConfig from_flags(const char* cc_name, const std::vector<std::string>& workloads);
  void to_json(JsonWriter& w) const;  // the runtime part of the "config" object
};

// The engine's parse_command_line (engine/core/cli.h): --help lists the
// flags of the options tables the program links (engine/, workloads/, rundb/
// and its protocol's) and those defined in `program_file` (the program's own,
// e.g. bin/pipeline's) under a header naming the protocol.
bool parse_command_line(int argc, char** argv, const char* cc_name, const char* program_file = "");

// main() of a program that takes the engine's flags (bin/rundb-<cc>,
// bin/pipeline, bin/middletier): glog to stderr, the command line parsed
// (--help: exit 0), the config validated for `program` and the `workloads` it
// runs, then `body(cfg)`, all under the exit-code contract (with_exit_codes).
// The flags defined in the caller's file are the program's own (--help, --list_flags).
int program_main(int argc, char** argv, const char* program, const std::vector<std::string>& workloads,
                 const std::function<int(const EngineConfig&)>& body,
                 std::source_location caller = std::source_location::current());

// Refuses (ConfigError naming the first one given, with `why`) the `flags` a
// program parses with the engine's but does not use.
void reject_flags(std::initializer_list<const char*> flags, const std::string& why);

// Refuses (ConfigError naming `size_flag`) a load whose estimated bytes
// exceed the memory available, unless `ignore_limit`; available_bytes == 0
// means unknown, and then nothing is refused.
void require_memory_fits(size_t needed_bytes, const char* size_flag, size_t available_bytes, bool ignore_limit);

}  // namespace ccb
