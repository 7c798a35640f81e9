// Spin waiting and the one spin latch of the engine: the CPU's pause hint in
// a wait loop (cpu_relax), the pacing of a wait loop (SpinWait), and a
// test-and-test-and-set latch (SpinLatch) for short critical sections (PartCC's
// partition locks, DlDetect's lock queues and waits-for graph, the version
// store's minimum refresh).
//
// Under sim (engine/core/sim_hooks.h) a pause is one spin round of the virtual core
// at the caller's file:line, and the latch's word is a cache line of the cost
// model: the test reads it, the set is a read-modify-write of it, the release
// writes it. That is what makes a hand-over fair as on hardware: a holder that
// releases and takes the latch again at once pays the line's transfer back
// from a waiter that read it meanwhile, and the waiter gets in during that
// transfer. Without the hooks the re-take cost nothing, a waiter polling once
// per spin round almost never saw the latch free, and PartCC's partition locks
// starved their waiters (the whole run ran at about one core's throughput).
//
// Natively the cache gives no such help when workers outnumber cores: a holder
// that keeps the latch for most of its time slice (PartCC holds a partition
// for a whole transaction and takes it again at once) is usually descheduled
// holding it, so a waiter on the same core found it free once in seconds (a
// 20 us holder and one waiter on one core: 0.8-32 s). So a native waiter that
// has waited kClaimAfter claims the latch: while a claim stands, fresh lockers
// stay out, the holder cannot take it back, and the next release goes to the
// claimant (one claim at a time; other starved waiters claim in turn). That is
// the starvation mode of Go's sync.Mutex, with the same 1 ms bound. A waiter
// that gets in within the bound never claims, so at one worker per core the
// latch is the plain test-and-test-and-set one. Under sim the claim is off:
// the line transfers above already bound the wait, and virtual time keeps a
// wall-clock threshold out of the deterministic schedule.
//
// Thread safety: SpinLatch is shared; SpinWait is one waiter's.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "engine/core/sim_hooks.h"

namespace ccb {

// CPU relax hint for spin loops. Under sim one spin round of the current
// virtual core at the caller's file:line, which hands the OS thread to the
// other fibers (the watchdog names the site).
inline void cpu_relax(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  if constexpr (kSimBuild) {
    if (sim::in_fiber()) return sim::spin(file, line);
  }
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Pacing of a wait loop: spin briefly, then yield the CPU on every round, so a
// lock holder that was descheduled can run (workers may outnumber cores).
// Under sim every round is one spin round at the caller's site (sim::spin).
class SpinWait {
 public:
  static constexpr uint32_t kSpinsBeforeYield = 64;
  void pause(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    if constexpr (kSimBuild) {
      if (sim::in_fiber()) {
        ++rounds_;
        return sim::spin(file, line);
      }
    }
    if (++rounds_ <= kSpinsBeforeYield) cpu_relax();
    else std::this_thread::yield();
  }
  uint32_t rounds() const { return rounds_; }

 private:
  uint32_t rounds_ = 0;
};

// A test-and-test-and-set latch, with a claim for a starved native waiter
// (see the header comment).
class SpinLatch {
 public:
  static constexpr std::chrono::microseconds kClaimAfter{1000};

  // One try; fails while the latch is held or claimed by a starved waiter.
  bool try_lock() {
    sim::touch(&held_, false);
    if (held_.load(std::memory_order_relaxed)) return false;
    if (claimed_.load(std::memory_order_relaxed)) return false;  // never set under sim
    sim::rmw(&held_);
    return !held_.exchange(true, std::memory_order_acquire);
  }
  // Waits for the latch; each failed try is one round of a SpinWait at the
  // caller's site. Natively, after kClaimAfter of waiting it claims the latch.
  void lock(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    if (try_lock()) return;
    const bool may_claim = !sim::in_fiber();
    const auto since = may_claim ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    for (SpinWait w; !try_lock();) {
      w.pause(file, line);
      if (may_claim && w.rounds() > SpinWait::kSpinsBeforeYield &&
          std::chrono::steady_clock::now() - since >= kClaimAfter) {
        return lock_claimed();
      }
    }
  }
  void unlock() {
    sim::touch(&held_, true);
    held_.store(false, std::memory_order_release);
  }
  bool locked() const { return held_.load(std::memory_order_acquire); }
  // Whether a starved waiter has claimed the next hand-over (tests).
  bool claimed() const { return claimed_.load(std::memory_order_acquire); }

 private:
  // Native only: takes the claim (waiting for an earlier claimant to get in),
  // then the latch, which no fresh locker can take while the claim stands.
  void lock_claimed() {
    for (SpinWait w; claimed_.load(std::memory_order_relaxed) || claimed_.exchange(true, std::memory_order_acquire);) {
      w.pause();
    }
    for (SpinWait w; held_.load(std::memory_order_relaxed) || held_.exchange(true, std::memory_order_acquire);) {
      w.pause();
    }
    claimed_.store(false, std::memory_order_release);
  }

  std::atomic<bool> held_{false};
  std::atomic<bool> claimed_{false};  // a starved waiter takes the next release
};

}  // namespace ccb
