// The bundle executor's batches (bundle_executor.h, the overview): generated
// before the run and replayed in a cycle, each one's OLLP reconnaissance and
// queue binding (steps of its analysis, bundle_coordinator.h), and the
// requests whose prediction failed, carried into the next batch.
//
// Generation: ceil(--txn_buffer x threads / batch_size) distinct batches (at
// least one), replayed in a cycle, as the online executor replays its
// buffers. Transaction i of a batch is generated for client (worker) i mod
// threads, i.e. with the home warehouse / partition distribution of the
// online executor's workers [INF: the paper does not say how a batch spreads
// over clients; this keeps the comparison with the online executor like for
// like]. Each request is described once (the workload's describe(), key sets
// sorted).
//
// OLLP reconnaissance (a workload with HasReconnaissance, below) runs in
// parallel, as Strife folds it into its parallel prepare step (§5.6.4):
// chunks of the batch are reconnoitered on all the workers
// (BundleFrontend::for_chunks, engine/core/phase_team.h), and only the requests whose prediction changed
// are described again (a batch is replayed, so an unchanged prediction keeps
// the description of the previous replay). After the plan, predictions that
// depend on a transaction's position in its CC-free queue are bound to it (a
// workload with HasQueueBinding, engine/exec/queue_binding.h; TPC-C's
// Delivery); one that would then conflict with another queue moves to the
// residuals. A request whose prediction was wrong (RC::kPredictionMismatch)
// joins the next batch, and leaves it again when that batch has run.
//
// Thread safety: the coordinator's, but for reconnoiter()'s chunks, which
// run on the front-end's threads on distinct requests.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/config.h"
#include "engine/core/clock.h"
#include "engine/core/random.h"
#include "engine/core/txn_desc.h"
#include "engine/exec/bundle_plan.h"
#include "engine/exec/queue_binding.h"
#include "engine/workload.h"  // HasReconnaissance, HasBatchReconnaissance

namespace ccb {

// The workload's OLLP reconnaissance (HasReconnaissance,
// HasBatchReconnaissance: engine/workload.h; Strife §5.6.4) runs in each
// batch's analysis, concurrently on distinct requests (no transaction runs
// then). The procedure checks the prediction and returns
// RC::kPredictionMismatch if it was wrong; the executor then moves the
// request to the next batch.

// A batch of requests with their descriptions.
template <class W>
struct BundleBatch {
  std::vector<typename W::Request> requests;
  std::vector<TxnDesc> descs;  // ids 0..size-1, key sets sorted
};

template <class W>
class BundleBatches {
 public:
  // REQUIRES: batch_size >= 1; cfg and workload outlive this object.
  BundleBatches(const EngineConfig& cfg, W& workload, uint32_t batch_size)
      : cfg_(cfg), w_(workload), batch_size_(batch_size) {}

  void generate() {
    const uint64_t want = uint64_t{cfg_.txn_buffer} * static_cast<uint64_t>(cfg_.threads);
    const size_t count = std::max<uint64_t>(1, (want + batch_size_ - 1) / batch_size_);
    batches_.resize(count);
    for (size_t b = 0; b < count; ++b) {
      Random rng(seed_for(cfg_.seed, (uint64_t{1} << 32) + b));  // streams apart from the workers'
      BundleBatch<W>& batch = batches_[b];
      batch.requests.resize(batch_size_);
      batch.descs.reserve(batch_size_);
      for (uint32_t i = 0; i < batch_size_; ++i) {
        w_.generate(rng, i % static_cast<uint32_t>(cfg_.threads), batch.requests[i]);
        batch.descs.push_back(describe_sorted(batch.requests[i], i));
      }
    }
  }
  size_t distinct() const { return batches_.size(); }
  // The batch that runs as the run's seq-th.
  BundleBatch<W>& for_seq(uint64_t seq) { return batches_[seq % batches_.size()]; }

  // The requests whose prediction failed in the previous batch join `batch`.
  void add_deferred(BundleBatch<W>& batch) {
    for (const auto& r : deferred_) add_request(batch, r);
    deferred_.clear();
  }
  // After `batch` has run: the requests at `mismatches` wait for the next.
  void defer(const BundleBatch<W>& batch, std::span<const uint32_t> mismatches) {
    for (uint32_t i : mismatches) deferred_.push_back(batch.requests[i]);
  }
  // Drops the deferred requests that joined `batch`, once it has run.
  void trim(BundleBatch<W>& batch) const {
    batch.requests.resize(batch_size_);
    batch.descs.resize(batch_size_);
  }
  size_t deferred() const { return deferred_.size(); }

  // The batch's OLLP reconnaissance on the front-end's analysis threads
  // (the header); returns the ns it took, and in `redescribed_out` the
  // requests it described again.
  uint64_t reconnoiter(BundleBatch<W>& batch, BundleFrontend& frontend, uint64_t& redescribed_out) {
    if constexpr (!HasReconnaissance<W>) {
      return 0;
    } else {
      const uint64_t start = now_ns();
      if constexpr (HasBatchReconnaissance<W>)
        w_.begin_reconnaissance(std::span<typename W::Request>(batch.requests));
      std::atomic<uint64_t> redescribed{0};
      frontend.for_chunks(batch.requests.size(), [&](size_t begin, size_t end) {
        uint64_t n = 0;
        for (size_t i = begin; i < end; ++i) {
          if (!w_.reconnoiter(batch.requests[i])) continue;
          batch.descs[i] = describe_sorted(batch.requests[i], static_cast<uint32_t>(i));
          ++n;
        }
        redescribed.fetch_add(n, std::memory_order_relaxed);
      });
      redescribed_out = redescribed.load(std::memory_order_relaxed);
      return now_ns() - start;
    }
  }

  // Binds the plan's CC-free queues' position-dependent predictions
  // (engine/exec/queue_binding.h), after plan(): part of the analysis.
  QueueBindingStats bind_queue_positions(BundleBatch<W>& batch, BundlePlan& plan) {
    if constexpr (!HasQueueBinding<W>) {
      return {};
    } else {
      return bind_queues(w_, plan, std::span<typename W::Request>(batch.requests), std::span<TxnDesc>(batch.descs),
                         [&](const typename W::Request& r, uint32_t i) { return describe_sorted(r, i); });
    }
  }

 private:
  TxnDesc describe_sorted(const typename W::Request& r, uint32_t index) const {
    TxnDesc d = w_.describe(r);
    d.id = index;
    std::sort(d.read_set.begin(), d.read_set.end());
    std::sort(d.write_set.begin(), d.write_set.end());
    return d;
  }
  void add_request(BundleBatch<W>& batch, const typename W::Request& r) {
    batch.requests.push_back(r);
    batch.descs.push_back(describe_sorted(r, static_cast<uint32_t>(batch.requests.size() - 1)));
  }

  const EngineConfig& cfg_;
  W& w_;
  const uint32_t batch_size_;
  std::vector<BundleBatch<W>> batches_;
  std::vector<typename W::Request> deferred_;  // prediction mismatches for the next batch
};

}  // namespace ccb
