// The sim build's flags (engine/core/sim.h, docs/sim.md): one table,
// "sim_flags", defined only in the sim build (CCB_SIM=ON compiles this file),
// so a native binary refuses every --sim_* flag as unknown.
#include "engine/core/options.h"
#include "engine/core/sim.h"

namespace ccb::sim {
namespace {
OptionsTable<SimOptions> sim_flags{"sim_flags"};
}  // namespace
}  // namespace ccb::sim

CCB_OPTION(ccb::sim::sim_flags, cost_table, string, sim_cost_table, "", ccb::any_value(),
           "the cost table (ns per operation, JSON) the simulation charges; written by --sim_calibrate "
           "(\"\" = the built-in defaults; the result's sim.cost_table records the one used)");
CCB_OPTION(ccb::sim::sim_flags, physical_cores, uint32, sim_physical_cores, 16, ccb::range(1, 1024, "an integer"),
           "physical cores of the modelled machine; virtual cores beyond them share a physical core (SMT) and run "
           "--sim_smt_factor slower");
CCB_OPTION(ccb::sim::sim_flags, smt_factor, double, sim_smt_factor, 1.6, ccb::range(1, 16, "a factor"),
           "slowdown of the local work of a virtual core that shares its physical core with another");
CCB_OPTION(ccb::sim::sim_flags, line_transfer_ns, double, sim_line_transfer_ns, 0,
           ccb::range(0, 1e6, "nanoseconds", " (0 = the cost table's line_transfer)"),
           "cost of touching a cache line last written by another virtual core");
CCB_OPTION(ccb::sim::sim_flags, watchdog_events, uint64, sim_watchdog_events, 1000000,
           ccb::range(1, 1e15, "an integer"),
           "events in a row that are spins (no virtual core makes progress) before the watchdog names the spin "
           "site and exits 1");
CCB_OPTION(ccb::sim::sim_flags, calibrate, string, sim_calibrate, "", ccb::writable_path().not_echoed(),
           "measure the cost table on this machine (native, single thread), write it to this JSON file and exit "
           "(no run)");

namespace ccb::sim {

SimOptions SimOptions::from_flags() { return sim_flags.read(); }

void write_flags_json(JsonWriter& w) {
  w.key("flags").begin_object();
  sim_flags.write(options(), w);
  w.end_object();
}

}  // namespace ccb::sim
