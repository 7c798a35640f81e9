// The sim build's flags (engine/sim/sim.h, docs/sim.md): one table,
// "sim_flags", defined only in the sim build (CCB_SIM=ON compiles this file),
// so a native binary refuses every --sim_* flag as unknown.
#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/core/cli.h"
#include "engine/core/options.h"
#include "engine/sim/sim.h"

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
CCB_OPTION(ccb::sim::sim_flags, atomic_rmw_ns, double, sim_atomic_rmw_ns, 0,
           ccb::range(0, 1e6, "nanoseconds", " (0 = the cost table's atomic_rmw)"),
           "the modelled machine's cost of one atomic read-modify-write on a line its core owns");
CCB_OPTION(ccb::sim::sim_flags, atomic_load_ns, double, sim_atomic_load_ns, 0,
           ccb::range(0, 1e6, "nanoseconds", " (0 = the cost table's atomic_load)"),
           "the modelled machine's cost of one load of shared protocol metadata");
CCB_OPTION(ccb::sim::sim_flags, spin_round_ns, double, sim_spin_round_ns, 0,
           ccb::range(0, 1e6, "nanoseconds", " (0 = the cost table's spin_round)"),
           "the modelled machine's cost of one round of a spin or wait loop (a pause)");
CCB_OPTION(ccb::sim::sim_flags, wake_up_ns, double, sim_wake_up_ns, 0,
           ccb::range(0, 1e9, "nanoseconds", " (0 = the cost table's wake_up)"),
           "the modelled machine's futex hand-off: a thread asleep in the kernel running again after another woke it");
CCB_OPTION(ccb::sim::sim_flags, machine, string, sim_machine, "", ccb::any_value(),
           "the modelled machine's name, a label the result's sim.model and the last log line repeat (the harness "
           "passes configs/machines/<name>.yaml's values as the other --sim_* flags; \"\" = none)");
CCB_OPTION(ccb::sim::sim_flags, sockets, uint32, sim_sockets, 1, ccb::range(1, 64, "an integer"),
           "sockets of the modelled machine: its --sim_physical_cores split evenly among them, in order (a line "
           "coming from a core on another socket costs --sim_socket_transfer_ns)");
CCB_OPTION(ccb::sim::sim_flags, socket_transfer_ns, double, sim_socket_transfer_ns, 0,
           ccb::range(0, 1e6, "nanoseconds", " (0 = twice the effective line transfer)"),
           "cost of touching a cache line last written (or, for a write, held) by a virtual core on another socket");
CCB_OPTION(ccb::sim::sim_flags, line_residency_ns, double, sim_line_residency_ns, 1e6,
           ccb::range(0, 1e12, "nanoseconds", " (0 = a line never leaves a core's cache)"),
           "virtual time after which a line nobody touched has left every core's private cache: touching it "
           "then costs no transfer (a cold access, priced by the cost table's local work)");
CCB_OPTION(ccb::sim::sim_flags, watchdog_events, uint64, sim_watchdog_events, 1000000,
           ccb::range(1, 1e15, "an integer"),
           "events in a row that are spins (no virtual core makes progress) before the watchdog names the spin "
           "site and exits 1");
CCB_OPTION(ccb::sim::sim_flags, watchdog_stall_s, double, sim_watchdog_stall_s, 0.1,
           ccb::range(0, 1e4, "virtual seconds", " (0 = off)"),
           "virtual time after the last commit (or wake-up of a parked fiber) in which no virtual core committed "
           "before the stall watchdog names where each core last spun and exits 4 (a livelock)");
CCB_OPTION(ccb::sim::sim_flags, work_scale, string, sim_work_scale, "", ccb::any_value(),
           "factor on the cost table's local work (txn_begin .. abort) per transaction type, fitted by the harness "
           "so that one virtual core matches a native single-thread run (docs/sim.md, \"The work scale\"): \"\" "
           "(none), one factor for every type, or <type>:<factor>,...; the type \"analysis\" is a bundle executor's "
           "analysis (its per-key charge)");
CCB_OPTION(ccb::sim::sim_flags, work_scale_source, string, sim_work_scale_source, "", ccb::any_value(),
           "where --sim_work_scale came from, a label the result's sim.model repeats (the harness: its fit store; "
           "\"\" = the flag itself, or none)");
CCB_OPTION(ccb::sim::sim_flags, calibrate, string, sim_calibrate, "", ccb::writable_path().not_echoed(),
           "measure the cost table on this machine (native, single thread), write it to this JSON file and exit "
           "(no run)");

namespace ccb::sim {

SimOptions SimOptions::from_flags() {
  SimOptions o = sim_flags.read();
  require(o.sockets <= o.physical_cores && o.physical_cores % o.sockets == 0, "sim_sockets",
          "a divisor of --sim_physical_cores (" + std::to_string(o.physical_cores) +
              "): the physical cores are split evenly among the sockets (got " + std::to_string(o.sockets) + ")");
  return o;
}

std::vector<double> parse_work_scale(const std::string& spec, const std::vector<std::string>& types) {
  std::string allowed_types;
  for (const std::string& t : types) allowed_types += (allowed_types.empty() ? "" : "|") + t;
  const std::string allowed = "\"\", a positive factor, or <type>:<factor>,... with <type> one of " + allowed_types;
  auto factor = [&](const std::string& text) {
    size_t used = 0;
    double x = 0;
    try {
      x = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    require(used == text.size() && used > 0 && x > 0 && x < 1e6, "sim_work_scale",
            allowed + " (got '" + text + "')");
    return x;
  };
  if (spec.empty()) return {};
  if (spec.find(':') == std::string::npos) return std::vector<double>(types.size(), factor(spec));
  std::vector<double> scales(types.size(), 1.0);
  std::vector<bool> named(types.size(), false);
  std::stringstream items(spec);
  for (std::string item; std::getline(items, item, ',');) {
    const size_t colon = item.find(':');
    require(colon != std::string::npos, "sim_work_scale", allowed + " (got '" + item + "')");
    const std::string name = item.substr(0, colon);
    const auto it = std::find(types.begin(), types.end(), name);
    require(it != types.end(), "sim_work_scale", allowed + " (unknown type '" + name + "')");
    const size_t t = static_cast<size_t>(it - types.begin());
    require(!named[t], "sim_work_scale", allowed + " (type '" + name + "' named twice)");
    named[t] = true;
    scales[t] = factor(item.substr(colon + 1));
  }
  return scales;
}

void write_flags_json(JsonWriter& w) {
  w.key("flags").begin_object();
  sim_flags.write(options(), w);
  w.end_object();
}

}  // namespace ccb::sim
