// bin/middletier's batcher (middletier_main.cc; Ding et al. §5.6): forms the
// batches of modes batch and reorder from the SmallBank generator's requests
// and, in mode reorder, orders each batch as the validator does
// (partitioners/reorder: dependency graph over same-snapshot reads, FVS,
// commit order), carrying the FVS into the next batch.
//
// Thread safety: next() and finish() run in the clients' barrier's completion
// step (every client waits); take() is called by the clients concurrently
// between two barriers.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "engine/core/random.h"
#include "engine/core/txn_desc.h"
#include "partitioners/reorder/reorder.h"
#include "systems/middletier/options.h"
#include "workloads/smallbank/smallbank_generator.h"

namespace ccb::middletier {

using Clock = std::chrono::steady_clock;

// A request as the batcher holds it.
struct Request {
  SmallBankRequest r;
  Clock::time_point arrival;
  uint32_t carried = 0;  // batches this request was left out of (FVS)
};

// What the batcher did, over the whole run (the result's "reorder" object).
struct BatchStats {
  uint64_t batches = 0, txns = 0, fvs_total = 0, fvs_max = 0, edges_total = 0, carried_max = 0;
  uint64_t reorder_ns = 0;
};

// Forms the batches of modes batch and reorder; runs in the barrier's
// completion step, i.e. while every client waits (the batch is submitted
// only when it is complete and ordered).
class Batcher {
 public:
  Batcher(const Options& opt, const SmallBankGenerator& workload, uint64_t seed) : opt_(opt), workload_(workload), rng_(seed) {}

  void next() {
    batch_.swap(carry_);
    carry_.clear();
    const auto now = Clock::now();
    while (batch_.size() < opt_.batch_size) {
      Request q;
      workload_.generate(rng_, 0, q.r);
      q.arrival = now;
      batch_.push_back(q);
    }
    order_.resize(batch_.size());
    std::iota(order_.begin(), order_.end(), 0u);
    if (opt_.mode == Mode::kReorder) reorder_batch_();
    cursor.store(0, std::memory_order_relaxed);
  }

  // The k-th request to submit, or nullptr when the batch is used up.
  const Request* take() {
    const size_t k = cursor.fetch_add(1, std::memory_order_relaxed);
    return k < order_.size() ? &batch_[order_[k]] : nullptr;
  }
  void finish() { order_.clear(); }
  // Requests left out of the last batch: never committed, so in no latency.
  size_t carried() const { return carry_.size(); }

  BatchStats stats;
  std::atomic<size_t> cursor{0};

 private:
  // §5.6: the FVS of the batch's dependency graph (same-snapshot reads) is
  // carried into the next batch; the rest is submitted in commit order.
  void reorder_batch_() {
    const auto start = Clock::now();
    descs_.resize(batch_.size());
    for (size_t i = 0; i < batch_.size(); ++i) {
      descs_[i] = workload_.describe(batch_[i].r);
      descs_[i].id = i;
      descs_[i].restarts = batch_[i].carried;
    }
    const reorder::ReorderResult res = reorder::reorder_batch(descs_, {}, {}, opt_.reorder);
    order_ = res.commit_order;
    for (uint32_t i : res.abort_set) {
      Request q = batch_[i];
      ++q.carried;
      stats.carried_max = std::max<uint64_t>(stats.carried_max, q.carried);
      carry_.push_back(q);
    }
    stats.fvs_total += res.abort_set.size();
    stats.fvs_max = std::max<uint64_t>(stats.fvs_max, res.abort_set.size());
    stats.edges_total += res.graph_edges;
    stats.reorder_ns += static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
    ++stats.batches;
    stats.txns += batch_.size();
  }

  const Options& opt_;
  const SmallBankGenerator& workload_;
  Random rng_;
  std::vector<Request> batch_, carry_;
  std::vector<uint32_t> order_;
  std::vector<TxnDesc> descs_;
};

}  // namespace ccb::middletier
