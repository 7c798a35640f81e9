// Engine<P>::run() (engine.h; engine.h includes this file after the class):
// start the components' threads (storage workers, the validator or its
// stages, the processor, the clients), sample the queue lengths once a
// millisecond through the measured window, stop (the clients stop issuing,
// the processor drains the validator and stops the rest through their
// queues, engine.h "Shutdown"), then collect each thread's counters into the
// PipelineResult (result.h) and check the store and the transaction
// accounting.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "systems/pipeline/engine.h"

namespace ccb::pipeline {

// ---------------------------------------------------------------- run

template <class P>
PipelineResult Engine<P>::run() {
  const uint32_t C = opt_.clients, W = opt_.storage_workers;
  const bool vbatch = validator_batching(opt_.mode), vreorder = validator_reordering(opt_.mode);
  const uint32_t R = vreorder ? opt_.reorder_workers : 0;
  proc_q_.set_capacity(static_cast<std::ptrdiff_t>(opt_.concurrency) * (2 + W) + 16);
  for (uint32_t c = 0; c < C; ++c) {
    reply_q_.emplace_back(std::make_unique<tbb::concurrent_bounded_queue<Txn*>>());
    reply_q_.back()->set_capacity(opt_.concurrency + 1);
  }
  for (uint32_t w = 0; w < W; ++w) {
    store_q_.emplace_back(std::make_unique<tbb::concurrent_bounded_queue<StoreMsg>>());
    store_q_.back()->set_capacity(4 * static_cast<std::ptrdiff_t>(opt_.concurrency));
  }
  validator_q_.set_capacity(opt_.concurrency + 1);
  reorder_q_.set_capacity(2 * std::max<uint32_t>(R, 1) + 1);
  validation_q_.set_capacity(2 * std::max<uint32_t>(R, 1) + 2);
  for (uint32_t i = 0; i < opt_.concurrency; ++i) txns_.emplace_back(std::make_unique<Txn>());
  client_latency_.resize(C);
  client_commits_.assign(C, 0), client_restarts_.assign(C, 0), client_issued_.assign(C, 0);
  client_replies_.assign(C, 0), client_busy_.assign(C, 0);
  storage_busy_.assign(W, 0), storage_batches_.assign(W, 0);
  reorder_stats_.assign(R, {});

  std::vector<std::thread> threads;
  const uint64_t t0 = now_ns();
  for (uint32_t w = 0; w < W; ++w) threads.emplace_back([this, w] { storage_loop(w); });
  if (vbatch) {
    threads.emplace_back([this] { prep_loop(); });
    for (uint32_t r = 0; r < R; ++r) threads.emplace_back([this, r] { reorder_loop(r); });
    threads.emplace_back([this] { validation_loop(); });
  } else {
    threads.emplace_back([this] { validator_loop(); });
  }
  threads.emplace_back([this] { processor_loop(); });
  for (uint32_t c = 0; c < C; ++c) {
    const uint32_t quota = opt_.concurrency / C + (c < opt_.concurrency % C);
    threads.emplace_back([this, c, quota] { client_loop(c, quota); });
  }

  PipelineResult res;
  res.threads = static_cast<int>(threads.size());
  auto sleep_until = [](uint64_t t) {
    const uint64_t now = now_ns();
    if (t > now) std::this_thread::sleep_for(std::chrono::nanoseconds(t - now));
  };
  const uint64_t ws = t0 + static_cast<uint64_t>(opt_.warmup_s * 1e9);
  const uint64_t we = ws + static_cast<uint64_t>(opt_.duration_s * 1e9);
  window_end_.store(we, std::memory_order_release);
  window_start_.store(ws, std::memory_order_release);
  sleep_until(ws);
  while (now_ns() < we) {  // queue lengths, once a millisecond
    res.q_processor.add(proc_q_.size());
    for (auto& q : store_q_) res.q_storage.add(q->size());
    res.q_validator.add(validator_q_.size());
    if (vreorder) res.q_reorder.add(reorder_q_.size());
    if (vbatch) res.q_validation.add(validation_q_.size());
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  sleep_until(we);
  stop_.store(true, std::memory_order_release);
  proc_q_.push({ProcKind::kWake, nullptr});
  for (auto& th : threads) th.join();
  res.run_s = static_cast<double>(now_ns() - t0) / 1e9;
  res.measured_s = opt_.duration_s;

  for (uint32_t c = 0; c < C; ++c) {
    res.latency.merge(client_latency_[c]);
    res.commits += client_commits_[c], res.restarts += client_restarts_[c];
    res.issued += client_issued_[c], res.client_replies += client_replies_[c];
  }
  for (size_t r = 0; r < static_cast<size_t>(AbortReason::kCount); ++r) res.aborts_by_reason[r] = aborts_[r];
  res.client_busy_ns = client_busy_;
  res.processor_busy_ns = processor_busy_;
  res.storage_busy_ns = storage_busy_;
  for (uint64_t b : storage_batches_) res.storage_batches += b;
  res.validator_busy_ns = validator_busy_, res.prep_busy_ns = prep_busy_, res.validation_busy_ns = validation_busy_;
  res.validator_batches = validator_batches_;
  for (const ReorderStats& s : reorder_stats_) {
    res.reorder.merge(s);
    res.reorder_busy_ns.push_back(s.busy_ns);
  }
  res.processor_commits = processor_commits_, res.duplicate_commits = duplicate_commits_;
  res.validator_commits = last_ts_;
  res.abandoned = res.issued - res.client_replies;
  res.all_aborts = all_aborts_;

  // Invariants: the workload's own on the final store, every object holding
  // its last committed write, and no transaction lost or committed twice.
  StoreImage image;
  uint64_t stale = 0, objects = 0;
  for (const auto& part : partitions_) {
    part->for_each([&](GlobalKey k, const StoredObject& o) {
      image[k] = o.value;
      ++objects;
      if (o.version != cache_.latest(k)) ++stale;
    });
  }
  res.invariants = proc_.check_invariants(image);
  res.invariants.push_back({"pipeline_store_versions", stale == 0,
                            std::to_string(stale) + " of " + std::to_string(objects) +
                                " objects do not hold the validator's latest committed version"});
  const bool accounted = res.duplicate_commits == 0 && res.processor_commits == res.validator_commits &&
                         res.client_replies == res.processor_commits && res.abandoned <= opt_.concurrency;
  res.invariants.push_back({"pipeline_txn_accounting", accounted,
                            "issued " + std::to_string(res.issued) + ", validator commits " +
                                std::to_string(res.validator_commits) + ", processor commits " +
                                std::to_string(res.processor_commits) + ", client commit replies " +
                                std::to_string(res.client_replies) + ", committed twice " +
                                std::to_string(res.duplicate_commits) + ", abandoned in flight " +
                                std::to_string(res.abandoned) + " (<= " + std::to_string(opt_.concurrency) + ")"});
  res.history = std::move(history_);
  return res;
}

}  // namespace ccb::pipeline
