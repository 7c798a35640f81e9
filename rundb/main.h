// rundb_main<CC>: flags -> config -> the chosen workload's runner.
// Each bin/rundb-<cc> has a generated main() (rundb/CMakeLists.txt) that
// passes its protocol and one runner per workload, each compiled in its own
// translation unit: run_online<CC, kProfileBuild>(cfg, workload) (rundb/run.h;
// the profile build's binaries are profiled, the release ones hold no
// profiled code).
//
// Exit codes (interface contract): 0 ok; 2 bad flags or configuration (one
// line on stderr naming the flag, nothing written); 3 a correctness check
// failed; 4 the measured interval committed nothing (nothing written;
// rundb/run.h); 1 any other error.
//
// The sim build (engine/sim/sim.h) reads its --sim_* flags here, before the
// run: the cost table and the model for every simulation that follows, or,
// with --sim_calibrate, the calibration command instead of a run; after the
// run, its last log line names the model (sim::model_summary).
#pragma once

#include <cstdio>
#include <exception>
#include <span>
#include <string>
#include <vector>

#include "engine/txn/protocol.h"
#include "engine/config.h"
#include "engine/sim/sim.h"
#if CCB_SIM_BUILD
#include <glog/logging.h>

#include "rundb/sim_calibrate.h"
#endif

namespace ccb {

struct WorkloadEntry {
  const char* name;
  int (*run)(const EngineConfig&);
};

template <class CC>
  requires Protocol<CC>
int rundb_main(int argc, char** argv, std::span<const WorkloadEntry> workloads) {
#if CCB_SIM_BUILD
  sim::fix_address_layout(argv);  // a simulated run is a function of its flags and seed alone
#endif
  // The protocol's own flags: this binary defines them, no other program does.
  if constexpr (HasProtocolOptions<CC>) CC::Options::flags.define_flags();
  std::vector<std::string> names;
  for (const auto& w : workloads) names.push_back(w.name);
  return program_main(argc, argv, CC::kName, names, [&](const EngineConfig& cfg) {
#if CCB_SIM_BUILD
    const sim::SimOptions sim_options = sim::SimOptions::from_flags();
    sim::configure(sim_options, sim_options.cost_table.empty()
                                    ? sim::CostTable::builtin()
                                    : sim::CostTable::read_file(sim_options.cost_table, "sim_cost_table"));
    if (!sim_options.calibrate.empty()) return cfg.validate_only ? 0 : write_calibrated_cost_table(sim_options.calibrate);
#endif
    for (const auto& w : workloads) {
      if (cfg.workload != w.name) continue;
      const int code = w.run(cfg);
#if CCB_SIM_BUILD
      // The last log line says which model produced the numbers (issue 46:
      // a run by hand silently used the built-in table).
      if (!cfg.validate_only) LOG(INFO) << sim::model_summary();
#endif
      return code;
    }
    return 1;  // unreachable: from_flags accepted only a registered name
  });
}

}  // namespace ccb
