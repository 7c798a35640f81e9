// now_ns(): the steady clock in nanoseconds. The one clock of the engine and
// the workloads: the executor's timing and latencies, BCC's snapshot epochs,
// HOT's time-varying hot set, the runtime-skew and I/O-latency extensions.
// Under sim (engine/core/sim_hooks.h) a fiber reads its own virtual time instead,
// so every one of them follows virtual time.
// Thread safety: a pure read of the clock.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "engine/core/sim_hooks.h"

namespace ccb {

inline uint64_t now_ns() {
  if constexpr (kSimBuild) {
    if (sim::in_fiber()) return sim::now_ns();
  }
  const auto t = std::chrono::steady_clock::now().time_since_epoch();
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t).count());
}

// A nominal 2.5 GHz core's cycles: the rate at which simulated time is
// counted in cycles (cpu_ticks under sim) and at which TSKD's minIO cycles are
// waited natively and simulated (workloads/extensions), so that the same
// number of cycles lasts as long on every machine.
constexpr uint64_t nominal_cycles_to_ns(uint64_t cycles) { return cycles * 2 / 5; }
constexpr uint64_t ns_to_nominal_cycles(uint64_t ns) { return ns * 5 / 2; }

// The CPU's time-stamp counter (synchronized across cores on the CPUs this
// runs on: invariant TSC), ordered after earlier loads; the steady clock
// elsewhere (Cicada's timestamps). Under sim, the fiber's virtual time in
// nominal cycles (0 outside the fibers): the TSC made a simulated run depend
// on the host's speed (not deterministic).
inline uint64_t cpu_ticks() {
  if constexpr (kSimBuild) return sim::in_fiber() ? ns_to_nominal_cycles(sim::now_ns()) : 0;
#if defined(__x86_64__) || defined(__i386__)
  _mm_lfence();
  return __rdtsc();
#else
  return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

}  // namespace ccb
