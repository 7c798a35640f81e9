// The conflict-free check of the bundle executor's CC-free queues: in the
// recorded history, no transaction that ran without concurrency control
// (engine/exec/bundle_plan.h, BundleQueue::Mode::kWithoutCC) conflicts with a
// transaction of another queue of the same batch's queue phase. This is what
// the front-end promised (Strife §2: "transactions in different CF clusters
// do not conflict") and what makes running them without CC safe; the
// serializability checker alone would only catch the violations that
// happened to interleave badly.
//
// Two committed transactions conflict when one wrote a key the other read or
// wrote (history.h: an access wrote iff its prev_version is set).
//
// Thread safety: a pure function of its arguments.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/verify/checker.h"
#include "engine/verify/history.h"

namespace ccb::verify {

// Where one committed transaction of a queue phase ran: recorded by the
// executor for every transaction of the queue phase (CC queues included: a
// CC-free transaction must not conflict with them either).
struct QueueTag {
  uint64_t txn_id = 0;
  uint64_t batch = 0;   // batch sequence number
  uint64_t queue = 0;   // unique within the batch
  bool cc_free = false;
};

struct CfCheckResult {
  bool ok = true;
  uint64_t cc_free_txns = 0;  // tagged CC-free transactions found in the history
  std::string message;        // the first conflict found, naming both transactions and the key
};

inline CfCheckResult check_cc_free_queues(const History& h, const std::vector<QueueTag>& tags) {
  CfCheckResult r;
  std::unordered_map<uint64_t, size_t> txn_index;  // txn id -> History::txns index
  txn_index.reserve(h.txns.size());
  for (size_t i = 0; i < h.txns.size(); ++i) txn_index.emplace(h.txns[i].txn_id, i);

  // Per batch and key: one access per (queue, wrote) pair, so a key that
  // stays inside one queue costs at most two entries.
  struct Seen {
    uint64_t queue = 0;
    uint64_t txn = 0;
    bool cc_free = false;
    bool wrote = false;
  };
  std::unordered_map<uint64_t, std::unordered_map<GlobalKey, std::vector<Seen>>> by_batch;
  for (const QueueTag& tag : tags) {
    auto it = txn_index.find(tag.txn_id);
    if (it == txn_index.end()) continue;  // not in the history (e.g. recorded outside this run)
    if (tag.cc_free) ++r.cc_free_txns;
    auto& keys = by_batch[tag.batch];
    const TxnRecord& t = h.txns[it->second];
    for (uint64_t a = t.first_access; a < t.first_access + t.n_accesses; ++a) {
      const AccessRecord& acc = h.accesses[a];
      std::vector<Seen>& seen = keys[acc.key];
      bool known = false;
      for (const Seen& s : seen) known |= s.queue == tag.queue && s.wrote == acc.wrote();
      if (!known) seen.push_back(Seen{tag.queue, tag.txn_id, tag.cc_free, acc.wrote()});
    }
  }
  for (const auto& [batch, keys] : by_batch) {
    for (const auto& [key, seen] : keys) {
      for (const Seen& w : seen) {
        if (!w.wrote) continue;
        for (const Seen& x : seen) {
          // Written in one queue, accessed in another: a conflict between
          // queues, which matters only if one side ran without CC.
          if (x.queue == w.queue || (!w.cc_free && !x.cc_free)) continue;
          r.ok = false;
          r.message = "batch " + std::to_string(batch) + ": transactions " + std::to_string(w.txn) + " (queue " +
                      std::to_string(w.queue) + (w.cc_free ? ", no CC" : ", CC") + ", writes) and " +
                      std::to_string(x.txn) + " (queue " + std::to_string(x.queue) +
                      (x.cc_free ? ", no CC" : ", CC") + ") conflict on key " + key_to_string(key) +
                      " in the queue phase";
          return r;
        }
      }
    }
  }
  return r;
}

}  // namespace ccb::verify
