// now_ns(): the steady clock in nanoseconds. The one clock of the engine and
// the workloads: the executor's timing and latencies, BCC's snapshot epochs,
// HOT's time-varying hot set, the runtime-skew and I/O-latency extensions.
// Thread safety: a pure read of the clock.
#pragma once

#include <chrono>
#include <cstdint>

namespace ccb {

inline uint64_t now_ns() {
  const auto t = std::chrono::steady_clock::now().time_since_epoch();
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t).count());
}

}  // namespace ccb
