// Dora: a substitute for DORA (Pandis, Johnson, Hardavellas, Ailamaki,
// "Data-Oriented Transaction Execution", VLDB 2010): thread-to-data
// execution. Each worker owns one partition of the lock table (partitions =
// --threads) and is the only thread that touches it (section 4.1: "each
// executor ... the only one that can access" its dataset; local lock tables,
// no centralized lock manager). A transaction's coordinator sends each owner
// of its predicted keys a lock request, in ascending partition order
// (engine/cc_helpers/message_locks.h), and runs the procedure once every owner
// granted: the rendezvous of section 4.2.1 ("a transaction commits when all
// its actions finished"). While it waits, the coordinator serves its own
// partition's inbox, and it serves it again at every row access of its
// procedure, so an owner never blocks its partition for long. The procedure
// itself runs on the coordinator, not split into actions at the owners; see
// engine/cc/dora/README.md for what this keeps and drops.
#pragma once

#include <atomic>

#include "engine/cc_helpers/common.h"
#include "engine/cc_helpers/message_locks.h"
#include "engine/core/topology.h"

namespace ccb {

class Dora : public MessageLockProtocol {
 public:
  static constexpr const char* kName = "dora";

  // The executor's lock-service hooks (protocol.h, HasLockService).
  static int lock_server_threads(int /*threads*/) { return 0; }  // every worker owns a partition
  void open(int /*lock_servers*/, int workers) {
    workers_ = workers;
    done_.store(0, std::memory_order_relaxed);
    locks_ = std::make_unique<MessageLocks>(workers, workers);
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

  RC acquire_all(auto& txn, const TxnDesc& d) {
    const uint32_t self = txn.thread_id();
    SpinWait w;
    return lock_predicted(txn, d, /*block=*/false, [&] {
      if (locks_->serve_pending(self) == 0) idle(self, w, [] { return false; });
    });
  }
  // A worker also serves its partition at every row access of its own
  // procedure (one try_pop when the inbox is empty), so a coordinator waiting
  // for this owner's grant waits for at most one row operation, not a whole
  // transaction: DORA's executors likewise interleave the actions of many
  // transactions (section 4.2). Serving only grants or queues, never blocks.
  RC read(auto& txn, auto& a) {
    locks_->serve_pending(txn.thread_id());
    return NoWait::read(txn, a);
  }
  RC write(auto& txn, auto& a) {
    locks_->serve_pending(txn.thread_id());
    return NoWait::write(txn, a);
  }

  // For tests: serve this worker's partition once.
  size_t serve_pending(uint32_t thread) { return locks_->serve_pending(thread); }

  // cc_stats: the message locks' counters, and idle_sleeps: how often a
  // worker slept on its doorbell over the whole run, drain included (0 at
  // most one worker per core).
  void stats_json(JsonWriter& w) const {
    MessageLockProtocol::stats_json(w);
    w.key("idle_sleeps").value(idle_sleeps());
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

  int workers_ = 0;
  bool sleep_when_idle_ = false;
  Shared<int, Modelled::kNo> done_{0};  // once per worker and run: not a line of the model
};

}  // namespace ccb
