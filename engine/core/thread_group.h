// The threads of one run, started one way in both builds: ThreadGroup runs
// the run's bodies as OS threads natively and, in the sim build, as fibers
// on virtual cores (engine/core/sim_hooks.h, sim::ThreadGroup); RunThreads
// is the executors' launcher on top of it (engine/exec/runtime.h): the
// workers (pinned natively with --pin), the service threads an object lends
// to the run (LentThreads: a protocol's own threads, e.g. Orthrus's CC
// threads), a background clock (the epoch ticker), and each worker's share
// of a per-thread counter (WorkerCounter). The sim/native split of the
// executors lives here and in sim_hooks.h, nowhere above.
//
// Thread safety: a RunThreads is set up (lend, tick_every, count) by one
// thread before run(); during the run, stop_ticking() may be called from any
// of its threads, and each worker touches only its own WorkerCounter slots.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <numeric>
#include <utility>
#include <vector>

#include "engine/core/sim_hooks.h"
#include "engine/core/topology.h"

namespace ccb {

using ThreadGroup = sim::ThreadGroup;

// The threads an object built before a run (a protocol's own threads, e.g.
// Orthrus's CC threads) lends to it, natively and under sim alike: the
// launcher runs each body beside the workers (an OS thread natively, a
// virtual core after the workers under sim) and calls every stop() once the
// last worker has returned, on that worker's thread; the bodies then return.
struct LentThreads {
  std::vector<std::function<void()>> bodies;
  std::vector<std::function<void()>> stops;
};

// A counter that each thread keeps in a thread_local word of its own and
// only it increments (engine/core/latch_contention.h's), read per worker of
// a run: from the worker's last mark() (its start until then) to its return.
// Under sim every fiber keeps its own copy of the word (sim::fiber_local),
// as every OS thread does natively.
class WorkerCounter {
 public:
  using Word = uint64_t& (*)();  // the calling thread's word

  explicit WorkerCounter(Word word) : word_(word) {}

  // On worker i's thread: its count starts again from here (the measured
  // interval's start).
  void mark(int i) { from_[i] = word_(); }
  // The workers' counts, summed. REQUIRES: the run ended.
  uint64_t total() const { return std::accumulate(counts_.begin(), counts_.end(), uint64_t{0}); }

 private:
  friend class RunThreads;
  void prepare(int workers) {
    sim::fiber_local(&word_());
    from_.assign(workers, 0);
    counts_.assign(workers, 0);
  }
  void end(int i) { counts_[i] = word_() - from_[i]; }

  Word word_;
  std::vector<uint64_t> from_, counts_;  // per worker
};

// The threads of one run: `workers` workers (virtual cores 0..workers-1 under
// sim, in that order), then the lent threads (virtual cores after them),
// then the background clock and the caller's main body (fibers that are not
// cores). A run ends when every one of them has returned.
class RunThreads {
 public:
  // cpus: empty (unpinned), or worker i's CPU at [i] (natively; a virtual
  // core has no OS thread of its own to pin).
  RunThreads(int workers, std::vector<int> cpus) : workers_(workers), cpus_(std::move(cpus)) {}

  // Service threads for the run (LentThreads above).
  void lend(LentThreads lent) {
    for (auto& b : lent.bodies) lent_.bodies.push_back(std::move(b));
    for (auto& s : lent.stops) lent_.stops.push_back(std::move(s));
  }
  // A background clock: tick() every `period` (a sleep, virtual under sim)
  // until stop_ticking(), or at the latest once the last worker returned.
  void tick_every(std::chrono::milliseconds period, std::function<void()> tick) {
    period_ = period;
    tick_ = std::move(tick);
  }
  void stop_ticking() { ticking_.store(false, std::memory_order_release); }
  // Each worker's share of `c` (WorkerCounter above); `c` outlives run().
  void count(WorkerCounter& c) { counters_.push_back(&c); }

  // Runs worker(i) on every worker i, the lent threads and the clock beside
  // them, and `main` (on the calling thread natively, as the last fiber under
  // sim); returns when all of them have.
  void run(const std::function<void(int)>& worker, std::function<void()> main) {
    for (WorkerCounter* c : counters_) c->prepare(workers_);
    running_.store(workers_, std::memory_order_relaxed);
    ticking_.store(true, std::memory_order_relaxed);
    ThreadGroup threads;
    for (int i = 0; i < workers_; ++i) {
      threads.spawn([this, &worker, i] {
        if (!cpus_.empty() && !sim::in_fiber()) pin_current_thread(cpus_[i]);
        for (WorkerCounter* c : counters_) c->mark(i);
        worker(i);
        for (WorkerCounter* c : counters_) c->end(i);
        if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) {  // the last worker: the service ends
          for (auto& stop : lent_.stops) stop();
          stop_ticking();
        }
      });
    }
    for (auto& body : lent_.bodies) threads.spawn(std::move(body));
    if (tick_) {
      threads.spawn(
          [this] {
            while (ticking_.load(std::memory_order_acquire)) {
              sim::sleep_for(period_);
              tick_();
            }
          },
          /*core=*/false);
    }
    threads.run(std::move(main));
  }

 private:
  const int workers_;
  const std::vector<int> cpus_;
  LentThreads lent_;
  std::chrono::milliseconds period_{0};
  std::function<void()> tick_;  // none: no clock
  std::vector<WorkerCounter*> counters_;
  std::atomic<int> running_{0};  // workers not returned yet
  std::atomic<bool> ticking_{true};
};

}  // namespace ccb
