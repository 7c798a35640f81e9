// One post-run consistency condition of a workload (TPC-C's consistency
// conditions, SmallBank's money conservation, ...) and whether it held.
// Workloads return them from check_invariants (engine/workload.h); the result
// document writes them (engine/stats/result.h).
#pragma once

#include <string>

namespace ccb {

struct InvariantResult {
  std::string name;
  bool ok = false;
  std::string detail;  // the numbers compared, always filled
};

}  // namespace ccb
