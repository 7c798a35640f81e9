// Dora: a substitute for DORA (Pandis, Johnson, Hardavellas, Ailamaki,
// "Data-Oriented Transaction Execution", VLDB 2010), as the Strife paper
// describes the one it ran (section 5.4: "partition-local record-level locks
// owned by the thread"): thread-to-data execution. Each worker owns one
// partition of the lock table (partitions = --threads) and is the only
// thread that touches it (section 4.1: "each executor ... the only one that
// can access" its dataset; local lock tables, no centralized lock manager).
// A transaction's coordinator locks its predicted keys partition by
// partition in ascending order (engine/cc_helpers/message_locks.h): its own
// partition directly in its own table, no queue; another partition by a
// request to its owner. It runs the procedure once every owner granted: the
// rendezvous of section 4.2.1 ("a transaction commits when all its actions
// finished"). The procedure takes no row lock on a key the owners' locks
// cover (every key routed to an owner: one the plan missed is locked at its
// owner at access); only keys no owner locks (tables the workload leaves
// unpartitioned) take NoWait's row locks. A worker serves its partition's
// inbox while it waits (for a grant, an answer, the other workers at the
// end), at the start of each attempt and at every kServeEvery-th row access
// (DORA's executors interleave actions), so a coordinator waits for a busy
// owner at most a few of that owner's row accesses. The procedure
// itself runs on the coordinator, not split into actions at the owners; see
// engine/cc/dora/README.md for what this keeps and drops.
//
// Thread safety: worker t alone calls the hooks with thread id t; partition
// t's table is touched by worker t only.
#pragma once

#include <algorithm>
#include <atomic>

#include "engine/cc_helpers/common.h"
#include "engine/cc/nowait/nowait.h"
#include "engine/cc_helpers/message_locks.h"
#include "engine/core/clock.h"
#include "engine/core/topology.h"

namespace ccb {

class Dora : public MessageLockProtocol<NoWait> {
 public:
  static constexpr const char* kName = "dora";

  // A worker serves its inbox at every kServeEvery-th row access of its own
  // procedure too: DORA's executor serves its queue between actions (a few
  // records of one table each), so a request waits for at most one action of
  // the owner's transaction, not all of it. Measured under sim (TPC-C, 30
  // cores, fig08a's flags; README.md): serving only while waiting and at
  // each attempt's start made a multi-partition transaction wait 4.6 us for
  // its grant on average (27 us at most) and cost 3 % throughput against
  // serving at every access (1.6 us); every 4th access waits 1.8 us at a
  // quarter of the polls and the same throughput.
  static constexpr uint32_t kServeEvery = 4;

  // The executor's lock-service hooks (protocol.h, HasLockService).
  static int lock_server_threads(int /*threads*/) { return 0; }  // every worker owns a partition
  void open(int /*lock_servers*/, int workers) {
    workers_ = workers;
    done_.store(0, std::memory_order_relaxed);
    locks_ = std::make_unique<MessageLocks>(workers, workers);
    locks_->own_partitions_directly();
    // With more workers than cores a waiting worker sleeps on its doorbell
    // after its spin rounds instead of yielding (engine/core/message_queue.h,
    // Doorbell): among more runnable threads than cores, a grant otherwise
    // waits for its owner's turn in a round over every yielding worker, and
    // the run's drain grew with the square of the workers (1,023 workers on
    // 2 cores: 17 s after a 0.1 s interval). At most one worker per core
    // (the papers' set-up, and every simulated run) it polls as before.
    sleep_when_idle_ = idle_waiters_should_sleep(workers);
    if (sleep_when_idle_) locks_->ring_doorbells();
  }
  // After its last transaction a worker keeps serving its partition until
  // every worker is done: another coordinator may still wait for its grant.
  void worker_done(uint32_t thread) {
    const bool last = done_.fetch_add(1, std::memory_order_acq_rel) + 1 == workers_;
    if (last && sleep_when_idle_)
      for (int t = 0; t < workers_; ++t) locks_->doorbell(t).ring();  // the sleepers see done_ at once
    auto all_done = [&] { return done_.load(std::memory_order_acquire) >= workers_; };
    for (SpinWait w; !all_done();)
      if (locks_->serve_pending(thread) == 0) idle(thread, w, all_done);
  }
  void close() {}

  void begin(auto& txn) {
    auto& m = txn.meta();
    m.plan.parts.clear();  // an attempt without acquire_all() holds no plan
    m.plan.keys.clear();
  }

  // Locks the predicted access set, and on a retry the keys the request's
  // earlier attempts were refused at access, partition by partition in
  // ascending order: the worker's own partition directly in its table (no
  // message), every other by a request to its owner, serving its own inbox
  // while a grant is outstanding. Before that it serves its inbox once, so
  // an owner that never waits still answers the requests that came while it
  // ran its last transaction.
  RC acquire_all(auto& txn, const TxnDesc& d) {
    const uint32_t self = txn.thread_id();
    locks_->serve_pending(self);
    PerThread& me = per_thread_[self];
    if (txn.restarts() == 0) me.missed.clear();  // a new request: the list was about another one
    SpinWait w;
    const RC rc = lock_predicted(
        txn, d, /*block=*/false,
        [&] {
          if (locks_->serve_pending(self) == 0) idle(self, w, [] { return false; });
        },
        me.missed, [&](const LockPlan& plan) {  // the clock only where another owner is asked
          const bool remote = plan.parts.size() > 1 || (plan.parts.size() == 1 && plan.parts[0] != self);
          return me.measure && remote ? now_ns() : uint64_t{0};
        });
    if (const uint64_t start = txn.meta().wait_start; start != 0) {
      const uint64_t waited = now_ns() - start;
      ++me.remote_attempts;
      me.remote_wait_ns += waited;
      me.max_remote_wait_ns = std::max(me.max_remote_wait_ns, waited);
    }
    return rc;
  }

  // A row access the owners' locks cover (its key in the granted plan, or
  // locked at access before, in a mode that covers it) takes no row lock:
  // no other transaction can hold a conflicting owner lock, and every access
  // to a key routed to an owner goes through its owner's lock (below). A key
  // the plan misses is locked at access at its owner without queueing
  // (MessageLocks::try_lock; refused: RC::kLockConflict, and the retry locks
  // it up front). Keys of tables the workload leaves unpartitioned
  // (LockRouting::kNotLocked: TPC-C's ITEM and HISTORY) are never locked at
  // the owners, so their accesses take NoWait's row locks, as before.
  RC read(auto& txn, auto& a) {
    between_actions(txn.thread_id());
    const Cover c = cover(txn, a, /*exclusive=*/false);
    if (c == Cover::kRowLock) return NoWait::read(txn, a);
    if (c == Cover::kRefused) return RC::kLockConflict;
    a.data = a.row->data();
    return RC::kOk;
  }
  RC write(auto& txn, auto& a) {
    between_actions(txn.thread_id());
    const Cover c = cover(txn, a, /*exclusive=*/true);
    if (c == Cover::kRowLock) return NoWait::write(txn, a);
    if (c == Cover::kRefused) return RC::kLockConflict;
    txn.copy_locked_row(a);
    return RC::kOk;
  }
  // Inserts as NoWait's: the new row is private until commit publishes it
  // (a predicted insert's key is locked at its owner like any other).

  // Installs every write (covered or row-locked), publishes the inserts,
  // then releases the row locks and the owners' locks (strict 2PL on both).
  RC commit(auto& txn) {
    for (auto& a : txn.accesses())
      if (a.type == AccessType::kWrite) txn.install(a);
    txn.publish_inserts([](auto&, auto) {});
    NoWait::release(txn);
    release_owner_locks(txn);
    return RC::kOk;
  }

  // For tests: the messages worker `thread` sent to owners, and partition
  // p's lock table (REQUIRES: on its owner's thread, or while it is idle).
  uint64_t messages_sent(uint32_t thread) const { return locks_->messages_sent(thread); }
  const OwnerLockTable& table_of(uint32_t p) const { return locks_->table(p); }
  // For tests: serve this worker's partition once.
  size_t serve_pending(uint32_t thread) { return locks_->serve_pending(thread); }

  // cc_stats: the message locks' counters; idle_sleeps: how often a worker
  // slept on its doorbell over the whole run, drain included (0 at most one
  // worker per core); over the measured interval, the attempts whose plan
  // asked another worker's partition, their mean and longest time from the
  // first request to the last grant (the wait for busy owners), and the
  // keys locked at access beyond the plan (granted and refused).
  void reset_stats(uint32_t thread) {
    MessageLockProtocol::reset_stats(thread);
    PerThread& p = per_thread_[thread];
    p.remote_attempts = p.remote_wait_ns = p.max_remote_wait_ns = p.unpredicted = p.refused = 0;
    p.measure = true;
  }
  void stats_json(JsonWriter& w) const {
    MessageLockProtocol::stats_json(w);
    w.key("idle_sleeps").value(idle_sleeps());
    uint64_t attempts = 0, wait_ns = 0, max_ns = 0, unpredicted = 0, refused = 0;
    for (int t = 0; t < kMaxThreads; ++t) {
      const PerThread& p = per_thread_[t];
      attempts += p.remote_attempts;
      wait_ns += p.remote_wait_ns;
      max_ns = std::max(max_ns, p.max_remote_wait_ns);
      unpredicted += p.unpredicted;
      refused += p.refused;
    }
    w.key("remote_attempts").value(attempts);
    w.key("remote_grant_wait_us").value(attempts ? double(wait_ns) / double(attempts) / 1e3 : 0.0);
    w.key("max_remote_grant_wait_us").value(double(max_ns) / 1e3);
    w.key("unpredicted_owner_locks").value(unpredicted);
    w.key("refused_owner_locks").value(refused);
  }
  uint64_t idle_sleeps() const { return locks_ ? locks_->doorbell_sleeps() : 0; }
  bool sleeps_when_idle() const { return sleep_when_idle_; }

 private:
  // A worker with nothing to do (its inbox empty, its grant not arrived):
  // one round of `w`, or, when it sleeps when idle and has spun its rounds,
  // a sleep on its doorbell unless a message or `wake()` came after it read
  // the doorbell (Doorbell: no lost wake-up).
  void idle(uint32_t self, SpinWait& w, auto&& wake) {
    if (!sleep_when_idle_ || w.rounds() < SpinWait::kSpinsBeforeYield) return w.pause();
    Doorbell& bell = locks_->doorbell(self);
    const uint32_t seen = bell.seen();
    if (locks_->has_mail(self) || wake()) return;
    bell.sleep(seen);
  }

  void between_actions(uint32_t self) {
    if (++per_thread_[self].accesses % kServeEvery == 0) locks_->serve_pending(self);
  }

  enum class Cover : uint8_t {
    kHeld,     // the attempt holds the key's owner lock in a mode that covers the access
    kRowLock,  // no owner locks the key: the caller takes NoWait's row lock
    kRefused,  // the owner refused the missed key: RC::kLockConflict, the retry locks it with its plan
  };

  // Makes sure the attempt holds the owner's lock on a's key in a mode that
  // covers the access (locking a key the plan missed at its owner now).
  Cover cover(auto& txn, auto& a, bool exclusive) {
    const GlobalKey key = make_global_key(a.table->id(), a.key);
    const uint32_t p = owner_of(key);
    if (p == LockRouting::kNotLocked) return Cover::kRowLock;
    auto& m = txn.meta();
    if (m.plan.covers(p, key, exclusive)) return Cover::kHeld;
    for (const KeyLock& k : m.added)
      if (k.key == key && (k.exclusive || !exclusive)) return Cover::kHeld;
    const uint32_t self = txn.thread_id();
    PerThread& me = per_thread_[self];
    ++me.unpredicted;
    SpinWait w;
    const bool granted = locks_->try_lock(self, p, {key, exclusive}, [&] {
      if (locks_->serve_pending(self) == 0) idle(self, w, [] { return false; });
    });
    if (!granted) {
      ++me.refused;
      me.missed.push_back({key, exclusive});
      note_contended_latch();
      return Cover::kRefused;
    }
    m.locked = true;  // a release is owed at p, with the plan's
    if (std::find(m.plan.parts.begin(), m.plan.parts.end(), p) == m.plan.parts.end() &&
        std::find(m.extra_parts.begin(), m.extra_parts.end(), p) == m.extra_parts.end())
      m.extra_parts.push_back(p);
    m.added.push_back({key, exclusive});
    return Cover::kHeld;
  }

  struct alignas(64) PerThread {
    std::vector<KeyLock> missed;  // keys the current request's attempts were refused at access
    bool measure = false;         // in the measured interval (reset_stats)
    uint32_t accesses = 0;
    uint64_t remote_attempts = 0, remote_wait_ns = 0, max_remote_wait_ns = 0, unpredicted = 0, refused = 0;
  };
  std::unique_ptr<PerThread[]> per_thread_{new PerThread[kMaxThreads]};
  int workers_ = 0;
  bool sleep_when_idle_ = false;
  Shared<int, Modelled::kNo> done_{0};  // once per worker and run: not a line of the model
};

}  // namespace ccb
