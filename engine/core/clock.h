// now_ns(): the steady clock in nanoseconds. The one clock of the engine and
// the workloads: the executor's timing and latencies, BCC's snapshot epochs,
// HOT's time-varying hot set, the runtime-skew and I/O-latency extensions.
// Under sim (engine/core/sim.h) a fiber reads its own virtual time instead,
// so every one of them follows virtual time.
// Thread safety: a pure read of the clock.
#pragma once

#include <chrono>
#include <cstdint>

#include "engine/core/sim.h"

namespace ccb {

inline uint64_t now_ns() {
  if constexpr (kSimBuild) {
    if (sim::in_fiber()) return sim::now_ns();
  }
  const auto t = std::chrono::steady_clock::now().time_since_epoch();
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t).count());
}

}  // namespace ccb
