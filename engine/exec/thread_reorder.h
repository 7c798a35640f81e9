// Thread-aware batching and reordering on the online executor
// (--frontend=reorder): Ding et al., "Improving Optimistic Concurrency Control
// Through Transaction Batching and Operation Reordering", PVLDB 2018, §4.2
// "Reduce inter-thread conflicts" and §5.5 (the Cicada integration): "we
// batch transactions (4 x the number of threads) and assign the same number
// of transactions (4) to each thread"; there is no reordering across batches.
//
// Batch formation. Every worker pre-generates its buffer as usual. Batch b is
// made of the next 4 buffered requests of every worker (positions
// 4b .. 4b+3, the buffers read cyclically), so a batch holds exactly
// 4 x threads transactions. The thread-aware policy (Ding §4.2; the program
// hands it in, partitioners/reorder/thread_assign.h) then decides which
// thread runs which 4 of them, and in what order; a worker may thus run a
// request another worker generated (requests are immutable once generated).
//
// Planning ahead, no barrier. The batches are a fixed function of the
// buffers (batch b starts at position 4b mod --txn_buffer of every buffer),
// so they repeat after period() batches, and all of them are planned once,
// before the warm-up, once every worker has described its buffer
// (plan_all(), called by the executor's controller). The reordering is a
// pre-processing step (Ding §5.5), and the paper describes no
// synchronisation across batches: each worker then runs its part of batch
// 0, 1, 2, ... at its own pace, with no barrier; workers may drift apart by
// whole batches (stats: batch_spread). The planning is timed apart from the
// measured interval and reported as a rate (planned transactions per second
// of planning, as §5.5 sets reordering's speed against processing; under
// sim the policy's work in virtual time, docs/sim.md). Before
// (issue 45, item 5) every 4 transactions per worker all workers waited at a
// barrier for the slowest while the last to arrive planned the next batch.
//
// Thread safety: descs(tid) is written by worker tid before it reports ready;
// plan_all() runs on the controller after every worker is ready and before it
// releases them (the executor's start signal orders both); the plans are then
// read-only. finish(tid, ...) writes worker tid's own counters; stats() reads
// them after the workers joined.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "engine/core/clock.h"
#include "engine/core/sim_hooks.h"
#include "engine/core/txn_desc.h"

namespace ccb {

// The thread-aware assignment policy: per_thread[i] = the batch positions
// thread i runs, in order (floor(n / threads) each, one more for i < n %
// threads). The kernel names no policy: the program above passes one
// (rundb/run.h passes reorder::assign_to_threads).
using ThreadAssignFn = std::vector<std::vector<uint32_t>> (*)(std::span<const TxnDesc> batch, uint32_t threads);

// The planning's counters and the workers' progress (docs/results.md,
// frontend.reorder).
struct ThreadReorderStats {
  uint64_t batches = 0;     // distinct batches planned (period())
  uint64_t txns = 0;        // transactions assigned by the policy
  uint64_t reorder_ns = 0;  // time planning them, before the warm-up
  uint64_t measured_parts = 0;  // all workers' batch parts started in the measured interval
  uint64_t batch_spread = 0;    // at the end: the most batches one worker was ahead of another
  uint64_t workers = 0;
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
        period_(buffer_size_ / std::gcd<uint64_t>(buffer_size_, kPerThread)),
        assign_(assign),
        descs_(threads),
        progress_(threads) {}

  // Worker tid's predicted access sets, one per buffered request; filled by
  // tid before it reports ready.
  std::vector<TxnDesc>& descs(int tid) { return descs_[tid]; }
  const TxnDesc& desc(Slot s) const { return descs_[s.owner][s.index]; }

  // The batches repeat after this many: the cursor advances 4 positions of a
  // buffer of buffer_size per batch.
  uint64_t period() const { return period_; }

  // Plans every distinct batch. REQUIRES: every worker's descs are filled.
  void plan_all() {
    const uint64_t t0 = now_ns();
    const uint32_t threads = static_cast<uint32_t>(threads_);
    const uint32_t n = kPerThread * threads;
    std::vector<TxnDesc> batch(n);  // the policy's input, reused between batches
    std::vector<Slot> slots(n);     // batch position -> request
    plans_.assign(period() * n, Slot{});
    for (uint64_t b = 0; b < period(); ++b) {
      const uint64_t cursor = b * kPerThread % buffer_size_;
      for (uint32_t t = 0; t < threads; ++t) {
        for (uint32_t j = 0; j < kPerThread; ++j) {
          const Slot s{t, static_cast<uint32_t>((cursor + j) % buffer_size_)};
          slots[t * kPerThread + j] = s;
          batch[t * kPerThread + j] = desc(s);  // copy-assignment reuses the key vectors' storage
        }
      }
      const auto assignment = assign_(batch, threads);  // kPerThread positions per thread (n = 4 x threads)
      for (uint32_t t = 0; t < threads; ++t)
        for (uint32_t j = 0; j < kPerThread; ++j) plans_[(b * threads + t) * kPerThread + j] = slots[assignment[t][j]];
      // Under sim the policy charges its work (thread_assign.cc), so planning
      // every batch takes virtual time (0.1-0.2 s at 32 threads) while the
      // workers wait for the start: each planned batch is progress for the
      // stall watchdog, as a commit is.
      sim::committed();
    }
    stats_.batches = period();
    stats_.txns = period() * n;
    stats_.reorder_ns = now_ns() - t0;
  }

  // Worker tid's part of batch `batch` (counted from 0; cycles with
  // period()), in execution order. REQUIRES: plan_all() ran.
  std::span<const Slot> plan(int tid, uint64_t batch) const {
    const uint64_t b = batch % period();
    return {plans_.data() + (b * threads_ + tid) * kPerThread, kPerThread};
  }

  // Worker tid's progress at the end: the batch it was in, and how many batch
  // parts it started in the measured interval.
  void finish(int tid, uint64_t batch, uint64_t measured_parts) { progress_[tid] = {batch, measured_parts}; }

  // REQUIRES: the workers joined (each called finish()).
  ThreadReorderStats stats() const {
    ThreadReorderStats s = stats_;
    uint64_t lo = ~uint64_t{0}, hi = 0;
    for (const Progress& p : progress_) {
      s.measured_parts += p.measured_parts;
      lo = std::min(lo, p.batch);
      hi = std::max(hi, p.batch);
    }
    s.batch_spread = progress_.empty() ? 0 : hi - lo;
    s.workers = progress_.size();
    return s;
  }

 private:
  struct alignas(64) Progress {
    uint64_t batch = 0;
    uint64_t measured_parts = 0;
  };

  const int threads_;
  const uint64_t buffer_size_;
  const uint64_t period_;  // period(): derived once, read by plan() every 4 transactions
  const ThreadAssignFn assign_;
  std::vector<std::vector<TxnDesc>> descs_;
  std::vector<Slot> plans_;  // batch b, thread t: kPerThread slots at (b * threads + t) * kPerThread
  ThreadReorderStats stats_;
  std::vector<Progress> progress_;
};

}  // namespace ccb
