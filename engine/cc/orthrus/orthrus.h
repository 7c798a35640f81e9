// Orthrus: a substitute for Orthrus (Ren, Faleiro, Abadi, "Design Principles
// for Scaling Multi-core OLTP Under High Contention", SIGMOD 2016): dedicated
// concurrency-control threads. Of --threads, ceil(threads / 5) are CC threads
// (1 CC thread per 4 execution threads, the ratio of the Strife paper's
// Orthrus setting, section 6.3) that own the lock table's partitions and do
// nothing else; the rest are execution threads. An execution thread sends its
// request's predicted lock set to the CC threads by message passing, in
// ascending partition order, one CC thread after another (section 3.2: locks
// are requested in a fixed global order, so the scheme is deadlock free), and
// waits in its reply queue until each grant arrives; it runs the procedure
// only when every grant arrived (engine/cc_helpers/message_locks.h). How the threads
// wait for a message is --orthrus_wait: they poll by default, as Orthrus's
// threads, one per core, poll their message queues (section 3); `sleep`
// blocks them in TBB's pop, the substitute's only mode before (every message
// then wakes a sleeping thread). See engine/cc/orthrus/README.md for what this keeps
// and drops.
//
// The CC threads are lent to the executor (lend_threads), natively and under
// sim alike: its launcher (engine/core/thread_group.h) runs them beside the
// execution threads (OS threads natively, virtual cores after the execution
// threads under sim) and stops them once the last execution thread returned.
#pragma once

#include <memory>

#include "engine/cc/nowait/nowait.h"
#include "engine/cc_helpers/message_locks.h"
#include "engine/cc/orthrus/options.h"

namespace ccb {

class Orthrus : public MessageLockProtocol<NoWait> {
 public:
  static constexpr const char* kName = "orthrus";
  using Options = OrthrusOptions;

  void configure(const OrthrusOptions& o) { wait_ = o.thread_wait(); }

  // The executor's lock-service hooks (protocol.h, HasLockService).
  static int lock_server_threads(int threads) { return (threads + 4) / 5; }  // CC:execution = 1:4
  void open(int lock_servers, int workers) { locks_ = std::make_unique<MessageLocks>(lock_servers, workers, wait_); }
  // A CC thread per partition: serves its partition until stopped.
  void lend_threads(LentThreads& out) {
    for (uint32_t p = 0; p < locks_->partitions(); ++p) {
      out.bodies.push_back([this, p] { locks_->serve_until_stopped(p); });
      out.stops.push_back([this, p] { locks_->stop(p); });
    }
  }
  // Nothing to do: an execution thread is done when its loop returns, and
  // the launcher stops the CC threads after the last one (lend_threads).
  void worker_done(uint32_t /*thread*/) {}
  void close() {}

  RC acquire_all(auto& txn, const TxnDesc& d) {
    return lock_predicted(txn, d, /*block=*/true, [] {});
  }

 private:
  ThreadWait wait_ = OrthrusOptions{}.thread_wait();
};

}  // namespace ccb
