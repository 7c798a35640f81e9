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

// CCB_WORKLOAD_NAMES: the registered workloads (workloads/workloads.txt), set
// by engine/CMakeLists.txt.
DEFINE_string(workload, "ycsb", "workload to run: " CCB_WORKLOAD_NAMES);
DEFINE_int32(threads, 1, "number of worker threads (1..1024)");
DEFINE_double(duration, 5.0, "measured interval in seconds (> 0); ignored when --measure_txns > 0");
DEFINE_double(warmup, 1.0, "warm-up before the measured interval, in seconds (>= 0)");
DEFINE_uint64(measure_txns, 0, "if > 0, measure until this many transactions committed (split evenly over workers) instead of --duration");
DEFINE_uint64(seed, 1, "random seed; worker i uses a stream derived from (seed, i)");
DEFINE_string(out, "", "path of the JSON result (written atomically); stdout if empty");
DEFINE_bool(verify, false, "record the history of committed transactions and check it for serializability");
DEFINE_string(history_out, "", "with --verify: also write the recorded history to this file (for bin/check_history)");
DEFINE_string(frontend, "none", "front-end: none (online executor), tsdefer (TSKD[CC]: TsDEFER on the online executor's worker buffers, --tsdefer_* flags), reorder (Ding et al. thread-aware batching and reordering on the online executor: batches of 4 x threads, 4 per thread) or a bundle-executor front-end (--batch_size): strife (--strife_k, --strife_alpha; CF clusters on a shared worklist, the Strife paper's), strife-static (Strife's partition as k static per-thread partitions, the TSKD paper's STRIFE baseline; --strife_k, --strife_alpha), schism (METIS on the bundle's co-access graph, one partition per thread, TSKD's residual), horticulture (static partitioning by TPC-C warehouse / YCSB key, one partition per thread, TSKD's residual), or the TSKD instances (partitioners/tspar): tskd-s|c|h (TsPAR + TsDEFER on the Strife, Schism or Horticulture partition), tskd-o (no input partition), tspar-s|c|h (TsDEFER off), tsdefer-s|c|h (the partition's queues with TsDEFER only)");
DEFINE_bool(pin, false, "pin worker i to one CPU, one per physical core first, then SMT siblings");
DEFINE_bool(timeline, false, "add a per-second throughput timeline to the result");
DEFINE_bool(memory_bound, false, "before loading, measure this machine's memory latency over a buffer as large as the tables (pointer chase, about 2 s) and report it as memory_bound");
DEFINE_bool(prefetch, true, "prefetch the index buckets and rows of the accesses a procedure declares before it makes them (YCSB, TPC-C NewOrder/Payment, SmallBank); false: every miss waits in turn");
DEFINE_bool(profile, ccb::kProfileBuild,
            "add the execution profile (time shares of abort, lock, execute, index, validation, analysis; "
            "strife-fig07) to the result; costs clock reads around each index and protocol call. Only the "
            "profile build has it (make CC=<cc> VARIANT=profile: build/profile/bin/rundb-<cc>), where it is always on");
DEFINE_uint32(txn_buffer, 4096, "requests pre-generated per worker and replayed in a cycle (1..1000000)");
DEFINE_uint32(backoff_max_us, 100, "cap in microseconds of the randomized exponential backoff after an abort (0 = retry at once; <= 1000000)");
DEFINE_int32(load_threads, 0, "threads used to load tables (0 = --threads)");
DEFINE_bool(ignore_memory_limit, false,
            "load even if the tables' estimated size exceeds the memory available (for machines that overcommit on purpose)");
DEFINE_string(attempt_latency_type, "", "record the latency of each attempt of this transaction type (e.g. NewOrder) by outcome: committed, saved (by BCC), aborted (\"\" = off)");
DEFINE_bool(retry_aborted, true, "retry an aborted request until it commits; false: count the abort and move on to the next request (Silo's benchmark default, --retry-aborted-transactions off)");
DEFINE_uint32(mocc_temperature_threshold, ccb::EngineConfig::kMoccDefaultThreshold,
              "mocc only: a row is hot (reads lock it) from this temperature on: validation failures on it, halved every --mocc_decay_ms (0..65535; 0 = every row hot)");
DEFINE_uint32(mocc_decay_ms, ccb::EngineConfig::kMoccDefaultDecayMs,
              "mocc only: period in ms after which a row's temperature halves (40..3600000)");
DEFINE_bool(bcc_breakdown, false, "bcc only: time BCC's history memory management and global-clock accesses per transaction (bcc-tab1; costs a clock read around each)");

namespace ccb {

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
  require(std::find(wl.begin(), wl.end(), FLAGS_workload) != wl.end(), "workload", join(wl));
  c.workload = FLAGS_workload;
  c.threads = in_range(FLAGS_threads, 1, 1024, "threads", "an integer");
  require(std::isfinite(FLAGS_duration) && FLAGS_duration > 0 && FLAGS_duration <= 86400, "duration",
          "seconds in (0, 86400]");
  c.duration_s = FLAGS_duration;
  c.warmup_s = in_range(FLAGS_warmup, 0.0, 86400.0, "warmup", "seconds");
  c.measure_txns = FLAGS_measure_txns;
  c.seed = FLAGS_seed;
  require_writable_path(FLAGS_out, "out");
  c.out = FLAGS_out;
  c.verify = FLAGS_verify;
  require(FLAGS_history_out.empty() || FLAGS_verify, "history_out", "a path, only together with --verify");
  require_writable_path(FLAGS_history_out, "history_out");
  c.history_out = FLAGS_history_out;
  const auto& fe = available_frontends();
  require(std::find(fe.begin(), fe.end(), FLAGS_frontend) != fe.end(), "frontend", join(fe));
  c.frontend = FLAGS_frontend;
  c.pin = FLAGS_pin;
  c.timeline = FLAGS_timeline;
  c.memory_bound = FLAGS_memory_bound;
  c.prefetch = FLAGS_prefetch;
  require(FLAGS_profile == kProfileBuild, "profile",
          kProfileBuild ? "true in the profile build (build/profile/bin/rundb-" + c.cc + " always profiles; bin/rundb-" +
                              c.cc + " runs unprofiled)"
                        : "false in this build; the profile build has it: make CC=" + c.cc +
                              " VARIANT=profile, then build/profile/bin/rundb-" + c.cc + " --profile");
  c.profile = FLAGS_profile;
  c.txn_buffer = in_range(FLAGS_txn_buffer, 1, 1000000, "txn_buffer", "an integer");
  c.backoff_max_us = in_range(FLAGS_backoff_max_us, 0, 1000000, "backoff_max_us", "microseconds");
  in_range(FLAGS_load_threads, 0, 1024, "load_threads", "an integer", " (0 = --threads)");
  c.load_threads = FLAGS_load_threads == 0 ? c.threads : FLAGS_load_threads;
  c.ignore_memory_limit = FLAGS_ignore_memory_limit;
  c.tsdefer = TsDeferOptions::from_flags();
  c.attempt_latency_type = FLAGS_attempt_latency_type;  // checked against the workload's types by the executor
  require(!FLAGS_bcc_breakdown || c.cc == "bcc", "bcc_breakdown", "true only with bin/rundb-bcc (this is " + c.cc + ")");
  c.bcc_breakdown = FLAGS_bcc_breakdown;
  c.retry_aborted = FLAGS_retry_aborted;
  const bool mocc = c.cc == "mocc";
  require(mocc || gflags::GetCommandLineFlagInfoOrDie("mocc_temperature_threshold").is_default,
          "mocc_temperature_threshold", "only with bin/rundb-mocc (this is " + c.cc + ")");
  require(mocc || gflags::GetCommandLineFlagInfoOrDie("mocc_decay_ms").is_default, "mocc_decay_ms",
          "only with bin/rundb-mocc (this is " + c.cc + ")");
  c.mocc_temperature_threshold = in_range(FLAGS_mocc_temperature_threshold, 0, 65535, "mocc_temperature_threshold", "an integer");
  c.mocc_decay_ms = in_range(FLAGS_mocc_decay_ms, 40, 3600000, "mocc_decay_ms", "milliseconds");
  return c;
}

void EngineConfig::to_json(JsonWriter& w) const {
  w.key("cc").value(cc);
  w.key("workload").value(workload);
  w.key("threads").value(threads);
  w.key("duration").value(duration_s);
  w.key("warmup").value(warmup_s);
  w.key("measure_txns").value(measure_txns);
  w.key("seed").value(seed);
  w.key("verify").value(verify);
  w.key("history_out").value(history_out);
  w.key("frontend").value(frontend);
  w.key("pin").value(pin);
  w.key("timeline").value(timeline);
  w.key("memory_bound").value(memory_bound);
  w.key("prefetch").value(prefetch);
  w.key("profile").value(profile);
  w.key("txn_buffer").value(txn_buffer);
  w.key("backoff_max_us").value(backoff_max_us);
  w.key("load_threads").value(load_threads);
  w.key("ignore_memory_limit").value(ignore_memory_limit);
  tsdefer.to_json(w);
  w.key("attempt_latency_type").value(attempt_latency_type);
  w.key("bcc_breakdown").value(bcc_breakdown);
  w.key("retry_aborted").value(retry_aborted);
  w.key("mocc_temperature_threshold").value(mocc_temperature_threshold);
  w.key("mocc_decay_ms").value(mocc_decay_ms);
}

bool parse_command_line(int argc, char** argv, const char* cc_name, const std::vector<std::string>& program_sources) {
  const std::string argv0 = argc > 0 ? argv[0] : "rundb";
  std::vector<std::string> sources{"engine/", "workloads/"};
  sources.insert(sources.end(), program_sources.begin(), program_sources.end());
  return parse_command_line(argc, argv,
                            ProgramHelp{argv0 + ": the " + cc_name + " protocol on the testbed's workloads.\n\nusage: " +
                                            argv0 + " --workload=ycsb [flags]",
                                        sources,
                                        "exit codes: 0 ok, 2 bad flags or configuration, 3 a correctness check failed"});
}

int program_main(int argc, char** argv, const char* program, const std::vector<std::string>& workloads,
                 const std::vector<std::string>& program_sources, const std::function<int(const EngineConfig&)>& body) {
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
  return with_exit_codes([&] {
    if (!parse_command_line(argc, argv, program, program_sources)) return 0;
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
