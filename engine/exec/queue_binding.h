// Queue binding: OLLP predictions that depend on a transaction's position in
// its CC-free queue, bound after the front-end has planned the batch (the
// bundle executor's analysis, engine/exec/bundle_coordinator.h, through
// engine/exec/bundle_batches.h).
//
// The reconnaissance (Strife §5.6.4) predicts each request's access set
// before the front-end plans, so a prediction that depends on which other
// transactions of the batch run before it can only assume the batch order
// (TPC-C's Delivery: the k-th Delivery of a warehouse in the batch delivers
// the k-th oldest undelivered order, workloads/tpcc/tpcc_reconnaissance.h).
// The plan then runs them in another order, or sends an earlier one to the
// residuals, which run after every queue (Strife §2; TSKD §6.1's residual set
// R), and the later ones find another order than predicted: re-planned in the
// next batch. Once the plan exists, a CC-free queue's order is fixed (it runs
// start to end on one worker, bundle_plan.h), so such a prediction is bound
// to the transaction's position in its queue instead.
//
// The bound prediction may name rows the plan did not see (a Delivery's
// customers). Each row it adds (a key, or a read turned into a write) is
// checked against the transactions of every other queue of the phase: the
// front-end's promise (Strife §2, "transactions in different CF clusters do
// not conflict"; TSKD §2, partitions run serially without CC) must still hold
// for the rows the transaction will touch. A transaction whose bound
// prediction conflicts with another queue keeps its planned request and
// description and moves to the residuals, where it runs under the protocol,
// as R holds every transaction in conflict with another partition (TSKD
// §6.1); it does not take its position, so the next one of its group binds
// to it. The check is conservative: rows a bound transaction no longer
// touches still count against the others (never a missed conflict).
// Queues that do not run in their order (TsDEFER picks the order, TSKD §5)
// and CC queues (their predictions are not checked) are not bound.
//
// Workload hooks (HasQueueBinding), all on the coordinator while no
// transaction runs:
//   begin_queue_binding()   a new queue: positions start again;
//   bind_in_queue(r)        gives r the prediction of the next position of its
//                           group in the queue without taking it; returns
//                           whether r's prediction changed (then it is
//                           described again);
//   accept_binding(r)       r takes that position (also when unchanged).
//
// Cost: nothing but the hooks and a request copy per queued transaction
// unless a prediction changes; the first added row of a table indexes that
// table's keys over all queues (O(A log A), A = the batch's accesses to it).
//
// Thread safety: bind_queues() runs on one thread, alone with the plan, the
// requests and the descriptions.
#pragma once

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/core/txn_desc.h"
#include "engine/exec/bundle_plan.h"
#include "engine/workload.h"  // HasQueueBinding

namespace ccb {

struct QueueBindingStats {
  uint64_t rebound = 0;  // transactions bound to a prediction other than their planned one
  uint64_t demoted = 0;  // transactions moved to the residuals instead (that prediction conflicts with another queue)
};

namespace queue_binding_detail {

// Keys of the queued transactions, per table on first use.
class KeyIndex {
 public:
  struct Entry {
    GlobalKey key;
    uint32_t txn;
    uint32_t queue;
    bool write;
    bool operator<(const Entry& o) const { return key < o.key; }
  };

  KeyIndex(const std::vector<const BundleQueue*>& queues, std::span<const TxnDesc> descs)
      : queues_(queues), descs_(descs) {}

  // Whether pred holds for an entry of `key` (its table indexed first if needed).
  template <class Pred>
  bool any_of(GlobalKey key, Pred&& pred) {
    const uint32_t table = table_of(key);
    if (!indexed_[table]) index(table);
    auto [lo, hi] = std::equal_range(entries_.begin(), entries_.end(), Entry{key, 0, 0, false});
    if (std::any_of(lo, hi, pred)) return true;
    auto [alo, ahi] = added_.equal_range(key);
    for (auto it = alo; it != ahi; ++it)
      if (pred(it->second)) return true;
    return false;
  }
  // A bound transaction's rows of an indexed table (tables indexed later are
  // indexed from the descriptions, which then hold them).
  void add(GlobalKey key, uint32_t txn, uint32_t queue, bool write) {
    if (indexed_[table_of(key)]) added_.emplace(key, Entry{key, txn, queue, write});
  }

 private:
  void index(uint32_t table) {
    indexed_[table] = true;
    for (uint32_t q = 0; q < queues_.size(); ++q)
      for (uint32_t t : queues_[q]->txns) {
        for (GlobalKey k : descs_[t].read_set)
          if (table_of(k) == table) entries_.push_back({k, t, q, false});
        for (GlobalKey k : descs_[t].write_set)
          if (table_of(k) == table) entries_.push_back({k, t, q, true});
      }
    std::stable_sort(entries_.begin(), entries_.end());
  }

  const std::vector<const BundleQueue*>& queues_;
  std::span<const TxnDesc> descs_;
  std::bitset<(1u << kTableIdBits)> indexed_;
  std::vector<Entry> entries_;  // sorted by key
  std::unordered_multimap<GlobalKey, Entry> added_;  // rows of bound predictions
};

// The rows `now` names that `planned` did not (as a write: not written before).
inline std::vector<std::pair<GlobalKey, bool>> added_rows(const TxnDesc& planned, const TxnDesc& now) {
  std::vector<std::pair<GlobalKey, bool>> out;
  auto has = [](const std::vector<GlobalKey>& sorted, GlobalKey k) {
    return std::binary_search(sorted.begin(), sorted.end(), k);
  };
  for (GlobalKey k : now.write_set)
    if (!has(planned.write_set, k)) out.emplace_back(k, true);
  for (GlobalKey k : now.read_set)
    if (!has(planned.read_set, k) && !has(planned.write_set, k)) out.emplace_back(k, false);
  return out;
}

}  // namespace queue_binding_detail

// Binds the predictions of the plan's CC-free queues to their positions (see
// the header). describe(request, index) describes a request with sorted key
// sets, as the batch's descriptions are. Demoted transactions are appended
// to plan.residuals.
// REQUIRES: `plan` is valid for the batch (bundle_plan.h); descs[i] describes
// requests[i].
template <class W, class Describe>
  requires HasQueueBinding<W>
QueueBindingStats bind_queues(W& w, BundlePlan& plan, std::span<typename W::Request> requests,
                              std::span<TxnDesc> descs, Describe&& describe) {
  QueueBindingStats stats;
  std::vector<const BundleQueue*> all;  // every queue of the phase: a bound row must not conflict with any
  std::vector<std::pair<BundleQueue*, uint32_t>> bound;  // the queues bound, with their index in `all`
  auto add = [&](BundleQueue& q, bool in_order) {
    if (in_order && q.mode == BundleQueue::Mode::kWithoutCC) bound.emplace_back(&q, static_cast<uint32_t>(all.size()));
    all.push_back(&q);
  };
  for (auto& qs : plan.per_thread)
    for (auto& q : qs) add(q, !plan.tsdefer_queues);
  for (auto& q : plan.worklist) add(q, true);
  if (bound.empty()) return stats;

  queue_binding_detail::KeyIndex index(all, descs);
  std::vector<uint8_t> demoted;  // by batch index, sized on the first demotion
  auto is_demoted = [&](uint32_t t) { return t < demoted.size() && demoted[t]; };
  auto conflicts = [&](uint32_t txn, uint32_t queue, const std::vector<std::pair<GlobalKey, bool>>& rows) {
    for (const auto& [key, write] : rows) {
      const bool w = write;
      if (index.any_of(key, [&](const queue_binding_detail::KeyIndex::Entry& e) {
            return e.queue != queue && e.txn != txn && (w || e.write) && !is_demoted(e.txn);
          }))
        return true;
    }
    return false;
  };
  for (auto& [queue, id] : bound) {
    w.begin_queue_binding();
    std::vector<uint32_t> kept;  // the queue without its demoted transactions
    kept.reserve(queue->txns.size());
    for (const uint32_t i : queue->txns) {
      typename W::Request r = requests[i];
      if (w.bind_in_queue(r)) {
        TxnDesc now = describe(r, i);
        const auto rows = queue_binding_detail::added_rows(descs[i], now);
        if (conflicts(i, id, rows)) {  // keeps its planned prediction, runs under the protocol
          if (demoted.empty()) demoted.assign(requests.size(), 0);
          demoted[i] = 1;
          plan.residuals.push_back(i);
          ++stats.demoted;
          continue;
        }
        for (const auto& [key, write] : rows) index.add(key, i, id, write);
        requests[i] = r;
        descs[i] = std::move(now);
        ++stats.rebound;
      }
      w.accept_binding(requests[i]);
      kept.push_back(i);
    }
    if (kept.size() != queue->txns.size()) queue->txns = std::move(kept);
  }
  return stats;
}

}  // namespace ccb
