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

// The CPU's time-stamp counter (synchronized across cores on the CPUs this
// runs on: invariant TSC), ordered after earlier loads; the steady clock
// elsewhere (Cicada's timestamps). Under sim, the fiber's virtual time as a
// 2.5 GHz counter (0 outside the fibers): the TSC made a simulated run depend
// on the host's speed (not deterministic).
inline uint64_t cpu_ticks() {
  if constexpr (kSimBuild) return sim::in_fiber() ? sim::now_ns() * 5 / 2 : 0;
#if defined(__x86_64__) || defined(__i386__)
  _mm_lfence();
  return __rdtsc();
#else
  return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

}  // namespace ccb
