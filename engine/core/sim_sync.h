// Waits that block a fiber under the simulation (engine/core/sim_hooks.h,
// docs/sim.md), built on sim::park / sim::unpark: a barrier (the bundle
// executor's phase barrier under sim) and a wait list (the executor's phase
// team, engine/core/phase_team.h; the message queues), so that a wait costs
// no spin rounds however long it lasts in virtual time (a batch's serial
// analysis steps, a straggling worker), and the watchdog is left for real
// spins.
//
// Natively nothing here is used: sim::FiberBarrier exists only under sim,
// and sim::WaitList's members are empty functions that the callers reach
// only under `if constexpr (kSimBuild)`.
//
// Thread safety: under sim all fibers run on one OS thread and switch only
// inside sim hooks, so a check followed by park() cannot miss a wake-up; the
// classes here are used by fibers of one simulation only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine/core/sim_hooks.h"
#include "engine/core/thread_group.h"

namespace ccb::sim {

// How the native waits that the fibers' parks stand for block: the rounds
// each polls before it sleeps in the kernel (sim::park charges a wake-up to
// a fiber woken after them).
// oneTBB's concurrent_bounded_queue::pop commits to its monitor's sleep
// without polling.
inline constexpr uint32_t kTbbQueuePopSpinRounds = 0;
// libstdc++ 12's std::atomic<T>::wait and std::barrier poll 16 times (12
// pauses, then 4 yields: __atomic_spin in <bits/atomic_wait.h>), then sleep
// on a futex.
inline constexpr uint32_t kAtomicWaitSpinRounds = 16;
// A wait that polls until its condition holds and never sleeps (Orthrus's
// threads at --orthrus_wait=poll): a woken fiber runs on at its waker's time,
// never pays a wake-up (sim::kNeverSleeps).
inline constexpr uint32_t kPollSpinRounds = kNeverSleeps;

// Fibers waiting for a condition another fiber makes true: wait() parks the
// current fiber until notify_all(); callers re-check their condition after
// wait() returns, as with a condition variable. A list is built with the
// spin rounds of the native wait it stands for (above).
class WaitList {
 public:
#if CCB_SIM_BUILD
  explicit WaitList(uint32_t native_spin_rounds) : native_spin_rounds_(native_spin_rounds) {}
  void wait(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    if (!in_fiber()) throw std::logic_error("sim::WaitList::wait outside a running simulation");
    ids_.push_back(current_id());
    park(native_spin_rounds_, file, line);
  }
  void notify_all() {
    std::vector<uint32_t> ids;
    ids.swap(ids_);
    for (uint32_t id : ids) unpark(id);
  }

 private:
  uint32_t native_spin_rounds_;
  std::vector<uint32_t> ids_;
#else
  explicit WaitList(uint32_t) {}
  void wait(const char* = nullptr, int = 0) {}
  void notify_all() {}
#endif
};

#if CCB_SIM_BUILD
// std::barrier's arrive_and_wait with its completion step, for fibers
// (natively_spin_rounds: how the native barrier it stands for waits;
// std::barrier's by default, kPollSpinRounds for a spinning one,
// engine/core/phase_team.h). An arrival is an atomic read-modify-write of the barrier's counter (sim::rmw:
// arrivals serialize on its line); the last one runs the completion at its
// virtual time, then releases the others, which go on at that time plus the
// load of the released counter (sim::touch: a line transfer).
template <class Completion>
class FiberBarrier {
 public:
  FiberBarrier(std::ptrdiff_t expected, Completion completion, uint32_t native_spin_rounds = kAtomicWaitSpinRounds)
      : expected_(expected), completion_(std::move(completion)), waiting_(native_spin_rounds) {}

  void arrive_and_wait(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    if (!in_fiber()) throw std::logic_error("sim::FiberBarrier outside a running simulation");
    rmw(&arrived_);
    if (++arrived_ < expected_) {
      const uint64_t phase = phase_;
      while (phase_ == phase) waiting_.wait(file, line);
      touch(&arrived_, false);
      return;
    }
    completion_();
    arrived_ = 0;
    ++phase_;
    waiting_.notify_all();
  }

 private:
  const std::ptrdiff_t expected_;
  Completion completion_;
  std::ptrdiff_t arrived_ = 0;
  uint64_t phase_ = 0;
  WaitList waiting_;
};

#endif

// The threads an object built before a run lends to it (engine/core/thread_group.h).
using LentThreads = ccb::LentThreads;

}  // namespace ccb::sim
