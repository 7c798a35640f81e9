// The waits and hand-offs of message queues between threads (the queues of
// the message-passing protocols, engine/cc_helpers/message_locks.h: oneTBB
// concurrent_bounded_queue objects). QueueWaits holds how the threads of a
// set of queues wait for a message (ThreadWait) and does each queue's
// push, pop and inbox check, so that the queue's owner names no simulator:
//
// Under sim (engine/core/sim_hooks.h) a push or a pop is an atomic RMW of the
// queue's line (a line transfer between sender and receiver), checking an
// inbox is a load of its line, and a thread waiting for a message parks its
// fiber on a sim::WaitList that the push wakes, built with the spin rounds
// of the native wait (kPoll: it never sleeps, so a woken fiber runs on at its
// waker's time; kSleep: TBB's pop sleeps at once, so a woken fiber pays the
// cost table's wake_up). Natively the hooks are empty and a wait is the
// queue's blocking pop (kSleep) or a SpinWait loop on try_pop (kPoll).
//
// Thread safety: assign() before the threads start; each queue's waits are
// used by the threads that pop that queue and the ones that push to it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/spin.h"
#include "engine/core/sim_hooks.h"
#include "engine/core/topology.h"
#include "engine/core/sim_sync.h"

namespace ccb {

// The alignment of an object that holds a queue of type Queue (an inbox, a
// reply queue): natively the queue's own (the layout of before); under sim
// one cache line each, so that the model charges each queue's line apart.
template <class Queue>
inline constexpr size_t kQueueAlign = kSimBuild ? 64 : alignof(Queue);

// Whether `workers` threads that wait for messages should sleep on their
// doorbells when idle rather than poll: natively when they outnumber this
// machine's CPUs (among more runnable threads than cores, a message otherwise
// waits for its receiver's turn in a round over every polling thread); never
// under sim, where each worker has a virtual core of its own.
inline bool idle_waiters_should_sleep(int workers) {
  return !kSimBuild && workers > static_cast<int>(Topology::get().cpus.size());
}

// How a thread with nothing else to do waits for its next message.
enum class ThreadWait : uint8_t { kPoll, kSleep };

class QueueWaits {
 public:
  // The waits of `queues` queues whose poppers wait as `wait` says (pop()
  // is told again natively).
  void assign([[maybe_unused]] size_t queues, [[maybe_unused]] ThreadWait wait) {
#if CCB_SIM_BUILD
    const uint32_t rounds = wait == ThreadWait::kPoll ? sim::kPollSpinRounds : sim::kTbbQueuePopSpinRounds;
    waiting_.assign(queues, sim::WaitList(rounds));
#endif
  }

  // Pushes `m` to queue `i`, `q` (which must take it at once: its capacity
  // holds every message that can be outstanding); wakes its waiting popper.
  template <class Queue, class T>
  void push(Queue& q, [[maybe_unused]] size_t i, const T& m) {
    sim::rmw(&q);
    q.push(m);
#if CCB_SIM_BUILD
    waiting_[i].notify_all();
#endif
  }
  // Pops the next message of queue `i`, `q`, waiting while it is empty as
  // `wait` says (the one given to assign()).
  template <class Queue, class T>
  void pop(Queue& q, [[maybe_unused]] size_t i, T& out, [[maybe_unused]] ThreadWait wait) {
#if CCB_SIM_BUILD
    while (!q.try_pop(out)) waiting_[i].wait();
    sim::rmw(&q);
#else
    if (wait == ThreadWait::kSleep) return q.pop(out);
    for (SpinWait w; !q.try_pop(out);) w.pause();
#endif
  }
  // The popper looks at queue `q` before taking what is there (try_pop).
  template <class Queue>
  static void look(const Queue& q) {
    sim::touch(&q, false);
  }

 private:
  std::vector<sim::WaitList> waiting_;  // under sim: one per queue; natively empty
};

// A thread's doorbell: the threads that hand it a message ring it after the
// push, and the thread sleeps on it (a futex, through std::atomic::wait) when
// it has nothing to do. With more runnable threads than cores, a waiting
// thread that only yields keeps the cores busy with threads that have nothing
// to do, so a message waits for its receiver's turn in a round over every
// thread; a sleeping receiver instead runs when a message arrives.
// No wake-up is lost: the sleeper reads the ring count (seen()), then checks
// for messages, and sleeps only while the count is still the one it read, so
// a ring after seen() ends or prevents the sleep, and a message rung before
// it is visible to the check (the ring is a release, seen() an acquire).
// Natively only: under sim the threads are fibers that wait on sim::WaitList.
class alignas(64) Doorbell {
 public:
  void ring() {
    rings_.fetch_add(1, std::memory_order_release);
    rings_.notify_one();  // no system call while nobody sleeps (libstdc++'s waiter count)
  }
  uint32_t seen() const { return rings_.load(std::memory_order_acquire); }
  // Sleeps until a ring after seen() returned `seen` (at once if one came).
  void sleep(uint32_t seen) {
    ++sleeps_;
    rings_.wait(seen, std::memory_order_acquire);
  }
  // Calls of sleep(), a return at once (a ring came after seen()) included;
  // read on the owner thread, or after it joined.
  uint64_t sleeps() const { return sleeps_; }

 private:
  std::atomic<uint32_t> rings_{0};
  uint64_t sleeps_ = 0;  // written by the sleeping thread only
};

}  // namespace ccb
