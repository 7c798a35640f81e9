// The many-core simulation (docs/sim.md): the simulator's configuration
// (the cost table, the modelled machine's options), its results (the time
// breakdown by virtual core) and the calls a program makes around a
// simulated run (configure, write_json, fix_address_layout,
// set_work_scales). The sim build (make build VARIANT=sim: CMake CCB_SIM=ON,
// binaries bin/sim/rundb-<cc>) compiles the simulator (sim.cpp: fibers on
// virtual cores, the scheduler, the cost model; options.cpp: its flags); the
// hooks the engine's primitives call are engine/core/sim_hooks.h, and the
// fibers' blocking waits engine/core/sim_sync.h.
//
// Thread safety: a simulation runs on one OS thread; configure() before it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/sim_hooks.h"

namespace ccb {

class JsonWriter;

namespace sim {

// ns per operation.
struct CostTable {
  double ns[kOpCount];
  std::string source = "builtin";  // the file it was read from, or "builtin"
  std::string sha256;              // the file's SHA-256 (hex; the harness's cost_table_sha256); "" for builtin

  double operator[](Op op) const { return ns[static_cast<size_t>(op)]; }
  // The defaults of a 2020s server core (docs/sim.md has where they come from).
  static CostTable builtin();
  // Reads a flat JSON object {"<op>": ns, ...} naming every op (ConfigError
  // naming `flag` otherwise).
  static CostTable read_file(const std::string& path, const char* flag);
  void to_json(JsonWriter& w) const;  // {"<op>": ns, ...}
};

// The simulation's parameters: the sim build's flags (engine/sim/options.cpp).
struct SimOptions {
  std::string cost_table;        // "" = CostTable::builtin()
  uint32_t physical_cores = 16;  // the modelled machine (m5.8xlarge: 16 cores, 32 hardware threads)
  double smt_factor = 1.6;       // slowdown of a virtual core that shares a physical core
  // The modelled machine's between-core costs (docs/sim.md, "The modelled
  // machine"): each replaces its cost-table op when > 0 (kMachineCosts).
  double line_transfer_ns = 0;   // 0 = the cost table's line_transfer
  double atomic_rmw_ns = 0;      // 0 = the cost table's atomic_rmw
  double atomic_load_ns = 0;     // 0 = the cost table's atomic_load
  double spin_round_ns = 0;      // 0 = the cost table's spin_round
  double wake_up_ns = 0;         // 0 = the cost table's wake_up
  std::string machine;           // the modelled machine's name (configs/machines/<name>.yaml); a label, "" = none
  uint32_t sockets = 1;          // the physical cores split evenly into this many sockets
  double socket_transfer_ns = 0;  // a transfer from a core on another socket; 0 = twice the line transfer
  double line_residency_ns = 1e6;  // a line untouched this long costs no transfer (0 = it never leaves a cache)
  uint64_t watchdog_events = 1000000;
  double watchdog_stall_s = 0.1;  // virtual seconds without a commit before the stall watchdog fires (0 = off)
  // --sim_work_scale: "" (none), one factor for every transaction type, or
  // "<type>:<factor>,..." (docs/sim.md, "The work scale").
  std::string work_scale;
  std::string work_scale_source;  // where work_scale came from (the harness's fit store); a label
  std::string calibrate;  // non-empty: measure the cost table on this machine, write it here, exit

  static SimOptions from_flags();  // the sim build only
};

// The between-core ops that the modelled machine's flags replace, each with
// its flag (--sim_<op>_ns; 0 keeps the cost table's): the rest of the cost
// table (txn_begin .. abort, the local work) is the calibrating machine's.
struct MachineCost {
  Op op;
  double SimOptions::*ns;
  const char* flag;
};
inline constexpr MachineCost kMachineCosts[] = {
    {Op::kAtomicRmw, &SimOptions::atomic_rmw_ns, "sim_atomic_rmw_ns"},
    {Op::kAtomicLoad, &SimOptions::atomic_load_ns, "sim_atomic_load_ns"},
    {Op::kSpinRound, &SimOptions::spin_round_ns, "sim_spin_round_ns"},
    {Op::kLineTransfer, &SimOptions::line_transfer_ns, "sim_line_transfer_ns"},
    {Op::kWakeUp, &SimOptions::wake_up_ns, "sim_wake_up_ns"},
};

// --sim_work_scale's factor for each of `types` (a workload's transaction
// types, Request::type's order): 1 where the spec names none. ConfigError
// naming sim_work_scale for a malformed spec, an unknown type or a factor
// that is not a positive number.
std::vector<double> parse_work_scale(const std::string& spec, const std::vector<std::string>& types);

// Where a virtual core's virtual time goes (the result's
// sim.time_breakdown; docs/sim.md, "Where the time goes"). Every advance of a
// core's clock is of exactly one kind, so a core's kinds add up to its span.
enum class TimeKind : uint8_t {
  kLocalWork,     // charge(): the cost table's local work (the rest of the span)
  kSharedAccess,  // touch(): the atomic_load of a read or write of a shared line
  kRmw,           // rmw(): the atomic_rmw itself
  kRmwQueued,     // rmw(): waiting for the line's previous RMW to end (busy_until)
  kLineTransfer,  // touch() and rmw(): a line moving from another core
  kSpin,          // spin(): spin rounds
  kSleep,         // sleep_until_ns(): the backoff after an abort, an executor's idle waits
  kDelay,         // delay_until_ns(): a workload's modelled work (runtime skew's lower bound, I/O latency)
  kParked,        // park() until unpark(), the wake-up included
  kIdle,          // a core that ended before the window did: the rest of the window
  kCount
};
inline constexpr size_t kTimeKindCount = static_cast<size_t>(TimeKind::kCount);
inline constexpr const char* kTimeKindNames[kTimeKindCount] = {
    "local_work", "shared_access", "rmw", "rmw_queued", "line_transfer", "spin", "sleep", "delay", "parked", "idle"};

// One virtual core in the last simulation's window (RunStats::cores).
struct CoreTime {
  uint64_t ps[kTimeKindCount] = {};  // by TimeKind; they add up to the core's span plus its idle time
  uint64_t spin_rounds = 0;          // in the window
  uint64_t aborts = 0;               // charge(Op::kAbort)s in the window: aborted attempts
  const char* site_file = nullptr;   // where it last spun or parked (in the whole run); nullptr: never
  int site_line = 0;
  double site_seconds = 0;           // its virtual time then
};

// What the last simulation did (the result's "sim" object).
struct RunStats {
  uint32_t virtual_cores = 0;
  double virtual_seconds = 0;  // the largest virtual time a fiber reached
  uint64_t events = 0;         // hook calls inside fibers
  uint64_t fiber_switches = 0;
  double wall_seconds = 0;
  bool measured_window = false;  // the breakdown's window: the measured interval (true) or the whole run
  double window_seconds = 0;     // its length in virtual time
  std::vector<CoreTime> cores;   // by core id
};

#if CCB_SIM_BUILD
// Sets the model for the simulations that follow (checks nothing itself).
void configure(const SimOptions& options, const CostTable& costs);
const SimOptions& options();
const CostTable& costs();
double line_transfer_ns();  // the effective one
double socket_transfer_ns();  // the effective one
const RunStats& last_run();
// The result's "sim" object, after a run; its "flags" member echoes the
// sim_flags table (engine/sim/options.cpp, write_flags_json).
void write_json(JsonWriter& w);
void write_flags_json(JsonWriter& w);
// Which model produced the run's numbers, in one line (the run's last log
// line, and the result's sim.model.summary): the cost table's source and
// digest (saying plainly when it is the built-in one), the machine and the
// ops it set, the work scale and its source.
std::string model_summary();

// Runs this program again (execv of /proc/self/exe with the same argv) with
// the address space's randomization off (personality ADDR_NO_RANDOMIZE),
// unless it is off already; returns only if it is off, or if the kernel
// refuses (a seccomp profile may: the run then goes on randomized, and the
// result's sim.address_randomization says so). Rows keep their relative
// addresses under randomization, but BCC's read-set tables hash a row's
// absolute address (engine/cc/bcc/read_set.h), so without this a BCC run's
// schedule followed the layout ASLR drew (docs/sim.md, "Determinism").
// Call first thing in main, before any other thread starts.
void fix_address_layout(char** argv);
// The work scale of the runs that follow, by transaction type (empty: 1 for
// every type), and the types' names for the result's "sim" object.
void set_work_scales(std::vector<double> by_type, std::vector<std::string> names);
#endif

}  // namespace sim
}  // namespace ccb
