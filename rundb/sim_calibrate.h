// The sim build's calibration command (rundb/sim_calibrate.cpp):
// bin/sim/rundb-<cc> --sim_calibrate=<file.json> writes the cost table that
// --sim_cost_table=<file.json> then reads (docs/sim.md).
#pragma once

#include <string>

#include "engine/sim/sim.h"

namespace ccb {

// Measures the cost table on this machine (native, one thread).
sim::CostTable calibrate_cost_table();
// Measures it and writes it to `path` as JSON; the exit code (0 ok, 1 the
// file could not be written).
int write_calibrated_cost_table(const std::string& path);

}  // namespace ccb
