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
// only when every grant arrived (engine/cc/message_locks.h). How the threads
// wait for a message is --orthrus_wait: they poll by default, as Orthrus's
// threads, one per core, poll their message queues (section 3); `sleep`
// blocks them in TBB's pop, the substitute's only mode before (every message
// then wakes a sleeping thread). See engine/cc/orthrus/README.md for what this keeps
// and drops.
//
// Under sim (engine/core/sim_hooks.h) open() starts no thread: the CC threads are
// lent to the online executor (lend_threads), which runs them as virtual
// cores beside the execution threads, and the last execution thread to
// finish stops them (worker_done), inside the simulation.
#pragma once

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "engine/cc/message_locks.h"
#include "engine/cc/orthrus/options.h"

namespace ccb {

class Orthrus : public MessageLockProtocol {
 public:
  static constexpr const char* kName = "orthrus";
  using Options = OrthrusOptions;

  void configure(const OrthrusOptions& o) { wait_ = o.thread_wait(); }

  // The executor's lock-service hooks (protocol.h, HasLockService).
  static int lock_server_threads(int threads) { return (threads + 4) / 5; }  // CC:execution = 1:4
  void open(int lock_servers, int workers) {
    locks_ = std::make_unique<MessageLocks>(lock_servers, workers, wait_);
    if constexpr (kSimBuild) {
      workers_left_.unmodelled().store(workers, std::memory_order_relaxed);
      return;  // lend_threads()
    }
    for (int p = 0; p < lock_servers; ++p)
      cc_threads_.emplace_back([this, p] { locks_->serve_until_stopped(static_cast<uint32_t>(p)); });
  }
  void lend_threads(LentThreads& out) {
    for (uint32_t p = 0; p < locks_->partitions(); ++p)
      out.bodies.push_back([this, p] { locks_->serve_until_stopped(p); });
  }
  void worker_done(uint32_t /*thread*/) {
    if constexpr (kSimBuild) {
      if (workers_left_.unmodelled().fetch_sub(1, std::memory_order_acq_rel) == 1)
        for (uint32_t p = 0; p < locks_->partitions(); ++p) locks_->stop(p);
    }
  }
  void close() {
    for (uint32_t p = 0; p < cc_threads_.size(); ++p) locks_->stop(p);
    for (auto& t : cc_threads_) t.join();
    cc_threads_.clear();
  }
  ~Orthrus() {
    if (!cc_threads_.empty()) close();
  }

  RC acquire_all(auto& txn, const TxnDesc& d) {
    return lock_predicted(txn, d, /*block=*/true, [] {});
  }

 private:
  ThreadWait wait_ = OrthrusOptions{}.thread_wait();
  std::vector<std::thread> cc_threads_;
  Shared<int> workers_left_{0};  // under sim: execution threads not done yet
};

}  // namespace ccb
