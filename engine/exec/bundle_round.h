// What the bundle executor's coordinator (bundle_coordinator.h) hands its
// workers (bundle_worker.h) for each batch: the batch and its plan, the
// tickets by which the workers claim the shared worklist's queues and the
// residuals, TsDEFER's lanes, whether the batch is measured or costs are
// recorded, the workers as the analysis's team, and the barrier that ends
// the queue phase and the residual phase (bundle_executor.h, the overview).
//
// The team (engine/core/phase_team.h) is the n workers: worker 0 leads the
// analysis (it coordinates), the others serve its parallel loops, and its
// release() starts the queue phase. The barrier has the n workers as
// participants; its completion step runs once per phase, on one thread,
// while every other participant waits, so it may write the phase's end
// time. Both spin (PhaseBarrier; under sim a waiting fiber parks as a poll
// that never sleeps: no spin rounds, however long the phase).
//
// Thread safety: the coordinator (worker 0) writes everything but the
// tickets, exec_ns and the TsDEFER instances' per-thread state before the
// release that starts a batch's queue phase; the workers read it after (the
// release orders them). The tickets are atomics; exec_ns[i] is written by the worker that
// ran transaction i; TsDEFER's per-thread state is its worker's
// (engine/exec/tsdefer.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/core/clock.h"
#include "engine/core/phase_team.h"
#include "engine/exec/bundle_batches.h"
#include "engine/exec/bundle_plan.h"
#include "engine/exec/tsdefer.h"

namespace ccb {

template <class W>
struct BundleRound {
  // REQUIRES: threads >= 1, the workers (the team and the barrier's participants).
  explicit BundleRound(int threads) : team(threads), barrier(threads, PhaseEnd{this}) {}

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
    void operator()() noexcept { self->phase_end_ns[self->phase_step++ % 2] = now_ns(); }
  };
  uint64_t phase_step = 0;     // barrier completions so far
  uint64_t phase_end_ns[2]{};  // [0] queue phase end, [1] residual phase end
  PhaseTeam team;
  PhaseBarrier<PhaseEnd> barrier;
};

}  // namespace ccb
