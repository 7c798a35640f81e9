#include "engine/config.h"

#include <gflags/gflags.h>
#include <glog/logging.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <sys/stat.h>
#include <unistd.h>

#include "engine/stats/exec_profile.h"
#include "engine/core/json.h"
#include "frontend_names.h"  // generated from partitioners/frontends.txt (cmake/registries.cmake)

namespace ccb {
OptionsTable<EngineConfig> EngineConfig::flags{"engine_flags"};
}  // namespace ccb

// The rows: read, checked and echoed in this order. CCB_WORKLOAD_NAMES: the
// registered workloads (workloads/workloads.txt), set by engine/CMakeLists.txt.
CCB_OPTION(ccb::EngineConfig::flags, workload, string, workload, "ycsb", ccb::any_value(),
           "workload to run: " CCB_WORKLOAD_NAMES);
CCB_OPTION(ccb::EngineConfig::flags, threads, int32, threads, 1, ccb::range(1, 1024, "an integer"),
           "number of worker threads");
CCB_OPTION(ccb::EngineConfig::flags, duration_s, double, duration, 5.0, ccb::above(0, 86400, "seconds"),
           "measured interval in seconds; ignored when --measure_txns > 0");
CCB_OPTION(ccb::EngineConfig::flags, warmup_s, double, warmup, 1.0, ccb::range(0, 86400, "seconds"),
           "warm-up before the measured interval, in seconds");
CCB_OPTION(ccb::EngineConfig::flags, measure_txns, uint64, measure_txns, 0, ccb::any_value(),
           "if > 0, measure until this many transactions committed (split evenly over workers) instead of --duration");
CCB_OPTION(ccb::EngineConfig::flags, seed, uint64, seed, 1, ccb::any_value(),
           "random seed; worker i uses a stream derived from (seed, i)");
CCB_OPTION(ccb::EngineConfig::flags, out, string, out, "", ccb::writable_path().not_echoed(),
           "path of the JSON result (written atomically); stdout if empty");
CCB_OPTION(ccb::EngineConfig::flags, verify, bool, verify, false, ccb::any_value(),
           "record the history of committed transactions and check it for serializability");
CCB_OPTION(ccb::EngineConfig::flags, history_out, string, history_out, "", ccb::writable_path(),
           "with --verify: also write the recorded history to this file (for bin/check_history)");
// The names, their help and their schema enum come from the front-end
// registry (partitioners/frontends.txt, generated/frontend_names.h).
CCB_OPTION(ccb::EngineConfig::flags, frontend, string, frontend, "none", ccb::one_of(&ccb::available_frontends),
           ccb::generated::kFrontendHelp);
CCB_OPTION(ccb::EngineConfig::flags, pin, bool, pin, false, ccb::any_value(),
           "pin worker i to one CPU, one per physical core first, then SMT siblings");
CCB_OPTION(ccb::EngineConfig::flags, timeline, bool, timeline, false, ccb::any_value(),
           "add a per-second throughput timeline to the result");
CCB_OPTION(ccb::EngineConfig::flags, memory_bound, bool, memory_bound, false, ccb::any_value(),
           "before loading, measure this machine's memory latency over a buffer as large as the tables (pointer "
           "chase, about 2 s) and report it as memory_bound");
CCB_OPTION(ccb::EngineConfig::flags, prefetch, bool, prefetch, true, ccb::any_value(),
           "prefetch the index buckets and rows of the accesses a procedure declares before it makes them (YCSB, "
           "TPC-C NewOrder/Payment, SmallBank); false: every miss waits in turn");
CCB_OPTION(ccb::EngineConfig::flags, profile, bool, profile, ccb::kProfileBuild, ccb::any_value(),
           "add the execution profile (time shares of abort, lock, execute, index, validation, analysis; "
           "strife-fig07) to the result; costs clock reads around each index and protocol call. Only the "
           "profile build has it (make CC=<cc> VARIANT=profile: build/profile/bin/rundb-<cc>), where it is always on");
CCB_OPTION(ccb::EngineConfig::flags, txn_buffer, uint32, txn_buffer, 4096, ccb::range(1, 1000000, "an integer"),
           "requests pre-generated per worker and replayed in a cycle");
CCB_OPTION(ccb::EngineConfig::flags, backoff_max_us, uint32, backoff_max_us, 100,
           ccb::range(0, 1000000, "microseconds"),
           "cap in microseconds of the randomized exponential backoff after an abort (0 = retry at once)");
CCB_OPTION(ccb::EngineConfig::flags, abort_policy, string, abort_policy, "backoff",
           ccb::one_of(&ccb::EngineConfig::abort_policies),
           "what a worker does after a conflict abort: backoff = wait idle (randomized exponential, "
           "--backoff_max_us), then retry the same request; buffer = DBx1000's abort buffer: park the request for a "
           "penalty (--abort_penalty_us) in one of --abort_buffer_size slots and run new requests meanwhile, idling "
           "only when every slot waits (with TsDEFER: TsDEFER picks the new ones; with a bundle front-end: within each "
           "queue and residual phase, which drain their parked transactions before they end; not with reorder)");
CCB_OPTION(ccb::EngineConfig::flags, abort_buffer_size, uint32, abort_buffer_size, 10,
           ccb::range(1, 4096, "an integer"),
           "with --abort_policy=buffer: the slots of a worker's abort buffer (DBx1000's ABORT_BUFFER_SIZE, 10)");
CCB_OPTION(ccb::EngineConfig::flags, abort_penalty_us, uint32, abort_penalty_us, 100,
           ccb::range(0, 1000000, "microseconds"),
           "with --abort_policy=buffer: a parked request waits a penalty uniform in [0, this] microseconds "
           "(DBx1000's ABORT_PENALTY, 100 us)");
CCB_OPTION(ccb::EngineConfig::flags, load_threads, int32, load_threads, 0,
           ccb::range(0, 1024, "an integer", " (0 = --threads)"), "threads used to load tables");
CCB_OPTION(ccb::EngineConfig::flags, validate_only, bool, validate_only, false, ccb::any_value().not_echoed(),
           "check every flag and combination as a run would (memory estimate included), then exit 0 without loading "
           "or writing anything (the harness checks a figure's points this way before running any)");
CCB_OPTION(ccb::EngineConfig::flags, ignore_memory_limit, bool, ignore_memory_limit, false, ccb::any_value(),
           "load even if the tables' estimated size exceeds the memory available (for machines that overcommit on "
           "purpose)");
CCB_OPTION_GROUP(ccb::EngineConfig::flags, tsdefer, ccb::TsDeferOptions::flags);
CCB_OPTION(ccb::EngineConfig::flags, attempt_latency_type, string, attempt_latency_type, "", ccb::any_value(),
           "record the latency of each attempt of this transaction type (e.g. NewOrder) by outcome: committed, "
           "saved (by BCC), aborted (\"\" = off); checked against the workload's types by the executor");
CCB_OPTION(ccb::EngineConfig::flags, retry_aborted, bool, retry_aborted, true, ccb::any_value(),
           "retry an aborted request until it commits; false: count the abort and move on to the next request "
           "(Silo's benchmark default, --retry-aborted-transactions off)");

namespace ccb {

const std::vector<std::string>& EngineConfig::abort_policies() {
  static const std::vector<std::string> names = {"backoff", "buffer"};
  return names;
}

const std::vector<std::string>& available_frontends() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const generated::FrontendName& f : generated::kFrontendNames) v.push_back(f.name);
    return v;
  }();
  return names;
}

static std::string gib(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  return buf;
}

void require_memory_fits(size_t needed_bytes, const char* size_flag, size_t available_bytes, bool ignore_limit) {
  if (ignore_limit || available_bytes == 0 || needed_bytes <= available_bytes) return;
  throw ConfigError(size_flag, "the tables and indexes need about " + gib(needed_bytes) + " (estimate), more than the " +
                                   gib(available_bytes) +
                                   " of memory available; allowed: a smaller size, or --ignore_memory_limit to load "
                                   "anyway");
}

static std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : "|") + x;
  return s;
}

EngineConfig EngineConfig::from_flags(const char* cc_name, const std::vector<std::string>& wl) {
  EngineConfig c;
  c.cc = cc_name;
  // A program of one workload (bin/middletier: smallbank) runs it without --workload.
  if (wl.size() == 1 && !flag_given("workload")) FLAGS_workload = wl.front();
  require(std::find(wl.begin(), wl.end(), FLAGS_workload) != wl.end(), "workload", join(wl));
  flags.read(c);
  require(c.history_out.empty() || c.verify, "history_out", "a path, only together with --verify");
  require(c.profile == kProfileBuild, "profile",
          kProfileBuild ? "true in the profile build (build/profile/bin/rundb-" + c.cc + " always profiles; bin/rundb-" +
                              c.cc + " runs unprofiled)"
                        : "false in this build; the profile build has it: make CC=" + c.cc +
                              " VARIANT=profile, then build/profile/bin/rundb-" + c.cc + " --profile");
  // (With --frontend=reorder the front-end refuses it: rundb/frontends.cpp.)
  if (c.abort_policy == "buffer")
    require(c.retry_aborted, "abort_policy", "backoff with --retry_aborted=false (buffer retries parked requests)");
  if (c.load_threads == 0) c.load_threads = c.threads;
  return c;
}

void EngineConfig::to_json(JsonWriter& w) const {
  w.key("cc").value(cc);
  flags.write(*this, w);
}

bool parse_command_line(int argc, char** argv, const char* cc_name, const char* program_file) {
  const std::string argv0 = argc > 0 ? argv[0] : "rundb";
  std::vector<std::string> sources = {"engine/", "workloads/"};
  if (*program_file != '\0') sources.push_back(program_file);
  return parse_command_line(argc, argv,
                            ProgramHelp{argv0 + ": the " + cc_name + " protocol on the testbed's workloads.\n\nusage: " +
                                            argv0 + " --workload=ycsb [flags]",
                                        sources,
                                        "exit codes: 0 ok, 2 bad flags or configuration, 3 a correctness check failed"});
}

int program_main(int argc, char** argv, const char* program, const std::vector<std::string>& workloads,
                 const std::function<int(const EngineConfig&)>& body, std::source_location caller) {
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
  return with_exit_codes([&] {
    if (!parse_command_line(argc, argv, program, caller.file_name())) return 0;
    return body(EngineConfig::from_flags(program, workloads));
  });
}

void reject_flags(std::initializer_list<const char*> flags, const std::string& why) {
  for (const char* name : flags) {
    gflags::CommandLineFlagInfo info;
    if (gflags::GetCommandLineFlagInfo(name, &info) && !info.is_default) throw ConfigError(name, why);
  }
}

}  // namespace ccb
