// A fixed team of threads that runs one parallel loop at a time: the
// parallel steps of Strife's analysis (§4: prepare, fuse and allocate over
// chunks of the batch). Plain std::thread and std::atomic (C++20 wait /
// notify), so ThreadSanitizer sees every hand-off (TBB's hand-offs happen
// inside its uninstrumented library, and TSan then reports every access to
// the shared arrays as a race).
//
// Thread safety: run() is called by one thread at a time (the owner), which
// takes part as worker 0; helpers are workers 1..size()-1. Chunks are claimed
// one at a time from an atomic ticket, and run() waits only for claimed
// chunks, never for a helper to wake up: on a busy machine the owner does
// the chunks that descheduled helpers do not take.
//
// Under the simulation (engine/sim/sim.h) the constructor starts no thread:
// the bundle executor spawns the helpers as fibers of its run (lend()), and
// their waits, and the owner's wait for the chunks, park the fiber
// (sim::WaitList) instead of spinning or sleeping on the atomics. Helpers
// that were never lent leave every chunk to the owner. The native build
// keeps the code below as it was (every sim branch is `if constexpr`).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "engine/sim/sim.h"
#include "engine/core/sim_sync.h"

namespace ccb::strife {

class ThreadTeam {
 public:
  using Body = std::function<void(size_t worker, size_t chunk)>;

  // REQUIRES: threads >= 1.
  explicit ThreadTeam(unsigned threads) : size_(threads) {
    if constexpr (kSimBuild) return;  // lend() hands the helpers to the run
    for (unsigned w = 1; w < threads; ++w) helpers_.emplace_back([this, w] { help(w); });
  }
  ~ThreadTeam() {
    if constexpr (kSimBuild) return;  // the lent helpers ended with the run (stop())
    stop_.store(true, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
    generation_.notify_all();
    for (std::thread& t : helpers_) t.join();
  }
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  size_t size() const { return size_; }

  // Under sim: the helpers (workers 1..size()-1) as bodies for the run's
  // fibers, and the stop that ends them (engine/core/sim_sync.h); natively nothing.
  void lend(sim::LentThreads& out) {
    if constexpr (!kSimBuild) return;
    for (size_t w = 1; w < size_; ++w) out.bodies.push_back([this, w] { help(w); });
    if (size_ > 1)
      out.stops.push_back([this] {
        stop_.store(true, std::memory_order_relaxed);
        generation_.fetch_add(1, std::memory_order_release);
        helpers_waiting_.notify_all();
      });
  }

  // Runs body(worker, chunk) once for every chunk in [0, chunks) and returns
  // when all have finished. If a call throws, the other chunks still run and
  // the first exception is rethrown here. REQUIRES: chunks < 2^32.
  void run(size_t chunks, const Body& body) {
    if (chunks == 0) return;
    const uint64_t run_id = generation_.load(std::memory_order_relaxed) + 1;
    body_.store(&body, std::memory_order_relaxed);
    chunks_.store(chunks, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    ticket_.store(run_id << 32, std::memory_order_relaxed);
    generation_.store(run_id, std::memory_order_release);  // publishes the stores above
    if constexpr (kSimBuild) helpers_waiting_.notify_all();
    else generation_.notify_all();
    drain(0, run_id);
    for (size_t done; (done = done_.load(std::memory_order_acquire)) != chunks;) {
      if constexpr (kSimBuild) owner_waiting_.wait();
      else done_.wait(done, std::memory_order_acquire);
    }
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  // Rounds a helper yields, checking for the next loop, before it sleeps:
  // the analysis runs its parallel steps back to back with short sequential
  // steps in between, and waking a sleeping thread costs tens of microseconds.
  static constexpr int kSpinRounds = 1 << 10;

  void help(size_t worker) {
    uint64_t seen = 0;
    while (true) {
      uint64_t g = generation_.load(std::memory_order_acquire);
      if constexpr (kSimBuild) {
        while (g == seen) {
          helpers_waiting_.wait();
          g = generation_.load(std::memory_order_acquire);
        }
      }
      for (int i = 0; g == seen && i < kSpinRounds; ++i) {
        std::this_thread::yield();
        g = generation_.load(std::memory_order_acquire);
      }
      while (g == seen) {
        generation_.wait(seen, std::memory_order_acquire);
        g = generation_.load(std::memory_order_acquire);
      }
      if (stop_.load(std::memory_order_relaxed)) return;
      seen = g;
      drain(worker, g);
    }
  }

  // Claims and runs chunks of run `run_id` until none is left. The ticket
  // holds (run id << 32 | next chunk); the CAS fails once the owner moved on
  // to a later run, so a late helper never runs a stale chunk. The owner
  // waits for every claimed chunk, so body_ and chunks_ stay those of the
  // claimed run until the chunk is done.
  void drain(size_t worker, uint64_t run_id) {
    uint64_t ticket = ticket_.load(std::memory_order_acquire);
    while (true) {
      if ((ticket >> 32) != (run_id & 0xffffffffu)) return;
      const size_t chunk = ticket & 0xffffffffu;
      if (chunk >= chunks_.load(std::memory_order_relaxed)) return;
      if (!ticket_.compare_exchange_weak(ticket, ticket + 1, std::memory_order_acq_rel)) continue;
      try {
        (*body_.load(std::memory_order_relaxed))(worker, chunk);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu_);
        if (!error_) error_ = std::current_exception();
      }
      if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == chunks_.load(std::memory_order_relaxed)) {
        if constexpr (kSimBuild) owner_waiting_.notify_all();
        else done_.notify_one();
      }
      ticket = ticket_.load(std::memory_order_acquire);
    }
  }

  const size_t size_;  // workers, the owner included
  std::vector<std::thread> helpers_;
  // Under sim: the parked helpers (natively they yield kSpinRounds rounds,
  // then sleep in generation_.wait) and the parked owner (done_.wait).
  sim::WaitList helpers_waiting_{kSpinRounds + sim::kAtomicWaitSpinRounds};
  sim::WaitList owner_waiting_{sim::kAtomicWaitSpinRounds};
  std::atomic<uint64_t> generation_{0};  // the current run id; bumped once more at shutdown
  std::atomic<uint64_t> ticket_{0};
  std::atomic<const Body*> body_{nullptr};
  std::atomic<size_t> chunks_{0};
  std::atomic<size_t> done_{0};
  std::atomic<bool> stop_{false};
  std::mutex error_mu_;
  std::exception_ptr error_;  // written under error_mu_, read by the owner after all chunks are done
};

}  // namespace ccb::strife
