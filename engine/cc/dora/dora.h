// Dora: a substitute for DORA (Pandis, Johnson, Hardavellas, Ailamaki,
// "Data-Oriented Transaction Execution", VLDB 2010): thread-to-data
// execution. Each worker owns one partition of the lock table (partitions =
// --threads) and is the only thread that touches it (section 4.1: "each
// executor ... the only one that can access" its dataset; local lock tables,
// no centralized lock manager). A transaction's coordinator sends each owner
// of its predicted keys a lock request, in ascending partition order
// (engine/cc/message_locks.h), and runs the procedure once every owner
// granted: the rendezvous of section 4.2.1 ("a transaction commits when all
// its actions finished"). While it waits, the coordinator serves its own
// partition's inbox, and it serves it again at every row access of its
// procedure, so an owner never blocks its partition for long. The procedure
// itself runs on the coordinator, not split into actions at the owners; see
// engine/cc/dora/README.md for what this keeps and drops.
#pragma once

#include <atomic>

#include "engine/cc/common.h"
#include "engine/cc/message_locks.h"

namespace ccb {

class Dora : public MessageLockProtocol {
 public:
  static constexpr const char* kName = "dora";

  // The executor's lock-service hooks (protocol.h, HasLockService).
  static int lock_server_threads(int /*threads*/) { return 0; }  // every worker owns a partition
  void open(int /*lock_servers*/, int workers) {
    workers_ = workers;
    done_.unmodelled().store(0, std::memory_order_relaxed);
    locks_ = std::make_unique<MessageLocks>(workers, workers);
  }
  // After its last transaction a worker keeps serving its partition until
  // every worker is done: another coordinator may still wait for its grant.
  void worker_done(uint32_t thread) {
    done_.unmodelled().fetch_add(1, std::memory_order_acq_rel);
    for (SpinWait w; done_.unmodelled().load(std::memory_order_acquire) < workers_;)
      if (locks_->serve_pending(thread) == 0) w.pause();
  }
  void close() {}

  RC acquire_all(auto& txn, const TxnDesc& d) {
    const uint32_t self = txn.thread_id();
    SpinWait w;
    return lock_predicted(txn, d, /*block=*/false, [&] {
      if (locks_->serve_pending(self) == 0) w.pause();
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

 private:
  int workers_ = 0;
  Shared<int> done_{0};
};

}  // namespace ccb
