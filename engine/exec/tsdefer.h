// TsDEFER: proactive deferment of transactions likely to conflict at run time
// with what the other threads are running now (Cao et al., "Transaction
// Scheduling: From Conflicts to Runtime Conflicts", SIGMOD 2023, §4 "TsDEFER
// module" and §5 "Runtime progress tracking", "Proactive deferment",
// "Lock-free Implementation", Fig. 3, Example 5).
//
// Progress tracking (Fig. 3). Each thread's queue of transactions is an array
// of transaction ids (indices into that thread's access sets) shared with all
// threads, with two positions: headp (the next transaction to run, "active")
// and tailp (the end). Both are written by the owner only and read by others
// with C++ atomics; nothing is locked. The owner's operations:
//   reg_pos()  regPos: headp moves past the transaction that committed
//              (replay queues append it again at tailp, see assign()).
//   defer()    defer: the candidate at headp moves to the slot at tailp.
//   lookup()   O(1): one item of the write set of the transaction at headp of
//              a random other thread, at a random index (one read of the
//              shared structure, then the immutable access sets).
//   next()     the deferment rule below, then the transaction to run.
//
// Deferment rule (§5 steps 1-4, read by §5's Example 5 [INF: the example over
// the "#lookups - d above a threshold" sentence, which it contradicts]):
// before running candidate T, do #lookups lookups, sampled without
// replacement within the round (per looked-at transaction, successive draws
// take successive indices after a random start, so k lookups on a write set
// of k items see all of them); hits = distinct looked-up items in T's read or
// write set. If hits >= threshold, defer T with probability deferp. An
// aborted T is retried at once by the caller, without reg_pos (one the
// caller drops instead, --retry_aborted=false, is passed by reg_pos as if it
// had finished, so next() moves on). #lookups = 0
// disables TsDEFER (next() returns the head without looking).
//
// Stale reads are acceptable: another thread's headp/tailp may be read while
// its owner moves them, so a lookup may see the transaction that just
// committed or was just deferred. TsDEFER is a heuristic filter in front of
// CC, which still guarantees serializability: a stale lookup only makes a
// deferment decision slightly less accurate (§5 "Lock-free Implementation":
// "such staleness has negligible implication"). Every slot of a ring always
// holds a valid id of its queue, so even a stale slot read names a real
// transaction; the access sets are immutable once assign() returned.
//
// Two safeguards of ours [INF: not in the paper]: a queue with one
// transaction never defers it (nothing could run instead), and a thread that
// deferred every other transaction of its queue in a row runs the candidate,
// so threads whose heads conflict with each other cannot defer forever.
//
// Access-set accuracy α (Fig. 5h): TsDEFER sees a uniformly random
// round(α·n)-subset of each predicted access set of n keys [INF: §6.3 names α
// but not how the visible subset is drawn].
// The paper keeps a thread-local copy of the predicted access sets; here they
// are immutable after assign(), so all threads read one shared copy.
//
// Users: the online executor (TSKD[CC], replay queues over its buffers) and
// queue-based executors (finite queues: assign(..., Replay::kNo), run until
// next() returns nothing).
//
// Thread safety: thread t calls assign(t, ...) before the others may look at
// it (a start barrier after it), then only t calls next/reg_pos/defer/stats
// for lane t; lookups read other lanes concurrently. Stats are read after
// the workers joined.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/core/local_work.h"  // charge_analysis_probes
#include "engine/core/random.h"
#include "engine/core/sim_hooks.h"
#include "engine/core/txn_desc.h"
#include "engine/tsdefer_options.h"
#include "engine/core/json.h"

namespace ccb {

// What TsDEFER knows of one transaction: the (α-sampled) predicted access set.
// Building one is the lanes' set-up work (the bundle executor's
// "tsdefer_setup" step, counted as analysis): under sim it costs one
// index_probe of the "analysis" work type per key of the description
// (docs/sim.md, "The analysis's cost"), natively nothing.
struct TsDeferSet {
  static void charge_setup(const TxnDesc& d) {
    const sim::ScopedWorkType scope(sim::analysis_work_type());
    charge_analysis_probes(d.read_set.size() + d.write_set.size());
  }

  std::vector<GlobalKey> write_set;   // lookup() draws from here, by index
  std::vector<GlobalKey> access_set;  // read ∪ write, sorted, for hit tests

  // The α-fraction of `d`: round(α·n) of its n keys, chosen uniformly.
  static TsDeferSet from_desc(const TxnDesc& d, double accuracy, Random& rng) {
    charge_setup(d);
    struct Key {
      GlobalKey key;
      bool write;
    };
    std::vector<Key> keys;
    keys.reserve(d.read_set.size() + d.write_set.size());
    for (GlobalKey k : d.read_set) keys.push_back({k, false});
    for (GlobalKey k : d.write_set) keys.push_back({k, true});
    size_t keep = keys.size();
    if (accuracy < 1.0) {
      keep = static_cast<size_t>(std::llround(accuracy * static_cast<double>(keys.size())));
      for (size_t i = 0; i < keep; ++i) std::swap(keys[i], keys[i + rng.below(keys.size() - i)]);  // partial Fisher-Yates
    }
    TsDeferSet s;
    for (size_t i = 0; i < keep; ++i) {
      s.access_set.push_back(keys[i].key);
      if (keys[i].write) s.write_set.push_back(keys[i].key);
    }
    std::sort(s.access_set.begin(), s.access_set.end());
    s.access_set.erase(std::unique(s.access_set.begin(), s.access_set.end()), s.access_set.end());
    return s;
  }
  // All of `d`'s keys (α = 1) when its key sets are sorted (the bundle
  // executor's descriptions): a merge instead of a sort.
  static TsDeferSet from_sorted_desc(const TxnDesc& d) {
    charge_setup(d);
    TsDeferSet s;
    s.write_set = d.write_set;
    s.access_set.resize(d.read_set.size() + d.write_set.size());
    std::merge(d.read_set.begin(), d.read_set.end(), d.write_set.begin(), d.write_set.end(), s.access_set.begin());
    s.access_set.erase(std::unique(s.access_set.begin(), s.access_set.end()), s.access_set.end());
    return s;
  }
  bool touches(GlobalKey k) const { return std::binary_search(access_set.begin(), access_set.end(), k); }
};

// Per-thread counters (docs/results.md, frontend.tsdefer).
struct TsDeferStats {
  uint64_t candidates = 0;  // transactions examined by the rule (#lookups > 0, deferment possible)
  uint64_t lookups = 0;     // lookup() calls
  uint64_t items = 0;       // lookups that returned a new distinct item
  uint64_t hits = 0;        // items in the candidate's access set
  uint64_t hit_candidates = 0;  // candidates with hits >= threshold
  uint64_t deferrals = 0;       // defer() calls
  uint64_t forced_runs = 0;     // hit candidates run because the rest of the queue was just deferred

  void merge(const TsDeferStats& o) {
    candidates += o.candidates;
    lookups += o.lookups;
    items += o.items;
    hits += o.hits;
    hit_candidates += o.hit_candidates;
    deferrals += o.deferrals;
    forced_runs += o.forced_runs;
  }
};

// frontend.tsdefer: TsDEFER's counters in the measured interval (docs/results.md).
inline void write_tsdefer_stats(JsonWriter& w, const TsDeferStats& t, uint64_t commits) {
  w.key("tsdefer").begin_object();
  w.key("candidates").value(t.candidates);
  w.key("lookups").value(t.lookups);
  w.key("items").value(t.items);
  w.key("hits").value(t.hits);
  w.key("hit_candidates").value(t.hit_candidates);
  w.key("deferrals").value(t.deferrals);
  w.key("forced_runs").value(t.forced_runs);
  w.key("deferrals_per_100k").value(commits ? static_cast<double>(t.deferrals) * 1e5 / static_cast<double>(commits) : 0.0);
  w.end_object();
}

class TsDefer {
 public:
  enum class Replay : bool { kNo, kYes };

  TsDefer(const TsDeferOptions& opt, int threads) : opt_(opt), lanes_(threads) {}

  int threads() const { return static_cast<int>(lanes_.size()); }
  const TsDeferOptions& options() const { return opt_; }

  // Thread t's queue: ids 0 .. sets.size()-1 in order. With Replay::kYes a
  // committed transaction is appended again at tailp (the online executor
  // replays its buffer in a cycle); with kNo the queue drains.
  // REQUIRES: called by t (or before any thread runs), before any other
  // thread's lookup can reach lane t; sets non-empty.
  void assign(int t, std::vector<TsDeferSet> sets, Replay replay) {
    Lane& me = lanes_[t];
    const uint32_t n = static_cast<uint32_t>(sets.size());
    me.sets = std::move(sets);
    me.replay = replay == Replay::kYes;
    // One slot more than the queue ever holds: the slot written at tailp is
    // never the one at headp that lookups are reading.
    const uint64_t capacity = std::bit_ceil(uint64_t{n} + 1);
    me.mask = capacity - 1;
    me.slots = std::make_unique<std::atomic<uint32_t>[]>(capacity);
    for (uint64_t p = 0; p < capacity; ++p) me.slots[p].store(static_cast<uint32_t>(p % n), std::memory_order_relaxed);
    me.consecutive_defers = 0;
    me.head.store(0, std::memory_order_relaxed);
    me.tail.store(n, std::memory_order_release);
  }

  // Thread t's queue is empty (a finite queue with nothing this round); the
  // old slots stay valid for stale lookups, which see headp == tailp.
  // REQUIRES: as assign().
  void clear(int t) {
    Lane& me = lanes_[t];
    me.consecutive_defers = 0;
    me.head.store(me.tail.load(std::memory_order_relaxed), std::memory_order_release);
  }

  // The transaction thread t runs next, after deferring candidates per the
  // rule; nothing when its queue is empty (Replay::kNo only).
  std::optional<uint32_t> next(int t, Random& rng) {
    Lane& me = lanes_[t];
    for (;;) {
      const uint64_t head = me.head.load(std::memory_order_relaxed);
      const uint64_t queued = me.tail.load(std::memory_order_relaxed) - head;
      if (queued == 0) return std::nullopt;
      const uint32_t id = me.slots[head & me.mask].load(std::memory_order_relaxed);
      if (opt_.lookups == 0 || queued == 1) return ran(me, id);
      ++me.stats.candidates;
      if (probe(t, me.sets[id], rng) < opt_.threshold) return ran(me, id);
      ++me.stats.hit_candidates;
      if (me.consecutive_defers + 1 >= queued) {
        ++me.stats.forced_runs;
        return ran(me, id);
      }
      if (!rng.chance(opt_.deferp)) return ran(me, id);
      defer(t);
      ++me.consecutive_defers;
    }
  }

  // regPos: the transaction at thread t's headp committed (or finished by
  // design); a replay queue appends it again at tailp.
  void reg_pos(int t) {
    Lane& me = lanes_[t];
    const uint64_t head = me.head.load(std::memory_order_relaxed);
    if (me.replay) append(me, me.slots[head & me.mask].load(std::memory_order_relaxed));
    me.head.store(head + 1, std::memory_order_release);
  }

  // defer: the candidate at thread t's headp moves to tailp.
  void defer(int t) {
    Lane& me = lanes_[t];
    const uint64_t head = me.head.load(std::memory_order_relaxed);
    append(me, me.slots[head & me.mask].load(std::memory_order_relaxed));
    me.head.store(head + 1, std::memory_order_release);
    ++me.stats.deferrals;
  }

  // The draws of one round of lookups by one thread, for sampling without
  // replacement per looked-at transaction.
  class Round {
   public:
    void clear() { n_ = 0; }

   private:
    friend class TsDefer;
    struct Drawn {
      int thread;
      uint32_t txn;
      uint32_t start, taken;
    };
    Drawn drawn_[TsDeferOptions::kMaxLookups];
    uint32_t n_ = 0;
  };

  // lookup: an item of the write set of the active transaction (at headp, or
  // up to `lookahead` beyond) of a uniformly random other thread, at an index
  // not drawn before in `round`. Nothing if that queue is empty, the write
  // set is empty or exhausted in this round, or there is no other thread.
  // REQUIRES: at most TsDeferOptions::kMaxLookups calls per round.
  std::optional<GlobalKey> lookup(int t, Random& rng, Round& round) const {
    const int n = threads();
    if (n < 2) return std::nullopt;
    int j = static_cast<int>(rng.below(n - 1));
    if (j >= t) ++j;
    const Lane& other = lanes_[j];
    const uint64_t head = other.head.load(std::memory_order_acquire);
    const uint64_t tail = other.tail.load(std::memory_order_acquire);
    const uint64_t pos = head + (opt_.lookahead ? rng.below(uint64_t{opt_.lookahead} + 1) : 0);
    if (pos >= tail) return std::nullopt;
    const uint32_t id = other.slots[pos & other.mask].load(std::memory_order_relaxed);
    const std::vector<GlobalKey>& ws = other.sets[id].write_set;
    if (ws.empty()) return std::nullopt;
    const uint32_t size = static_cast<uint32_t>(ws.size());
    for (uint32_t i = 0; i < round.n_; ++i) {
      auto& d = round.drawn_[i];
      if (d.thread != j || d.txn != id) continue;
      if (d.taken == size) return std::nullopt;
      return ws[(d.start + d.taken++) % size];
    }
    const uint32_t start = static_cast<uint32_t>(rng.below(size));
    round.drawn_[round.n_++] = {j, id, start, 1};
    return ws[start];
  }

  // Thread t's counters; reset by t (e.g. when the measured interval starts).
  TsDeferStats& stats(int t) { return lanes_[t].stats; }
  TsDeferStats total_stats() const {
    TsDeferStats s;
    for (const Lane& l : lanes_) s.merge(l.stats);
    return s;
  }

  // For tests: thread t's queue from headp to tailp.
  std::vector<uint32_t> queue(int t) const {
    const Lane& me = lanes_[t];
    std::vector<uint32_t> q;
    for (uint64_t p = me.head.load(std::memory_order_acquire); p < me.tail.load(std::memory_order_acquire); ++p)
      q.push_back(me.slots[p & me.mask].load(std::memory_order_relaxed));
    return q;
  }

 private:
  struct alignas(64) Lane {
    std::atomic<uint64_t> head{0};  // headp: written by the owner only
    std::atomic<uint64_t> tail{0};  // tailp: written by the owner only
    uint64_t mask = 0;
    std::unique_ptr<std::atomic<uint32_t>[]> slots;
    std::vector<TsDeferSet> sets;  // immutable after assign()
    bool replay = false;
    uint64_t consecutive_defers = 0;  // owner-local
    TsDeferStats stats;               // owner-local
  };

  static uint32_t ran(Lane& me, uint32_t id) {
    me.consecutive_defers = 0;
    return id;
  }

  static void append(Lane& me, uint32_t id) {
    const uint64_t tail = me.tail.load(std::memory_order_relaxed);
    me.slots[tail & me.mask].store(id, std::memory_order_relaxed);
    me.tail.store(tail + 1, std::memory_order_release);
  }

  // One round of lookups for candidate `c`: the number of distinct looked-up
  // items in its access set.
  uint32_t probe(int t, const TsDeferSet& c, Random& rng) {
    Lane& me = lanes_[t];
    Round round;
    GlobalKey seen[TsDeferOptions::kMaxLookups];
    uint32_t n_seen = 0, hits = 0;
    for (uint32_t l = 0; l < opt_.lookups; ++l) {
      ++me.stats.lookups;
      const std::optional<GlobalKey> item = lookup(t, rng, round);
      if (!item || std::find(seen, seen + n_seen, *item) != seen + n_seen) continue;
      seen[n_seen++] = *item;
      ++me.stats.items;
      if (c.touches(*item)) ++hits;
    }
    me.stats.hits += hits;
    return hits;
  }

  const TsDeferOptions opt_;
  std::vector<Lane> lanes_;
};

}  // namespace ccb
