// The pipeline engine's validators (engine.h), as member definitions of
// Engine<P>; engine.h includes this file after the class.
//
//   unbatched (modes base, sr): validator_loop, one transaction at a time,
//     backward validation against the cache of committed writes;
//   batched (batch, vc, srvc): the parallel validator of Ding et al. §4.3 Fig
//     19, three stages each working on a different batch: prep_loop (batch
//     preparation and pre-validation against a possibly stale state S),
//     reorder_loop (1-4 workers: dependency graph, FVS, commit order;
//     batches leave in any order), validation_loop / validate_batch (final
//     validation in the commit order against the current state S', the
//     cache update in serialization order, then the decisions);
//   record_commit: the history of a commit, with --verify.
//
// Thread safety: the validator (or, batched, the validation stage) is the
// only writer of the cache and of last_ts_; the batch stages hand batches
// over through their queues.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "systems/pipeline/engine.h"

namespace ccb::pipeline {

// ---------------------------------------------------------------- validator

template <class P>
template <class Current>
void Engine<P>::record_commit(Txn* t, uint64_t ts, const Current& current) {
  t->commit_ts = ts;
  if (!opt_.verify) return;
  const auto& writes = t->desc.write_set;
  history_.begin_txn(ts);
  for (const reorder::ReadVersion& r : t->observed) {
    const bool written = std::find(writes.begin(), writes.end(), r.key) != writes.end();
    history_.add(r.key, r.version, written ? current(r.key) : verify::kNotRead);
  }
  for (GlobalKey k : writes) {
    const bool read = std::any_of(t->observed.begin(), t->observed.end(),
                                  [&](const reorder::ReadVersion& r) { return r.key == k; });
    if (!read) history_.add(k, verify::kNotRead, current(k));
  }
}

template <class P>
void Engine<P>::validator_loop() {
  uint64_t busy = 0;
  while (true) {
    Txn* t = nullptr;
    validator_q_.pop(t);
    if (t == nullptr) break;
    const uint64_t start = now_ns();
    if (read_conflicts(t->observed, cache_)) {
      count_abort(AbortReason::kValidation);
      proc_q_.push({ProcKind::kAbort, t});
    } else {
      record_commit(t, ++last_ts_, [this](GlobalKey k) { return cache_.latest(k); });
      for (GlobalKey k : t->desc.write_set) cache_.publish(k, t->commit_ts);
      proc_q_.push({ProcKind::kCommit, t});
    }
    busy += now_ns() - start;
  }
  validator_busy_ = busy;
}

template <class P>
void Engine<P>::prep_loop() {
  const bool reorder = validator_reordering(opt_.mode);
  uint64_t busy = 0;
  std::vector<Txn*> arrived;
  bool stop = false;
  while (!stop) {
    arrived.clear();
    arrived.push_back(nullptr);
    validator_q_.pop(arrived.back());
    fill_batch(validator_q_, arrived, opt_.batch_size, [](Txn* t) { return t == nullptr; });
    const uint64_t start = now_ns();
    if (arrived.back() == nullptr) {
      stop = true;
      arrived.pop_back();
    }
    if (!arrived.empty()) {
      auto* b = new Batch;
      b->reordered = reorder;
      for (Txn* t : arrived) {
        b->txns.push_back(t);
        b->descs.push_back(std::move(t->desc));
        b->reads.push_back(std::move(t->observed));
      }
      if (reorder) {
        // Pre-validation against the current, possibly stale, state S (§4.3).
        b->viable = reorder::prevalidate(std::span<const reorder::ObservedReads>(b->reads),
                                         [this](GlobalKey k) { return cache_.latest(k); });
        reorder_q_.push(b);
      } else {
        validation_q_.push(b);
      }
    }
    busy += now_ns() - start;
  }
  prep_busy_ = busy;
  const uint32_t consumers = reorder ? opt_.reorder_workers : 0;
  for (uint32_t i = 0; i < consumers; ++i) reorder_q_.push(nullptr);
  if (!reorder) validation_q_.push(nullptr);
}

template <class P>
void Engine<P>::reorder_loop(uint32_t r) {
  ReorderStats& s = reorder_stats_[r];
  while (true) {
    Batch* b = nullptr;
    reorder_q_.pop(b);
    if (b == nullptr) break;
    const uint64_t start = now_ns();
    b->result = reorder::reorder_batch(b->descs, b->reads, b->viable, opt_.reorder);
    s.busy_ns += now_ns() - start;
    ++s.batches;
    s.txns += b->txns.size();
    s.edge_limit_hits += b->result.edge_limit_hit;
    s.fvs_total += b->result.abort_set.size();
    s.fvs_max = std::max<uint64_t>(s.fvs_max, b->result.abort_set.size());
    s.nodes_total += b->result.graph_nodes;
    s.edges_total += b->result.graph_edges;
    s.nonviable_total += b->result.nonviable.size();
    if (opt_.on_reorder) opt_.on_reorder(b->result);
    validation_q_.push(b);  // batches reach validation in any order (§4.3)
  }
  validation_q_.push(nullptr);
}

template <class P>
void Engine<P>::validate_batch(Batch& b) {
  const size_t n = b.txns.size();
  std::vector<BatchMember> members(n);
  for (size_t i = 0; i < n; ++i) {  // the transactions get their desc and reads back
    Txn* t = b.txns[i];
    t->desc = std::move(b.descs[i]);
    t->observed = std::move(b.reads[i]);
    members[i] = {t->observed, t->desc.write_set};
  }
  std::vector<uint32_t> order;
  if (b.reordered) {
    for (size_t i = 0; i < b.result.nonviable.size(); ++i) count_abort(AbortReason::kPrevalidation);
    for (size_t i = 0; i < b.result.abort_set.size(); ++i) count_abort(AbortReason::kFvs);
    order = b.result.commit_order;
  } else {
    for (uint32_t i = 0; i < n; ++i) order.push_back(i);  // arrival order
  }
  const bool mutant = opt_.mutation == Mutation::kReverseCommitOrder;
  if (mutant) std::reverse(order.begin(), order.end());
  const std::vector<uint64_t> ts = validate_ordered_batch(
      cache_, members, order, last_ts_, !mutant,
      [&](uint32_t i, uint64_t commit_ts, const auto& current) { record_commit(b.txns[i], commit_ts, current); });
  // The decisions, after the cache update: commits in serialization order,
  // then the aborts (final validation, pre-validation, FVS).
  for (uint32_t i : order) {
    if (ts[i]) proc_q_.push({ProcKind::kCommit, b.txns[i]});
  }
  const size_t final_aborts = order.size() - static_cast<size_t>(std::count_if(ts.begin(), ts.end(), [](uint64_t x) { return x != 0; }));
  for (size_t i = 0; i < final_aborts; ++i) count_abort(AbortReason::kFinalValidation);
  for (size_t i = 0; i < n; ++i) {
    if (!ts[i]) proc_q_.push({ProcKind::kAbort, b.txns[i]});
  }
}

template <class P>
void Engine<P>::validation_loop() {
  uint32_t producers = validator_reordering(opt_.mode) ? opt_.reorder_workers : 1;
  uint64_t busy = 0, batches = 0;
  while (producers > 0) {
    Batch* b = nullptr;
    validation_q_.pop(b);
    if (b == nullptr) {
      --producers;
      continue;
    }
    const uint64_t start = now_ns();
    validate_batch(*b);
    delete b;
    ++batches;
    busy += now_ns() - start;
  }
  validation_busy_ = busy, validator_batches_ = batches;
}

}  // namespace ccb::pipeline
