// The many-core simulation's hooks (docs/sim.md, "The hooks"): what the
// engine's shared primitives call where a virtual core does work that costs
// time or touches state other cores share. The simulator behind them (the
// scheduler, the cost model, its flags) is engine/sim/; this header is the
// seam the primitives of engine/core/ are built on (shared.h, latch.h,
// spin.h, clock.h, message_queue.h, local_work.h, thread_group.h,
// sim_sync.h), so that protocol code names none of it.
//
// The sim build (make build VARIANT=sim: CMake CCB_SIM=ON, CCB_SIM_BUILD=1,
// binaries bin/sim/rundb-<cc>) runs every thread of a run as a fiber
// (Boost.Context) on one OS thread: a virtual core with its own virtual clock.
// A scheduler always resumes the fiber with the smallest virtual time, ties by
// core id, so the interleaving is a function of the configuration, the seed
// and the cost table alone. The engine calls the hooks below where a virtual
// core does work that costs time or touches state other cores share; each
// hook charges the cost model and may hand the OS thread to another fiber.
//
// In the native build (CCB_SIM_BUILD = 0) every hook is an empty inline
// function and every `if constexpr (kSimBuild)` branch is discarded, so the
// native build compiles to the code it had before this header existed (shown
// with callgrind, docs/sim.md).
//
// Cost model (engine/sim/sim.cpp):
//   - local work: charge(Op) adds the cost table's ns for the operation
//     (calibrated on a machine by --sim_calibrate, or the built-in defaults),
//     times --sim_smt_factor on a virtual core that shares its physical core
//     (more virtual cores than --sim_physical_cores);
//   - shared lines: a per-cache-line owner map (the last writer and the
//     readers since); touching a line another core wrote last costs
//     --sim_line_transfer_ns, or --sim_socket_transfer_ns when a core it
//     comes from is on another of the --sim_sockets sockets; read-modify-writes
//     of one line serialize in virtual time (a line is busy until the previous
//     RMW on it ends);
//   - spins: spin() charges one spin round; a watchdog exits non-zero naming
//     the spin site when --sim_watchdog_events events in a row were spins
//     (no fiber makes progress: a deadlock or a wait nobody will end), and
//     another one when no virtual core committed (committed()) for
//     --sim_watchdog_stall_s of virtual time (a livelock of aborts and
//     spins), naming where each core last spun.
//   - where the time goes: every virtual core's clock is split into local
//     work, shared accesses, RMWs, the wait behind the line's previous RMW,
//     line transfers, spin rounds, sleeps, parked time and idle time (TimeKind),
//     over the measured interval (measured_interval()) or the whole run: the
//     result's sim.time_breakdown.
//
// Thread safety: a simulation runs on one OS thread; the hooks may be called
// from any thread outside a simulation, where they do nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#ifndef CCB_SIM_BUILD
#define CCB_SIM_BUILD 0
#endif

namespace ccb {

// Whether this build is the simulation variant.
inline constexpr bool kSimBuild = CCB_SIM_BUILD != 0;

namespace sim {

// The operations of the cost table (its JSON keys are kOpNames).
enum class Op : uint8_t {
  kTxnBegin,     // an attempt's begin, with the procedure's own logic outside the accesses
  kIndexProbe,   // one primary-index lookup
  kRowRead,      // reading one row (copy or in place)
  kRowWrite,     // a private copy of one row for writing
  kRowInstall,   // installing one written row at commit
  kInsert,       // allocating and filling one inserted row
  kCommit,       // a commit's fixed part
  kAbort,        // an abort's fixed part
  kAtomicRmw,    // one atomic read-modify-write on a line this core owns
  kAtomicLoad,   // one load of shared protocol metadata
  kSpinRound,    // one round of a spin or wait loop
  kLineTransfer, // a cache line moving from another core (the default of --sim_line_transfer_ns)
  kWakeUp,       // a thread asleep in the kernel (a futex wait) running again after another one woke it
  kCount
};
inline constexpr size_t kOpCount = static_cast<size_t>(Op::kCount);
// The local work of a transaction: the operations before kAtomicRmw, the ones
// --sim_work_scale scales per transaction type (the protocols' shared
// metadata, spins and line transfers are not scaled).
inline constexpr size_t kLocalWorkOps = static_cast<size_t>(Op::kAtomicRmw);
inline constexpr const char* kOpNames[kOpCount] = {
    "txn_begin", "index_probe", "row_read", "row_write",  "row_install", "insert",
    "commit",    "abort",       "atomic_rmw", "atomic_load", "spin_round",  "line_transfer",
    "wake_up"};

// park()'s spin rounds for a native wait that never sleeps.
inline constexpr uint32_t kNeverSleeps = ~uint32_t{0};

#if CCB_SIM_BUILD
// The scheduler's state that the inline hooks below read (sim.cpp owns it
// and keeps it current at every switch). Not an API: the hooks are.
namespace detail {
inline constexpr uint64_t kPsPerNs = 1000;  // virtual time is kept in picoseconds (fractional calibrated costs)
// The part of a fiber the inline hooks use (sim.cpp's Fiber starts with it).
inline constexpr uint32_t kNoWorkType = ~uint32_t{0};
struct Clock {
  uint64_t now_ps = 0;
  uint32_t id = 0;
  uint32_t work_type = kNoWorkType;  // the transaction type whose work scale cost_ps has (work_type())
  uint64_t cost_ps[kOpCount] = {};  // the cost table, SMT factor applied for this fiber
  uint64_t aborts = 0;              // charge(Op::kAbort)s: aborted attempts (the watchdogs' messages)
};
struct Hot {
  Clock* current = nullptr;  // the running fiber; nullptr outside the fibers of a running simulation
  // The current fiber is still due first while now_ps < yield_at_ps: the
  // fiber due next after it is at (t, id), so yield_at_ps = t + (current id <
  // id) (all ones when no other fiber is left), or less while a fiber with a
  // deferred line operation waits at a lower bound of its time (sim.cpp):
  // then yield() may find the current fiber still due first and return.
  uint64_t yield_at_ps = 0;
  uint64_t events = 0;          // hook calls inside fibers
  uint64_t spins_in_a_row = 0;  // the watchdog's count
  // The stall watchdog (--sim_watchdog_stall_s): a core past this virtual
  // time has seen no commit for the bound; committed() and unpark() move it.
  uint64_t stall_deadline_ps = ~uint64_t{0};
  uint64_t stall_ps = ~uint64_t{0} >> 2;  // the bound (off: beyond the clock's range)
};
inline Hot hot;
// Hands the OS thread to the fiber due first, if that is not the current
// one (out of line, sim.cpp).
void yield();
inline void progress_event() {
  ++hot.events;
  hot.spins_in_a_row = 0;
}
// The stall watchdog fires (sim.cpp): checked at aborts, spin rounds and
// sleeps, where a livelock must pass.
[[noreturn]] void stalled();
// Rescales the fiber's local-work costs for transaction type `type` (out of
// line, sim.cpp).
void apply_work_type(Clock* f, uint32_t type);
// The fast path of every yielding hook: one comparison while the current
// fiber is still due first.
inline void maybe_yield(const Clock* f) {
  if (f->now_ps >= hot.yield_at_ps) yield();
}
}  // namespace detail

inline bool in_fiber() { return detail::hot.current != nullptr; }  // a fiber of a running simulation is current
inline uint64_t now_ns() { return detail::hot.current->now_ps / detail::kPsPerNs; }  // the current fiber's virtual time
inline uint32_t current_id() { return detail::hot.current->id; }  // the current fiber's id (a virtual core's: its spawn index)
// Local work of the current fiber; yields only at an index probe (sim.cpp
// says why).
inline void charge(Op op) {
  detail::Clock* f = detail::hot.current;
  if (f == nullptr) return;
  detail::progress_event();
  f->now_ps += f->cost_ps[static_cast<size_t>(op)];
  if (op == Op::kAbort) {  // a constant at every call site but one (the row access): folded away
    ++f->aborts;
    if (f->now_ps > detail::hot.stall_deadline_ps) [[unlikely]] detail::stalled();
  }
  if (op == Op::kIndexProbe) detail::maybe_yield(f);
}
// The current fiber committed a transaction (finish_attempt,
// engine/exec/attempt.h): progress for the stall watchdog.
inline void committed() {
  const detail::Clock* f = detail::hot.current;
  if (f != nullptr) detail::hot.stall_deadline_ps = f->now_ps + detail::hot.stall_ps;
}
// The online executor's controller at the start (true) and end (false) of
// the measured interval: the time breakdown (RunStats::cores) covers it;
// without these calls (the bundle executor) it covers the whole run. Each
// core's part of the window runs from its own clock at the start mark to
// its clock at the end mark (the running fiber is the earliest, so the
// others may be ahead of the mark by their current operation).
void measured_interval(bool starts);
// One line per virtual core of the last simulation: where it last spun or
// parked, its spin rounds and aborts in the window (the message of a run
// that committed nothing: rundb/run.h).
std::string describe_cores();
// The current fiber starts an attempt of transaction type `type` (the
// workload's Request::type): its local work costs the cost table's ns times
// the type's --sim_work_scale factor until the next call.
inline void work_type(uint32_t type) {
  detail::Clock* f = detail::hot.current;
  if (f != nullptr && f->work_type != type) detail::apply_work_type(f, type);
}
// The current fiber's work type (kNoWorkType outside a fiber or before its first).
inline uint32_t current_work_type() {
  const detail::Clock* f = detail::hot.current;
  return f != nullptr ? f->work_type : detail::kNoWorkType;
}
// The work type of the analysis of a bundle executor's front-end (Strife,
// TSKD's): rundb names it after the workload's transaction types, so that
// --sim_work_scale's "analysis" factor scales its per-key charge (fitted to
// the native analysis time; docs/sim.md, "The work scale"). kNoWorkType
// when the runs have no such type.
inline constexpr const char* kAnalysisWorkType = "analysis";
uint32_t analysis_work_type();
// A read (write = false) or write of shared state on the line of `addr`.
void touch(const void* addr, bool write);
// An atomic read-modify-write of the line of `addr` (a lock word, a counter).
void rmw(const void* addr);
// One round of a spin or wait loop at file:line.
void spin(const char* file, int line);
// The current fiber waits (without spinning) until virtual time t.
void sleep_until_ns(uint64_t t);
// The current fiber's transaction works until virtual time t without touching
// shared state: a workload's modelled work (runtime skew's lower bound, I/O
// latency). As sleep_until_ns, but its time is the breakdown's `delay`, not
// `sleep`, so that a workload's own length is not read as idle cores.
void delay_until_ns(uint64_t t);
// A thread_local word that each fiber keeps its own copy of (saved and
// restored at every switch) during the simulations that follow.
void fiber_local(uint64_t* word);
// A blocking wait (engine/core/sim_sync.h builds its barrier and wait list
// on these): park() takes the current fiber out of the ready fibers until
// another fiber calls unpark(its id). No spin rounds and no events while
// parked. `native_spin_rounds` says how the native wait the park stands for
// blocks: it polls that many rounds, then sleeps in the kernel. A fiber woken
// within those rounds (virtual time, spin_round each) was still polling: it
// runs again at the later of its own time and its waker's. One woken later
// was asleep: it runs again the cost table's wake_up after its waker's time
// (the OS wake-up that Orthrus's message queues pay natively on every
// hand-off; docs/sim.md). When every fiber left is parked nobody can wake
// them: the simulation exits 1 naming each one's park site (file:line).
// native_spin_rounds = kNeverSleeps (above): the native wait polls until it
// is woken, however long (a woken fiber never pays a wake-up).
void park(uint32_t native_spin_rounds, const char* file = __builtin_FILE(), int line = __builtin_LINE());
void unpark(uint32_t id);  // no-op unless fiber `id` is parked

// The threads of one run, as fibers: spawn() them, then run(main_body)
// runs main_body as a fiber too (id after the spawned ones) and returns when
// every fiber has ended. A spawned fiber is a virtual core unless `core` is
// false (the executor's epoch ticker, its controller).
class ThreadGroup {
 public:
  void spawn(std::function<void()> body, bool core = true) { bodies_.push_back({std::move(body), core}); }
  void run(std::function<void()> main_body);

 private:
  struct Body {
    std::function<void()> fn;
    bool core;
  };
  std::vector<Body> bodies_;
};
#else
// The native build: no fiber is ever current, every hook is empty.
inline constexpr bool in_fiber() { return false; }
inline constexpr uint64_t now_ns() { return 0; }
inline constexpr uint32_t current_id() { return 0; }
inline void sleep_until_ns(uint64_t) {}
inline void delay_until_ns(uint64_t) {}
inline void fiber_local(uint64_t*) {}
inline void charge(Op) {}
inline void work_type(uint32_t) {}
inline constexpr uint32_t current_work_type() { return 0; }
inline constexpr uint32_t analysis_work_type() { return 0; }
inline void touch(const void*, bool) {}
inline void rmw(const void*) {}
inline void spin(const char*, int) {}
inline void committed() {}
inline void measured_interval(bool) {}

// The native build's threads: spawn() starts one at once; run(main_body)
// runs main_body on the calling thread, then joins them all.
class ThreadGroup {
 public:
  void spawn(std::function<void()> body, bool = true) { threads_.emplace_back(std::move(body)); }
  void run(const std::function<void()>& main_body) {
    main_body();
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::vector<std::thread> threads_;
};
#endif

// Sleeps: the OS thread natively, the fiber's virtual clock under sim.
template <class Rep, class Period>
inline void sleep_for(std::chrono::duration<Rep, Period> d) {
#if CCB_SIM_BUILD
  if (in_fiber()) {
    sleep_until_ns(now_ns() + static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count()));
    return;
  }
#endif
  std::this_thread::sleep_for(d);
}

// Local work of one type within a scope (a bundle executor's analysis chunk):
// the fiber's type before it (its attempt's, or none) is back after it, so
// no later charge outside an attempt is scaled by the scope's factor.
class ScopedWorkType {
 public:
  explicit ScopedWorkType(uint32_t type) : previous_(current_work_type()) { work_type(type); }
  ~ScopedWorkType() { work_type(previous_); }
  ScopedWorkType(const ScopedWorkType&) = delete;
  ScopedWorkType& operator=(const ScopedWorkType&) = delete;

 private:
  uint32_t previous_;
};

// Gives up the CPU in a wait loop: std::this_thread::yield natively, one
// spin round at the caller's site under sim.
inline void yield_thread(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
#if CCB_SIM_BUILD
  if (in_fiber()) {
    spin(file, line);
    return;
  }
#endif
  std::this_thread::yield();
}

}  // namespace sim
}  // namespace ccb
