// Message-passing lock management shared by the Dora and Orthrus substitutes
// (engine/cc/dora/dora.h, engine/cc/orthrus/orthrus.h).
//
// The lock table is split into partitions; each partition has one owner
// thread, the only thread that ever reads or writes that partition's table
// (no latches on it). A worker (the "coordinator" of its transaction) locks
// its request's predicted access set (workload describe()) by sending each
// partition's owner one message with the keys of that partition, and runs the
// procedure only after every owner granted: the rendezvous of DORA (Pandis et
// al., VLDB 2010, section 4.2.1: a transaction commits when all its actions
// finished) and Orthrus (Ren et al., SIGMOD 2016, section 3: execution
// threads obtain every lock from the CC threads before running). Where owners
// run differs: Dora's owners are the workers themselves (thread-to-data, one
// partition per worker), Orthrus's are dedicated CC threads.
//
// Deadlock freedom: an owner grants a request's keys of its partition all at
// once or queues the whole request (OwnerLockTable), and a coordinator asks
// the partitions one at a time in ascending partition order, waiting for each
// grant. A waiting coordinator holds locks only of lower partitions, so no
// waits-for cycle can form (Orthrus section 3.2 orders its lock requests the
// same way for the same reason).
//
// Messages travel through TBB concurrent_bounded_queue (one inbox per
// partition, one reply queue per coordinator). A thread that has nothing to
// do but wait for a message (Orthrus's CC threads for requests, its
// execution threads for grants) waits as ThreadWait says: polling the queue
// (kPoll: SpinWait's pause, then a yield per round, never a sleep; the
// Orthrus paper's dedicated threads poll their queues) or sleeping in TBB's
// blocking pop (kSleep: every hand-off then wakes a sleeping thread through
// the kernel). A coordinator has at most one
// lock request outstanding, and sends a partition a release only for a grant
// it received, so an inbox holds at most two messages per coordinator (a
// release and the next lock request) plus the stop message, and a reply queue
// at most one grant: the capacities below make every push succeed at once.
//
// Keys map to partitions by the workload's static partitioning where it has
// one (partition_of(), bound before loading as PartCC binds it, rundb/run.h):
// workload partition p belongs to owner p mod owners, so a transaction inside
// one partition (a TPC-C warehouse, a YCSB key range) talks to one owner, as
// DORA's routing rules over key ranges intend (section 4.1). Keys of tables
// the workload leaves unpartitioned (TPC-C's read-only ITEM, its insert-only
// HISTORY) are not locked at the owners: the procedure's NoWait row locks
// cover them (Orthrus's row locks also cover any key the prediction missed;
// Dora locks such a key at its owner, try_lock). A workload without a
// partitioning maps keys by a hash of the global key.
//
// Dora's owners are its coordinators (own_partitions_directly): a request or
// release at the coordinator's own partition goes to its table directly, no
// message, and a queued request of its own is granted by a release it serves
// itself. try_lock() adds one key to a granted attempt at any owner, never
// queued (granted or refused at once), so it cannot deadlock either.
//
// Under sim (engine/core/sim_hooks.h) the queues' pushes, pops and waits are the
// cost model's as engine/core/message_queue.h (QueueWaits) says, and an
// owner pays one index probe per key of a lock request (its table lookup);
// natively the hooks are empty.
// Under sim each queue object starts a cache line of its own
// (kQueueAlign): the line map is keyed by address, and 40-byte queues
// allocated one after another shared lines as the heap's layout fell, which
// depends on the binary's earlier allocations, so Orthrus's schedule differed
// between two builds of the same code (docs/sim.md, "Determinism").
//
// Thread safety: OwnerLockTable belongs to one owner thread. MessageLocks:
// serve()/serve_pending() for partition p only on p's owner; acquire(),
// try_lock() and release() for coordinator c only on c's thread (with
// own_partitions_directly, c's thread is partition c's owner, so its direct
// use of c's table keeps the table to one thread).
#pragma once

#include <tbb/concurrent_queue.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "engine/txn/protocol.h"
#include "engine/cc_helpers/workload_partitioning.h"
#include "engine/config.h"
#include "engine/core/json.h"
#include "engine/core/local_work.h"
#include "engine/core/message_queue.h"
#include "engine/core/random.h"
#include "engine/core/spin.h"
#include "engine/core/thread_group.h"
#include "engine/core/txn_desc.h"

namespace ccb {

struct KeyLock {
  GlobalKey key = 0;
  bool exclusive = false;
};

// The partition of the lock table that holds `key`'s lock when the workload
// has no partitioning: a hash of the key.
inline uint32_t lock_partition(GlobalKey key, uint32_t partitions) {
  uint64_t s = key;
  return static_cast<uint32_t>(splitmix64(s) % partitions);
}

// Which owner's partition of the lock table holds a key's lock (above).
class LockRouting {
 public:
  static constexpr uint32_t kNotLocked = WorkloadPartitioning::kNone;  // an unpartitioned table's key

  LockRouting() = default;  // by hash
  explicit LockRouting(const WorkloadPartitioning& p) : workload_(p) {}

  // The owner (in [0, owners)) of `key`'s lock, or kNotLocked.
  uint32_t owner(GlobalKey key, uint32_t owners) const {
    if (!workload_) return lock_partition(key, owners);
    const uint32_t p = workload_->of(key);
    return p == WorkloadPartitioning::kNone ? kNotLocked : p % owners;
  }
  bool by_workload() const { return workload_.has_value(); }

 private:
  std::optional<WorkloadPartitioning> workload_;
};

// One partition's lock table, private to its owner thread. Each request locks
// a set of distinct keys (shared or exclusive) all at once or waits whole, in
// arrival order; a release grants the waiting requests that now fit (first
// fit in arrival order).
class OwnerLockTable {
 public:
  explicit OwnerLockTable(uint32_t coordinators) : held_(coordinators) {}

  // Coordinator `coord` asks for `keys` (distinct). True: granted now; false:
  // queued, granted by a later release(). REQUIRES: coord holds nothing here.
  bool request(uint32_t coord, std::span<const KeyLock> keys) {
    held_[coord].assign(keys.begin(), keys.end());
    if (fits(held_[coord])) {
      take(held_[coord]);
      return true;
    }
    waiting_.push_back(coord);
    return false;
  }

  // Releases everything `coord` holds here; appends to `granted` the
  // coordinators whose queued requests this granted.
  void release(uint32_t coord, std::vector<uint32_t>& granted) {
    for (const KeyLock& k : held_[coord]) {
      LockState* s = locks_.find(k.key);
      if (k.exclusive) s->writer = false;
      else --s->readers;
      if (!s->writer && s->readers == 0) locks_.erase(k.key);
    }
    held_[coord].clear();
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      if (fits(held_[*it])) {
        take(held_[*it]);
        granted.push_back(*it);
        it = waiting_.erase(it);
      } else {
        ++it;
      }
    }
  }

  // Coordinator `coord`, whose request here (if any) is granted, asks for one
  // more key now (an access its plan missed, or a read of its plan upgraded
  // to a write): true when granted (added to what it holds here, released
  // with it), false when it conflicts; never queued, so a coordinator that
  // holds locks elsewhere never waits on it (no deadlock).
  bool try_add(uint32_t coord, KeyLock k) {
    std::vector<KeyLock>& held = held_[coord];
    for (KeyLock& h : held) {
      if (h.key != k.key) continue;
      if (h.exclusive || !k.exclusive) return true;
      LockState& s = *locks_.find(k.key);  // held shared by coord
      if (s.readers != 1) return false;    // another reader shares it
      s.readers = 0;
      s.writer = true;
      h.exclusive = true;
      return true;
    }
    if (const LockState* s = locks_.find(k.key); s != nullptr && (s->writer || k.exclusive)) return false;
    held.push_back(k);
    take({held.end() - 1, held.end()});
    return true;
  }

  size_t waiting() const { return waiting_.size(); }
  size_t locked_keys() const { return locks_.size(); }

 private:
  struct LockState {
    uint32_t readers = 0;
    bool writer = false;
  };

  // The held locks by key: open addressing with linear probing and
  // backward-shift deletion, so a lock taken and released allocates nothing
  // (a node-based map allocated and freed one node per key and lock, the
  // largest native cost of Dora's own-partition grants). At most half full.
  class LockMap {
   public:
    LockMap() : slots_(64) {}
    LockState* find(GlobalKey key) {
      for (size_t i = home(key);; i = next(i)) {
        if (!slots_[i].used) return nullptr;
        if (slots_[i].key == key) return &slots_[i].state;
      }
    }
    const LockState* find(GlobalKey key) const { return const_cast<LockMap*>(this)->find(key); }
    LockState& operator[](GlobalKey key) {
      if (2 * (size_ + 1) > slots_.size()) grow();
      size_t i = home(key);
      for (; slots_[i].used; i = next(i))
        if (slots_[i].key == key) return slots_[i].state;
      slots_[i] = {key, {}, true};
      ++size_;
      return slots_[i].state;
    }
    // REQUIRES: key present.
    void erase(GlobalKey key) {
      size_t i = home(key);
      while (slots_[i].key != key || !slots_[i].used) i = next(i);
      for (size_t j = i;;) {  // shift back each later entry of the run that may sit at i
        slots_[i].used = false;
        for (;;) {
          j = next(j);
          if (!slots_[j].used) {
            --size_;
            return;
          }
          const size_t h = home(slots_[j].key);
          // Entry j stays unless its home is cyclically outside (i, j].
          const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
          if (!stays) break;
        }
        slots_[i] = slots_[j];
        i = j;
      }
    }
    size_t size() const { return size_; }

   private:
    struct Slot {
      GlobalKey key = 0;
      LockState state;
      bool used = false;
    };
    size_t home(GlobalKey key) const { return (key * 0x9E3779B97F4A7C15ull) >> 32 & (slots_.size() - 1); }
    size_t next(size_t i) const { return (i + 1) & (slots_.size() - 1); }
    void grow() {
      std::vector<Slot> old(slots_.size() * 2);
      old.swap(slots_);
      size_ = 0;
      for (const Slot& s : old)
        if (s.used) (*this)[s.key] = s.state;
    }
    std::vector<Slot> slots_;  // a power of two
    size_t size_ = 0;
  };

  bool fits(const std::vector<KeyLock>& keys) const {
    for (const KeyLock& k : keys) {
      const LockState* s = locks_.find(k.key);
      if (s == nullptr) continue;
      if (s->writer || k.exclusive) return false;  // readers only share with readers
    }
    return true;
  }
  void take(std::span<const KeyLock> keys) {
    for (const KeyLock& k : keys) {
      LockState& s = locks_[k.key];
      if (k.exclusive) s.writer = true;
      else ++s.readers;
    }
  }

  LockMap locks_;
  std::vector<std::vector<KeyLock>> held_;  // per coordinator: its request here (held or waiting)
  std::deque<uint32_t> waiting_;            // coordinators with queued requests, arrival order
};

// A coordinator's locks for one attempt, grouped by partition: keys sorted by
// (partition, key), deduplicated (exclusive wins), and where each
// partition's run begins.
struct LockPlan {
  std::vector<std::pair<uint32_t, KeyLock>> sorted;  // scratch
  std::vector<KeyLock> keys;
  std::vector<uint32_t> parts;  // ascending
  std::vector<uint32_t> begin;  // parts.size() + 1 offsets into keys

  // `also`: keys to lock besides the prediction's (Dora: the keys the
  // request's earlier attempts missed).
  void build(const TxnDesc& d, uint32_t partitions, const LockRouting& routing = {},
             std::span<const KeyLock> also = {}) {
    sorted.clear();
    auto add = [&](GlobalKey k, bool exclusive) {
      if (const uint32_t p = routing.owner(k, partitions); p != LockRouting::kNotLocked)
        sorted.push_back({p, {k, exclusive}});
    };
    for (GlobalKey k : d.read_set) add(k, false);
    for (GlobalKey k : d.write_set) add(k, true);
    for (const KeyLock& k : also) add(k.key, k.exclusive);
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second.key < b.second.key;
    });
    keys.clear();
    parts.clear();
    begin.clear();
    for (const auto& [p, k] : sorted) {
      if (!keys.empty() && parts.back() == p && keys.back().key == k.key) {
        keys.back().exclusive |= k.exclusive;
        continue;
      }
      if (parts.empty() || parts.back() != p) {
        parts.push_back(p);
        begin.push_back(static_cast<uint32_t>(keys.size()));
      }
      keys.push_back(k);
    }
    begin.push_back(static_cast<uint32_t>(keys.size()));
  }
  std::span<const KeyLock> keys_of(size_t i) const {
    return {keys.data() + begin[i], keys.data() + begin[i + 1]};
  }
  // Whether the plan locks `key` (of owner p) in a mode that covers an
  // access (`exclusive`: a write).
  bool covers(uint32_t p, GlobalKey key, bool exclusive) const {
    for (size_t i = 0; i < parts.size(); ++i) {
      if (parts[i] != p) continue;
      const auto run = keys_of(i);
      const auto it = std::lower_bound(run.begin(), run.end(), key,
                                       [](const KeyLock& a, GlobalKey k) { return a.key < k; });
      return it != run.end() && it->key == key && (it->exclusive || !exclusive);
    }
    return false;
  }
};

class MessageLocks {
 public:
  // `partitions` owners, `coordinators` workers; `wait`: how a waiting
  // thread waits (acquire with block = true, serve_until_stopped).
  MessageLocks(uint32_t partitions, uint32_t coordinators, ThreadWait wait = ThreadWait::kSleep) : wait_(wait) {
    for (uint32_t p = 0; p < partitions; ++p) {
      owners_.push_back(std::make_unique<Owner>(coordinators));
      owners_.back()->inbox.set_capacity(2 * coordinators + 1);
    }
    for (uint32_t c = 0; c < coordinators; ++c) {
      replies_.push_back(std::make_unique<ReplyQueue>());
      replies_.back()->set_capacity(1);
    }
    inbox_waits_.assign(partitions, wait);
    reply_waits_.assign(coordinators, wait);
  }
  uint32_t partitions() const { return static_cast<uint32_t>(owners_.size()); }

  // Thread t is both owner t and coordinator t (Dora): a push to t's inbox
  // or to t's reply queue rings t's doorbell, so t can sleep until either
  // has a message (has_mail, doorbell). REQUIRES: partitions ==
  // coordinators; called before the threads start.
  void ring_doorbells() {
    if (owners_.size() != replies_.size())
      throw std::logic_error("MessageLocks::ring_doorbells: owners and coordinators differ");
    doorbells_ = std::make_unique<Doorbell[]>(owners_.size());
  }
  // Thread t is both owner t and coordinator t (Dora): a coordinator's lock
  // requests and releases at its own partition go to its table directly, no
  // message and no reply (it is the table's owner thread), and a queued
  // request of its own is granted by a release it serves itself.
  // REQUIRES: partitions == coordinators; called before the threads start.
  void own_partitions_directly() {
    if (owners_.size() != replies_.size())
      throw std::logic_error("MessageLocks::own_partitions_directly: owners and coordinators differ");
    self_owned_ = true;
  }
  Doorbell& doorbell(uint32_t t) { return doorbells_[t]; }
  bool has_mail(uint32_t t) const { return !owners_[t]->inbox.empty() || !replies_[t]->empty(); }
  uint64_t doorbell_sleeps() const {
    uint64_t n = 0;
    for (size_t t = 0; doorbells_ && t < owners_.size(); ++t) n += doorbells_[t].sleeps();
    return n;
  }

  // Coordinator `coord` locks every key of `plan`, partition by partition in
  // ascending order. `wait` is called whenever the grant has not arrived yet
  // (Dora serves its own partition there); with block = true the
  // coordinator instead waits in the queue until the grant arrives, as
  // ThreadWait says (Orthrus's execution threads own no partition).
  template <class Wait>
  void acquire(uint32_t coord, const LockPlan& plan, bool block, Wait&& wait) {
    auto& replies = *replies_[coord];
    for (size_t i = 0; i < plan.parts.size(); ++i) {
      const std::span<const KeyLock> keys = plan.keys_of(i);
      if (own(coord, plan.parts[i])) {  // Dora's own partition: the table itself
        Owner& o = *owners_[coord];
        charge_probes(keys.size());
        if (o.table.request(coord, keys)) continue;
        while (!o.self_granted) wait();  // granted by a release that `wait` serves
        o.self_granted = false;
        continue;
      }
      ++replies.sent;
      send(plan.parts[i], {Msg::kLock, coord, keys.data(), static_cast<uint32_t>(keys.size())});
      uint32_t granted;
      if (block) {
        reply_waits_.pop(replies, coord, granted, wait_);
      } else {
        while (!replies.try_pop(granted)) wait();
      }
    }
  }
  // Releases what `acquire` locked, and what try_lock() added at the
  // partitions `extra` (not in the plan) (no reply).
  void release(uint32_t coord, const LockPlan& plan, std::span<const uint32_t> extra = {}) {
    for (uint32_t p : plan.parts) release_at(coord, p);
    for (uint32_t p : extra) release_at(coord, p);
  }

  // Coordinator `coord`, its plan granted, asks owner p for one more key now
  // (OwnerLockTable::try_add: never queued); true when granted. At its own
  // partition (own_partitions_directly) the table answers at once; another
  // owner answers by message, `wait` called until the answer arrives.
  // REQUIRES: a polling coordinator (acquire with block = false).
  template <class Wait>
  bool try_lock(uint32_t coord, uint32_t p, KeyLock k, Wait&& wait) {
    if (own(coord, p)) {
      charge_probes(1);
      return owners_[p]->table.try_add(coord, k);
    }
    auto& replies = *replies_[coord];
    ++replies.sent;
    send(p, {Msg::kTryLock, coord, &k, 1});  // k lives until the answer
    uint32_t answer;
    while (!replies.try_pop(answer)) wait();
    return (answer & kRefused) == 0;
  }

  // Messages coordinator `coord` sent to owners (lock requests, tries,
  // releases); its own partition's requests are none of them. For tests.
  // REQUIRES: called on coord's thread, or after it stopped.
  uint64_t messages_sent(uint32_t coord) const { return replies_[coord]->sent; }

  // Owner of partition p: handles the messages already in its inbox; returns
  // how many.
  size_t serve_pending(uint32_t p) {
    Msg m;
    size_t n = 0;
    QueueWaits::look(owners_[p]->inbox);
    while (owners_[p]->inbox.try_pop(m)) {
      handle(p, m);
      ++n;
    }
    return n;
  }
  // Owner of partition p: handles messages, waiting (ThreadWait) while the
  // inbox is empty, until stop(p) (Orthrus's CC threads).
  void serve_until_stopped(uint32_t p) {
    for (Msg m;;) {
      inbox_waits_.pop(owners_[p]->inbox, p, m, wait_);
      if (m.kind == Msg::kStop) return;
      handle(p, m);
    }
  }
  void stop(uint32_t p) { send(p, {Msg::kStop, 0, nullptr, 0}); }

 private:
  static constexpr uint32_t kRefused = 1u << 31;  // a kTryLock's answer: p | kRefused

  struct Msg {
    enum Kind : uint8_t { kLock, kTryLock, kRelease, kStop } kind = kStop;
    uint32_t coord = 0;
    const KeyLock* keys = nullptr;  // kLock: the coordinator's plan, unchanged until the grant
    uint32_t n = 0;
  };
  // Each queue on its own line under sim (engine/core/message_queue.h).
  struct alignas(kQueueAlign<tbb::concurrent_bounded_queue<uint32_t>>) ReplyQueue
      : tbb::concurrent_bounded_queue<uint32_t> {
    uint64_t sent = 0;  // the coordinator's thread only (messages_sent)
  };
  struct alignas(kQueueAlign<tbb::concurrent_bounded_queue<Msg>>) Owner {
    explicit Owner(uint32_t coordinators) : table(coordinators) {}
    tbb::concurrent_bounded_queue<Msg> inbox;
    OwnerLockTable table;            // owner thread only
    std::vector<uint32_t> granted;   // owner thread only: scratch of release()
    bool self_granted = false;       // owner thread only: its own queued request granted (self_owned_)
  };

  bool own(uint32_t coord, uint32_t p) const { return self_owned_ && coord == p; }
  // The owner's lock-table lookups: one index probe per key.
  static void charge_probes(size_t keys) {
    for (size_t k = 0; k < keys; ++k) charge_local_work(Work::kIndexProbe);
  }
  void release_at(uint32_t coord, uint32_t p) {
    if (own(coord, p)) return handle(p, {Msg::kRelease, coord, nullptr, 0});
    ++replies_[coord]->sent;
    send(p, {Msg::kRelease, coord, nullptr, 0});
  }

  void handle(uint32_t p, const Msg& m) {
    Owner& o = *owners_[p];
    if (m.kind == Msg::kLock) {
      charge_probes(m.n);
      if (o.table.request(m.coord, {m.keys, m.n})) reply(m.coord, p);
      return;
    }
    if (m.kind == Msg::kTryLock) {
      charge_probes(1);
      reply(m.coord, o.table.try_add(m.coord, *m.keys) ? p : p | kRefused);
      return;
    }
    o.granted.clear();
    o.table.release(m.coord, o.granted);
    for (uint32_t c : o.granted) {
      if (own(c, p)) o.self_granted = true;  // the owner's own request, waiting in acquire()
      else reply(c, p);
    }
  }
  // The pushes (each succeeds at once: the capacities above).
  void send(uint32_t p, const Msg& m) {
    inbox_waits_.push(owners_[p]->inbox, p, m);
    if (doorbells_) doorbells_[p].ring();
  }
  void reply(uint32_t coord, uint32_t p) {
    reply_waits_.push(*replies_[coord], coord, p);
    if (doorbells_) doorbells_[coord].ring();
  }

  ThreadWait wait_;
  bool self_owned_ = false;  // own_partitions_directly()
  std::vector<std::unique_ptr<Owner>> owners_;
  std::vector<std::unique_ptr<ReplyQueue>> replies_;
  QueueWaits inbox_waits_, reply_waits_;  // per owner, per coordinator
  std::unique_ptr<Doorbell[]> doorbells_;  // per thread, with ring_doorbells()

 public:
  // For tests: partition p's table. REQUIRES: called on p's owner.
  const OwnerLockTable& table(uint32_t p) const { return owners_[p]->table; }
};

// The protocol half both substitutes share, over a row-locking protocol
// `RowLocks` (both pass NoWait: a helper names no protocol itself).
// acquire_all() locks the predicted access set through the owners (the
// derived class says how a coordinator waits); the procedure then runs with
// RowLocks' row operations, whose row locks are uncontended for predicted
// keys and catch the accesses the prediction missed (RC::kLockConflict,
// retried); commit and abort are RowLocks', followed by the releases to the
// owners (strict 2PL on both). Orthrus runs so; Dora (engine/cc/dora/dora.h)
// replaces the row operations and commit: its owners' locks cover every
// routed key, so it takes row locks only for keys no owner locks.
template <class RowLocks>
class MessageLockProtocol : public RowLocks {
 public:
  static constexpr int kMaxThreads = 1024;  // per-thread counters

  struct TxnMeta {
    LockPlan plan;        // this attempt's locks, by partition
    bool locked = false;  // the owners granted plan (release owed)
    // Dora: keys locked at access beyond the plan (MessageLocks::try_lock),
    // and their partitions that the plan has not (released with it).
    std::vector<KeyLock> added;
    std::vector<uint32_t> extra_parts;
    uint64_t wait_start = 0;  // Dora: when this attempt's first request to another owner went (0: none, or not timed)
  };

  // Routes the lock owners by the workload's partitioning, where it has one
  // (called by run_online before loading, as PartCC's).
  template <class W>
  void bind_workload(const EngineConfig& cfg, const W& w) {
    if (auto p = WorkloadPartitioning::of_workload(w, static_cast<uint32_t>(cfg.threads))) routing_ = LockRouting(*p);
  }

  // cc_stats: how many owners a transaction's lock request talks to
  // (owners_per_txn: 1 for a transaction inside one workload partition once
  // routed by the workload), over the measured interval's attempts.
  void reset_stats(uint32_t thread) { counters_[thread] = Counters{}; }
  void stats_json(JsonWriter& w) const {
    Counters s;
    for (int t = 0; t < kMaxThreads; ++t) {
      s.attempts += counters_[t].attempts;
      s.owners += counters_[t].owners;
      s.multi_owner += counters_[t].multi_owner;
    }
    w.key("owners").value(locks_ ? locks_->partitions() : 0u);
    w.key("routing").value(routing_.by_workload() ? "workload_partitions" : "key_hash");
    w.key("locked_attempts").value(s.attempts);
    w.key("owners_per_txn").value(s.attempts ? double(s.owners) / double(s.attempts) : 0.0);
    w.key("multi_owner_share").value(s.attempts ? double(s.multi_owner) / double(s.attempts) : 0.0);
  }

  RC commit(auto& txn) {
    const RC rc = RowLocks::commit(txn);
    release_owner_locks(txn);
    return rc;
  }
  void abort(auto& txn) {
    RowLocks::abort(txn);
    release_owner_locks(txn);
  }

 protected:
  // Builds the attempt's plan from the prediction and locks it, calling
  // `wait` while a grant is outstanding (block: sleep in the reply queue).
  // `also`: keys to lock besides the prediction's; `started(plan)` is called
  // once the plan is built, before any request, and its value kept in
  // TxnMeta::wait_start (Dora's clock).
  struct NoClock {
    uint64_t operator()(const LockPlan&) const { return 0; }
  };
  template <class TxnT, class Wait, class Started = NoClock>
  RC lock_predicted(TxnT& txn, const TxnDesc& d, bool block, Wait&& wait, std::span<const KeyLock> also = {},
                    Started&& started = {}) {
    auto& m = txn.meta();
    m.plan.build(d, locks_->partitions(), routing_, also);
    m.wait_start = started(m.plan);
    Counters& c = counters_[txn.thread_id()];
    ++c.attempts;
    c.owners += m.plan.parts.size();
    c.multi_owner += m.plan.parts.size() > 1;
    locks_->acquire(txn.thread_id(), m.plan, block, wait);
    m.locked = true;
    return RC::kOk;
  }
  void release_owner_locks(auto& txn) {
    auto& m = txn.meta();
    if (!m.locked) return;
    locks_->release(txn.thread_id(), m.plan, m.extra_parts);
    m.locked = false;
    m.added.clear();
    m.extra_parts.clear();
  }
  // The owner of `key`'s lock, or LockRouting::kNotLocked. REQUIRES: open().
  uint32_t owner_of(GlobalKey key) const { return routing_.owner(key, locks_->partitions()); }

  std::unique_ptr<MessageLocks> locks_;  // from open() on

 public:
  // The protocol's own threads (Orthrus's CC threads), lent to the executor,
  // natively and under sim (engine/core/thread_group.h); Dora has none.
  void lend_threads(LentThreads&) {}

 private:
  struct alignas(64) Counters {
    uint64_t attempts = 0, owners = 0, multi_owner = 0;
  };
  LockRouting routing_;
  std::unique_ptr<Counters[]> counters_{new Counters[kMaxThreads]};
};

}  // namespace ccb
