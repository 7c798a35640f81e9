// The central validator's cache and its conflict rule (Ding, Kot, Gehrke,
// PVLDB 2018, §2 and §5 setup).
//
// Backward validation: a validation request carries "the keys and versions of
// its reads and the keys of its writes". The validator caches the write keys of
// committed transactions "until these writes are overwritten by later
// updates": per key, only the latest committed version (a commit timestamp)
// is kept, since a later write supersedes every earlier one for this rule.
// A read of version k of X conflicts iff some committed T(i) with k < i wrote
// X, i.e. iff the cache's latest version of X is greater than k.
//
// Thread safety: latest() may run concurrently with publish() from any number
// of threads (the parallel validator's batch preparation pre-validates against
// a possibly stale state while the validation stage publishes, §4.3). Each key
// has one publisher at a time (the single validation stage), so versions of a
// key only grow.
#pragma once

#include <tbb/concurrent_unordered_map.h>

#include <atomic>
#include <cstdint>
#include <span>
#include <tuple>
#include <unordered_map>
#include <vector>
#include <utility>

#include "engine/core/txn_desc.h"
#include "partitioners/reorder/graph.h"

namespace ccb::pipeline {

class ValidatorCache {
 public:
  // The latest committed version of key; 0 (the initial load) if never written.
  uint64_t latest(GlobalKey key) const {
    const auto it = versions_.find(key);
    return it == versions_.end() ? 0 : it->second.load(std::memory_order_acquire);
  }
  // Records that the transaction with commit timestamp ts wrote key.
  // REQUIRES: ts > latest(key); one publisher per key at a time.
  void publish(GlobalKey key, uint64_t ts) {
    auto it = versions_.find(key);
    if (it == versions_.end()) {
      it = versions_.emplace(std::piecewise_construct, std::forward_as_tuple(key), std::forward_as_tuple(0)).first;
    }
    it->second.store(ts, std::memory_order_release);
  }
  size_t size() const { return versions_.size(); }

 private:
  // Node-based: an entry never moves, so its atomic can be read while other
  // keys are inserted.
  tbb::concurrent_unordered_map<GlobalKey, std::atomic<uint64_t>> versions_;
};

// The conflict rule (§2): true when a read meets a later committed write.
inline bool read_conflicts(std::span<const reorder::ReadVersion> reads, const ValidatorCache& cache) {
  for (const reorder::ReadVersion& r : reads) {
    if (cache.latest(r.key) > r.version) return true;
  }
  return false;
}

}  // namespace ccb::pipeline

namespace ccb::pipeline {

// One transaction of an ordered validator batch, as the final validation sees it.
struct BatchMember {
  std::span<const reorder::ReadVersion> reads;
  std::span<const GlobalKey> writes;
};

// Final validation and commit of one ordered batch (§4.3, Fig 19): the
// members are validated in `order` against the current state S' (the cache)
// and against the writes committed earlier in this batch, which reach the
// cache only at the batch's end; a member that read a key such a write
// overwrote aborts. Each committed member gets the next timestamp
// (++last_ts); on_commit(position, ts, current) is called at once, where
// current(key) is the latest version in serialization order (the batch's own
// commits first, then the cache). After the batch, the cache is updated in
// serialization order. Returns, per batch position, its commit timestamp or
// 0 (aborted, or not in `order`).
// check_batch_writes = false is the planted bug of Mutation::kReverseCommitOrder.
// REQUIRES: called by the single validation stage (the only cache publisher).
template <class OnCommit>
std::vector<uint64_t> validate_ordered_batch(ValidatorCache& cache, std::span<const BatchMember> members,
                                             std::span<const uint32_t> order, uint64_t& last_ts,
                                             bool check_batch_writes, OnCommit&& on_commit) {
  std::vector<uint64_t> ts(members.size(), 0);
  std::unordered_map<GlobalKey, uint64_t> batch_writes;  // key -> timestamp of its last commit in this batch
  auto current = [&](GlobalKey k) {
    const auto it = batch_writes.find(k);
    return it != batch_writes.end() ? it->second : cache.latest(k);
  };
  std::vector<uint32_t> committed;
  for (uint32_t i : order) {
    const BatchMember& m = members[i];
    bool ok = !read_conflicts(m.reads, cache);
    if (ok && check_batch_writes) {
      for (const reorder::ReadVersion& r : m.reads) ok = ok && !batch_writes.contains(r.key);
    }
    if (!ok) continue;
    ts[i] = ++last_ts;
    on_commit(i, ts[i], current);
    for (GlobalKey k : m.writes) batch_writes[k] = ts[i];
    committed.push_back(i);
  }
  for (uint32_t i : committed)  // the cache update, in serialization order
    for (GlobalKey k : members[i].writes) cache.publish(k, ts[i]);
  return ts;
}

}  // namespace ccb::pipeline
