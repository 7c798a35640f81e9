// monotonic_ns(): the steady clock in nanoseconds, for the workloads that act
// on wall-clock time (HOT's time-varying hot set, TSKD's runtime bounds).
// Thread safety: a pure read of the clock.
#pragma once

#include <chrono>
#include <cstdint>

namespace ccb {

inline uint64_t monotonic_ns() {
  const auto t = std::chrono::steady_clock::now().time_since_epoch();
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t).count());
}

}  // namespace ccb
