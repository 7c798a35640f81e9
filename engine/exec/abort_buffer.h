// A worker's abort buffer (--abort_policy=buffer): DBx1000's policy after
// an abort (system/thread.cpp, ABORT_BUFFER_ENABLE; ABORT_BUFFER_SIZE 10,
// ABORT_PENALTY 100 us in its config.h). An aborted request is parked with a
// ready time `now + a penalty uniform in [0, --abort_penalty_us]`, and the
// worker goes on with new requests; before each new request it takes a
// parked one whose time has come (the first such slot, in slot order, as
// DBx1000 scans them). The worker idles only when every slot is taken and
// none is ready, and then until the earliest is.
//
// The online worker's request source wraps it (AbortBufferSource,
// engine/exec/request_sources.h); the bundle worker keeps one per queue or
// phase (engine/exec/bundle_worker.h).
//
// The other policy (backoff, engine/exec/runtime.h's
// backoff_after_abort) retries the same request after an idle wait, so a
// core that aborts does no work during its penalty; under contention that
// idle time is what flattens a simulated many-core curve (docs/sim.md).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace ccb {

// Entry: what the executor needs to resume a request (its pick, its retry
// count, when it was first tried). Only the ready time is the buffer's.
template <class Entry>
class AbortBuffer {
 public:
  explicit AbortBuffer(uint32_t slots) : slots_(slots) {}

  bool full() const { return parked_ == slots_.size(); }
  bool empty() const { return parked_ == 0; }
  uint32_t parked() const { return parked_; }

  // REQUIRES: !full(). Parks the entry in the first free slot.
  void park(const Entry& e, uint64_t ready_ns) {
    for (Slot& s : slots_) {
      if (s.used) continue;
      s = {e, ready_ns, true};
      ++parked_;
      return;
    }
  }

  // REQUIRES: !full(). Parks the entry until now_ns plus DBx1000's penalty,
  // uniform in [0, penalty_us] microseconds (drawn from rng, a Random).
  template <class Rng>
  void park_for_penalty(const Entry& e, uint64_t now_ns, Rng& rng, uint32_t penalty_us) {
    park(e, now_ns + rng.below(uint64_t{penalty_us} * 1000 + 1));
  }

  // The first slot (in slot order) whose ready time has passed at now_ns,
  // removed from the buffer; none if no parked entry is ready.
  std::optional<Entry> take_ready(uint64_t now_ns) {
    if (parked_ == 0) return std::nullopt;
    for (Slot& s : slots_) {
      if (!s.used || s.ready_ns > now_ns) continue;
      s.used = false;
      --parked_;
      return s.entry;
    }
    return std::nullopt;
  }

  // The earliest ready time of the parked entries (max if none).
  uint64_t earliest_ready_ns() const {
    uint64_t t = std::numeric_limits<uint64_t>::max();
    for (const Slot& s : slots_)
      if (s.used && s.ready_ns < t) t = s.ready_ns;
    return t;
  }

 private:
  struct Slot {
    Entry entry{};
    uint64_t ready_ns = 0;
    bool used = false;
  };
  std::vector<Slot> slots_;
  uint32_t parked_ = 0;
};

}  // namespace ccb
