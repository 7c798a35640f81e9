// What the bundle executor's coordinator (bundle_coordinator.h) hands its
// workers (bundle_worker.h) for each batch: the batch and its plan, the
// tickets by which the workers claim the shared worklist's queues and the
// residuals, TsDEFER's lanes, whether the batch is measured or costs are
// recorded, and the phase barrier that separates the analysis, the queue
// phase and the residual phase (bundle_executor.h, the overview).
//
// The barrier has the workers and the coordinator as participants; its
// completion step runs once per phase, on one thread, while every other
// participant is blocked, so it may write the phase's end time. Under sim
// (engine/core/sim_sync.h) it is sim::FiberBarrier (a waiting fiber parks: no spin
// rounds, however long the analysis), std::barrier natively.
//
// Thread safety: the coordinator writes everything but the tickets, exec_ns
// and the TsDEFER instances' per-thread state before the barrier that starts
// a batch's queue phase; the workers read it after (the barrier orders
// them). The tickets are atomics; exec_ns[i] is written by the worker that
// ran transaction i; TsDEFER's per-thread state is its worker's
// (engine/exec/tsdefer.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/core/clock.h"
#include "engine/core/sim_sync.h"
#include "engine/exec/bundle_batches.h"
#include "engine/exec/bundle_plan.h"
#include "engine/exec/tsdefer.h"

namespace ccb {

template <class W>
struct BundleRound {
  // REQUIRES: threads >= 1, the workers that take part in the barrier.
  explicit BundleRound(int threads) : barrier(threads + 1, PhaseEnd{this}) {}

  BundlePlan plan;
  const BundleBatch<W>* batch = nullptr;
  uint64_t seq = 0;               // the batch's sequence number in the run (QueueTag::batch)
  uint64_t start_ns = 0;          // the start of the batch's analysis: its transactions' latency starts here
  uint64_t measure_start_ns = 0;  // the first measured batch's start (--timeline)
  bool measuring = false;
  bool stop = false;              // the run is over: the workers leave at the next barrier
  std::atomic<size_t> worklist_next{0};  // the next worklist queue to claim
  std::atomic<size_t> residual_next{0};  // the next residual to claim (neither round robin nor TsDEFER)
  bool record_costs = false;       // time each committing attempt into exec_ns
  std::vector<uint64_t> exec_ns;   // per batch index

  // TsDEFER of the queue phase and of the residual phase, where the front-end
  // offers it, and their lanes (lane id -> batch index, per worker).
  std::unique_ptr<TsDefer> tsdefer_q, tsdefer_r;
  std::vector<std::vector<uint32_t>> lanes_q, lanes_r;

  // The barrier's completion step: timestamps the end of each phase.
  struct PhaseEnd {
    BundleRound* self;
    void operator()() noexcept { self->phase_end_ns[self->phase_step++ % 3] = now_ns(); }
  };
  uint64_t phase_step = 0;     // barrier completions so far
  uint64_t phase_end_ns[3]{};  // [0] batch start, [1] queue phase end, [2] residual phase end
  sim::Barrier<PhaseEnd> barrier;  // std::barrier natively
};

}  // namespace ccb
