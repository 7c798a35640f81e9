// rundb_main<CC>: flags -> config -> the chosen workload's runner.
// Each bin/rundb-<cc> has a generated main() (rundb/CMakeLists.txt) that
// passes its protocol and one runner per workload, each compiled in its own
// translation unit: run_online<CC, kProfileBuild>(cfg, workload) (rundb/run.h;
// the profile build's binaries are profiled, the release ones hold no
// profiled code).
//
// Exit codes (interface contract): 0 ok; 2 bad flags or configuration (one
// line on stderr naming the flag, nothing written); 3 a correctness check
// failed; 1 any other error.
#pragma once

#include <cstdio>
#include <exception>
#include <span>
#include <string>
#include <vector>

#include "engine/cc/protocol.h"
#include "engine/config.h"

namespace ccb {

struct WorkloadEntry {
  const char* name;
  int (*run)(const EngineConfig&);
};

template <class CC>
  requires Protocol<CC>
int rundb_main(int argc, char** argv, std::span<const WorkloadEntry> workloads) {
  // The protocol's own flags: this binary defines them, no other program does.
  if constexpr (HasProtocolOptions<CC>) CC::Options::flags.define_flags();
  std::vector<std::string> names;
  for (const auto& w : workloads) names.push_back(w.name);
  return program_main(argc, argv, CC::kName, names, [&](const EngineConfig& cfg) {
    for (const auto& w : workloads)
      if (cfg.workload == w.name) return w.run(cfg);
    return 1;  // unreachable: from_flags accepted only a registered name
  });
}

}  // namespace ccb
