// Thread-aware batching and reordering on the online executor
// (--frontend=reorder): Ding et al., "Improving Optimistic Concurrency Control
// Through Transaction Batching and Operation Reordering", PVLDB 2018, §4.2
// "Reduce inter-thread conflicts" and §5.5 (the Cicada integration): "we
// batch transactions (4 x the number of threads) and assign the same number
// of transactions (4) to each thread"; there is no reordering across batches.
//
// Batch formation. Every worker pre-generates its buffer as usual. Batch b is
// made of the next 4 buffered requests of every worker (positions
// 4*tid .. 4*tid+3, the buffers read cyclically), so a batch holds exactly
// 4 x threads transactions. The thread-aware policy (Ding §4.2; the program
// hands it in, partitioners/reorder/thread_assign.h) then decides which
// thread runs which 4 of them, and in what order; a worker may thus run a
// request another worker generated (requests are immutable once generated).
//
// Synchronisation: one barrier per batch. A worker that has run its 4
// transactions (retrying aborts as usual) arrives at the barrier; the
// completion step, run by the last worker to arrive while the others wait,
// plans the next batch. The barrier spins (then yields): batches are a few
// microseconds long, and std::barrier's futex sleep measured ~0.7 ms of wait
// per transaction on a loaded 2-core machine, which would make the batching,
// not the reordering, the experiment. So batches never mix, and planning
// needs no lock and no coordinator thread (the reordering is a pre-processing
// step of the decentralized engine, §5.5). Its costs are measured in the
// measured interval: the completion step's time (reorder_ns: batch copy,
// policy, plan) and each worker's wait at the barrier (wait_ns: the
// straggler's tail plus the completion step). A worker leaving mid-batch when
// the run ends drops out of the barrier (leave()) so the others are
// not left waiting.
//
// Thread safety: descs(tid) is written by worker tid before its first
// next_batch(); plan() and slot data are written only by the completion step
// and read by the workers after the barrier released them (the barrier orders
// both). set_measuring/request_stop are called by the main thread.
#pragma once

#include <sched.h>

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/cc/protocol.h"  // cpu_relax
#include "engine/core/clock.h"
#include "engine/core/txn_desc.h"

namespace ccb {

// The thread-aware assignment policy: per_thread[i] = the batch positions
// thread i runs, in order (floor(n / threads) each, one more for i < n %
// threads). The kernel names no policy: the program above passes one
// (rundb/run.h passes reorder::assign_to_threads).
using ThreadAssignFn = std::vector<std::vector<uint32_t>> (*)(std::span<const TxnDesc> batch, uint32_t threads);

// Measured-interval counters (docs/results.md, frontend.reorder).
struct ThreadReorderStats {
  uint64_t batches = 0;     // batches planned
  uint64_t txns = 0;        // transactions assigned by the policy
  uint64_t reorder_ns = 0;  // time in the reordering step
  uint64_t wait_ns = 0;     // all workers' time waiting at the batch barrier
};

class ThreadReorder {
 public:
  static constexpr uint32_t kPerThread = 4;  // §5.5: 4 per thread, batch = 4 x threads

  struct Slot {
    uint32_t owner;  // the worker whose buffer holds the request
    uint32_t index;  // its position in that buffer
  };

  // REQUIRES: threads >= 1, buffer_size >= 1, assign != nullptr.
  ThreadReorder(int threads, uint32_t buffer_size, ThreadAssignFn assign)
      : threads_(threads),
        buffer_size_(buffer_size),
        assign_(assign),
        descs_(threads),
        plan_(threads),
        wait_ns_(threads),
        live_(threads),
        remaining_(threads) {}

  // Worker tid's predicted access sets, one per buffered request; filled by
  // tid before its first next_batch().
  std::vector<TxnDesc>& descs(int tid) { return descs_[tid]; }
  const TxnDesc& desc(Slot s) const { return descs_[s.owner][s.index]; }

  // Worker tid's transactions of the current batch, in execution order.
  std::span<const Slot> plan(int tid) const { return plan_[tid]; }

  // Worker tid is done with its part of the batch: waits for the others and
  // the next batch's plan. Returns false when the run is over.
  bool next_batch(int tid, bool measuring) {
    const uint64_t t0 = measuring ? now_ns() : 0;
    arrive(false);
    if (measuring) wait_ns_[tid].ns += now_ns() - t0;
    return !stopped_;
  }
  // Worker leaves mid-batch (the run ended during its retries).
  void leave() { arrive(true); }

  void set_measuring() { measuring_.store(true, std::memory_order_release); }
  // Before the executor's phase becomes "done": the next completion step ends
  // the run instead of planning a batch.
  void request_stop() { stop_requested_.store(true, std::memory_order_release); }

  // REQUIRES: the workers joined.
  ThreadReorderStats stats() const {
    ThreadReorderStats s = stats_;
    for (const auto& w : wait_ns_) s.wait_ns += w.ns;
    return s;
  }

 private:
  // Arrives at the batch barrier; the last arrival plans the next batch. A
  // dropping worker counts as arrived now and is not expected again: it
  // leaves live_ before arriving, so the last arrival (which resets the
  // count) already sees it gone.
  void arrive(bool drop) {
    const uint64_t gen = generation_.load(std::memory_order_acquire);
    if (drop) live_.fetch_sub(1, std::memory_order_relaxed);
    if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) {  // the others' writes happen-before this
      plan_next_batch();
      remaining_.store(live_.load(std::memory_order_relaxed), std::memory_order_relaxed);
      generation_.store(gen + 1, std::memory_order_release);
      return;
    }
    if (drop) return;
    // Spin a little (the straggler is usually a transaction away), then yield
    // the core to it (oversubscribed machines). Under sim every round is a
    // spin round of the virtual core (cpu_relax hands the OS thread over).
    for (uint32_t spins = 0; generation_.load(std::memory_order_acquire) == gen; ++spins) {
      if (kSimBuild || spins < 2048) cpu_relax();
      else sched_yield();
    }
  }

  // The barrier's completion step: all workers are waiting.
  void plan_next_batch() noexcept {
    if (stop_requested_.load(std::memory_order_acquire)) {
      stopped_ = true;
      return;
    }
    const bool measuring = measuring_.load(std::memory_order_acquire);
    const uint64_t t0 = measuring ? now_ns() : 0;
    const uint32_t n = kPerThread * static_cast<uint32_t>(threads_);
    batch_.resize(n);
    slots_.resize(n);
    for (uint32_t t = 0; t < static_cast<uint32_t>(threads_); ++t) {
      for (uint32_t j = 0; j < kPerThread; ++j) {
        const Slot s{t, static_cast<uint32_t>((cursor_ + j) % buffer_size_)};
        slots_[t * kPerThread + j] = s;
        batch_[t * kPerThread + j] = desc(s);  // copy-assignment reuses the key vectors' storage
      }
    }
    cursor_ = (cursor_ + kPerThread) % buffer_size_;
    const auto assignment = assign_(batch_, static_cast<uint32_t>(threads_));
    for (int t = 0; t < threads_; ++t) {
      plan_[t].clear();
      for (uint32_t pos : assignment[t]) plan_[t].push_back(slots_[pos]);
    }
    if (measuring) {
      stats_.reorder_ns += now_ns() - t0;
      ++stats_.batches;
      stats_.txns += n;
    }
  }

  struct alignas(64) WaitNs {
    uint64_t ns = 0;
  };

  const int threads_;
  const uint32_t buffer_size_;
  const ThreadAssignFn assign_;
  std::vector<std::vector<TxnDesc>> descs_;
  std::vector<std::vector<Slot>> plan_;
  std::vector<TxnDesc> batch_;  // the policy's input, reused between batches
  std::vector<Slot> slots_;     // batch position -> request
  uint64_t cursor_ = 0;         // the next batch's first buffer index (every worker's)
  bool stopped_ = false;
  ThreadReorderStats stats_;
  std::vector<WaitNs> wait_ns_;
  std::atomic<bool> measuring_{false};
  std::atomic<bool> stop_requested_{false};
  alignas(64) std::atomic<int> live_;       // workers still taking part
  alignas(64) std::atomic<int> remaining_;  // arrivals still awaited in this batch
  alignas(64) std::atomic<uint64_t> generation_{0};  // batches released
};

}  // namespace ccb
