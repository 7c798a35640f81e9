// Run configuration: command-line flags (gflags) -> validated EngineConfig.
//
// Every flag is range-checked here; a bad value raises ConfigError naming the
// flag and what is allowed, which main() turns into one line on stderr and
// exit code 2 before anything is loaded or written.
#pragma once

#include <cmath>
#include <cstdio>
#include <exception>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/exec/tsdefer_options.h"

namespace ccb {

class JsonWriter;

struct ConfigError : std::runtime_error {
  ConfigError(std::string flag, const std::string& what)
      : std::runtime_error("--" + flag + ": " + what), flag(std::move(flag)) {}
  std::string flag;
};

// none, tsdefer and reorder run on the online executor; the others plan
// batches for the bundle executor (engine/exec/bundle_executor.h).
inline bool uses_bundle_executor(const std::string& frontend) {
  return frontend != "none" && frontend != "tsdefer" && frontend != "reorder";
}

inline const std::vector<std::string>& available_frontends() {
  static const std::vector<std::string> names = {"none", "tsdefer", "reorder", "strife", "schism", "horticulture", "tskd-s", "tskd-c", "tskd-h", "tskd-o", "tspar-s", "tspar-c", "tspar-h", "tsdefer-s", "tsdefer-c", "tsdefer-h"};  // engine/exec/frontends.h
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

// Runs a program's body under the exit-code contract: a ConfigError is one
// line "error: --flag: ..." on stderr and exit code 2; any other exception
// one line and exit code 1; otherwise the body's own code.
template <class Body>
int with_exit_codes(Body&& body) {
  try {
    return body();
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}

// Parses argv into gflags without letting gflags exit: unknown flags and bad
// values throw ConfigError. Returns false if --help was printed.
bool parse_command_line(int argc, char** argv, const char* cc_name);

// main() of a program that takes the engine's flags (bin/rundb-<cc>,
// bin/pipeline, bin/middletier): glog to stderr, the command line parsed
// (--help: exit 0), the config validated for `program` and the `workloads` it
// runs, then `body(cfg)`, all under the exit-code contract (with_exit_codes).
int program_main(int argc, char** argv, const char* program, const std::vector<std::string>& workloads,
                 const std::function<int(const EngineConfig&)>& body);

// Refuses (ConfigError naming the first one given, with `why`) the `flags` a
// program parses with the engine's but does not use.
void reject_flags(std::initializer_list<const char*> flags, const std::string& why);

// Refuses (ConfigError naming `size_flag`) a load whose estimated bytes
// exceed the memory available, unless `ignore_limit`; available_bytes == 0
// means unknown, and then nothing is refused.
void require_memory_fits(size_t needed_bytes, const char* size_flag, size_t available_bytes, bool ignore_limit);

// Helpers for range checks with uniform messages.
void require(bool ok, const std::string& flag, const std::string& allowed);

// The bounds of a range as the error messages write them: "[lo, hi]", with
// 2^k for powers of two from 2^20 on.
std::string describe_range(int64_t lo, int64_t hi);
std::string describe_range(uint64_t lo, uint64_t hi);
std::string describe_range(double lo, double hi);

// The value of a numeric flag, after checking that it lies in [lo, hi] (and
// is finite, for a floating-point flag). Otherwise a ConfigError naming the
// flag, allowed "<what> in [lo, hi]<note>" (e.g. "seconds in [0, 86400]").
template <class T, class Lo, class Hi>
T in_range(T value, Lo lo, Hi hi, const char* flag, const char* what, const std::string& note = {}) {
  using Wide = std::conditional_t<std::is_floating_point_v<T>, double,
                                  std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;
  const Wide v = static_cast<Wide>(value), l = static_cast<Wide>(lo), h = static_cast<Wide>(hi);
  bool ok = l <= v && v <= h;
  if constexpr (std::is_floating_point_v<T>) ok = ok && std::isfinite(v);
  if (!ok) require(false, flag, std::string(what) + " in " + describe_range(l, h) + note);
  return value;
}

// --theta, shared by the Zipf-skewed workloads (YCSB, SmallBank, micro).
double theta_flag();

}  // namespace ccb
