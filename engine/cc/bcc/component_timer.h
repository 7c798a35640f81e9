// Table 1's attribution of BCC's cost (Yuan et al., PVLDB 9(6) 2016, section
// 6.1; --bcc_breakdown, engine/cc/bcc/bcc.h): the cycle counter read around each
// stretch of memory management (Release bookkeeping, allocating and
// publishing a read-set table, growing it) and of global-clock access (the
// TID's store in the clock, the Start snapshot, the idle store at the end).
// Off by default: then each probe is one predictable branch. The cost of a
// probe pair itself (its minimum, calibrated once) is subtracted from every
// stretch, so what is charged is the work in between; the probes' own time
// goes to what the table calls "the rest". Cycles are converted to seconds by
// a rate calibrated against the steady clock. The counter and its rate are
// the execution profile's (engine/stats/exec_profile.h: the TSC, or the
// steady clock in nanoseconds where there is none).
//
// Thread safety: enable() once, before the workers start; afterwards the
// timer is read-only and any thread may probe it (each charges its own
// totals).
#pragma once

#include <algorithm>
#include <cstdint>

#include "engine/stats/exec_profile.h"

namespace ccb::bcc {

class ComponentTimer {
 public:
  // Calibrates the probe cost and the cycle rate, then turns the probes on.
  void enable() {
    enabled_ = true;
    uint64_t best = ~uint64_t{0};
    for (int i = 0; i < 1000; ++i) {
      const uint64_t a = read(), b = read();
      best = std::min(best, b - a);
    }
    overhead_ = best;
    cycles_per_ns_ = 1.0 / profile_ns_per_tick();
  }
  bool enabled() const { return enabled_; }
  // The counter now, or 0 when off.
  uint64_t now() const { return enabled_ ? read() : 0; }
  // Adds the cycles since `since` (a now()) to `total`; returns now().
  uint64_t charge(uint64_t& total, uint64_t since) const {
    if (!enabled_) return 0;
    const uint64_t t = read();
    total += t - since > overhead_ ? t - since - overhead_ : 0;
    return t;
  }
  double seconds(uint64_t cycles) const { return static_cast<double>(cycles) / cycles_per_ns_ * 1e-9; }
  uint64_t overhead() const { return overhead_; }
  double cycles_per_ns() const { return cycles_per_ns_; }

 private:
  static uint64_t read() { return profile_ticks(); }
  bool enabled_ = false;
  uint64_t overhead_ = 0;
  double cycles_per_ns_ = 1.0;
};

}  // namespace ccb::bcc
