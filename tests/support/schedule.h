// Deterministic schedules of a few transactions, for every protocol.
//
// Each transaction runs on its own thread, as a worker runs it, and the test
// thread hands it one step at a time (ScheduledTxn): a step that waits for
// another transaction (2PL waits, a lock owner queueing a request) blocks
// only its own thread, so "the second transaction waits until the first
// finishes" is an outcome a test can expect (waits()) and then resolve by
// finishing the first. A step expected to return at once is given
// kReturnLimit, far more than any step needs, so a slow machine cannot fail
// it; a step expected to wait must still be running after kPause, which no
// step that does not wait is.
//
// PreparedProtocol sets a protocol up as the engine does before its workers
// start: its lock service opened and its lent threads running (protocol.h
// HasLockService; LentThreadsRunning), a partitioning bound
// (NeedsPartitions: one partition per key). A protocol
// whose workers own lock partitions (Dora) has each transaction's thread
// serve its partition whenever it has no step to run, as an idle worker does.
//
// Thread safety: a ScheduledTxn's steps run on its thread, one at a time; its
// results (failure(), committed(), txn()) are read by the test thread after
// returns() (the step queue's mutex orders them).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "engine/txn/txn.h"
#include "engine/core/thread_group.h"
#include "tests/support/counters.h"
#include "tests/support/protocols.h"

namespace ccb::test_support {

// A thread that runs posted steps in order, calling `idle` between them while
// none is pending (if set; otherwise it sleeps).
class StepThread {
 public:
  explicit StepThread(std::function<void()> idle = {}) : idle_(std::move(idle)), thread_([this] { loop(); }) {}
  ~StepThread() {
    {
      std::lock_guard l(m_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void post(std::function<void()> step) {
    {
      std::lock_guard l(m_);
      steps_.push_back(std::move(step));
      ++posted_;
    }
    wake_.notify_all();
  }
  // Waits until every posted step has returned, at most `limit`.
  template <class Duration>
  bool wait_idle(Duration limit) {
    std::unique_lock l(m_);
    return done_.wait_for(l, limit, [&] { return finished_ == posted_; });
  }
  void wait_idle() {
    std::unique_lock l(m_);
    done_.wait(l, [&] { return finished_ == posted_; });
  }

 private:
  void loop() {
    std::unique_lock l(m_);
    for (;;) {
      if (!steps_.empty()) {
        std::function<void()> step = std::move(steps_.front());
        steps_.pop_front();
        l.unlock();
        step();
        l.lock();
        ++finished_;
        done_.notify_all();
      } else if (stop_) {
        return;
      } else if (idle_) {
        l.unlock();
        idle_();
        l.lock();
        wake_.wait_for(l, std::chrono::microseconds(100), [&] { return !steps_.empty() || stop_; });
      } else {
        wake_.wait(l, [&] { return !steps_.empty() || stop_; });
      }
    }
  }

  std::function<void()> idle_;
  std::mutex m_;
  std::condition_variable wake_, done_;
  std::deque<std::function<void()>> steps_;
  uint64_t posted_ = 0, finished_ = 0;
  bool stop_ = false;
  std::thread thread_;  // last: starts once the members it uses exist
};

// Workers own a partition of the lock table and serve it whenever they are
// not running a transaction (Dora: no lock-service threads of its own).
template <class CC>
concept WorkersServeLocks = HasLockService<CC> && requires(CC cc, uint32_t thread) { cc.serve_pending(thread); };

// A lock-service protocol's lent threads (its service threads, Orthrus's CC
// threads; protocol.h HasLockService) on OS threads for a test that drives
// its transactions by hand, as the executor's launcher runs them
// (engine/core/thread_group.h): started here, stopped and joined when the
// object goes.
class LentThreadsRunning {
 public:
  template <class CC>
  explicit LentThreadsRunning(CC& cc) {
    LentThreads lent;
    cc.lend_threads(lent);
    stops_ = std::move(lent.stops);
    for (auto& body : lent.bodies) threads_.emplace_back(std::move(body));
  }
  ~LentThreadsRunning() {
    for (auto& stop : stops_) stop();
    for (std::thread& t : threads_) t.join();
  }
  LentThreadsRunning(const LentThreadsRunning&) = delete;
  LentThreadsRunning& operator=(const LentThreadsRunning&) = delete;

 private:
  std::vector<std::function<void()>> stops_;
  std::vector<std::thread> threads_;
};

// CC set up for `workers` workers, as the engine sets it up (rundb/run.h,
// the online executor): KeyPartitions bound if it needs partitions, its lock
// service opened with lock_server_threads(workers) threads of its own
// running, and stopped and closed again at the end.
template <class CC>
class PreparedProtocol {
 public:
  explicit PreparedProtocol(int workers) {
    if constexpr (NeedsPartitions<CC>) {
      EngineConfig cfg;
      cfg.threads = workers;
      cc.bind_workload(cfg, partitions_);
    }
    if constexpr (HasLockService<CC>) {
      cc.open(CC::lock_server_threads(workers), workers);
      service_.emplace(cc);
    }
  }
  ~PreparedProtocol() {
    if constexpr (HasLockService<CC>) {
      service_.reset();
      cc.close();
    }
  }
  PreparedProtocol(const PreparedProtocol&) = delete;
  PreparedProtocol& operator=(const PreparedProtocol&) = delete;

  CC cc;

 private:
  KeyPartitions partitions_;
  std::optional<LentThreadsRunning> service_;  // with a lock service
};

// One transaction of a schedule, on its own thread. The step functions queue
// a step and return at once; returns() and waits() observe them. After a
// failed operation the attempt is aborted, as the executor aborts it, and the
// operations queued after it are skipped until the next begin().
template <class CC>
class ScheduledTxn {
 public:
  static constexpr auto kReturnLimit = std::chrono::seconds(10);
  static constexpr auto kPause = std::chrono::milliseconds(50);

  ScheduledTxn(CC& cc, uint32_t thread, std::initializer_list<Table<CC>*> tables)
      : cc_(cc), txn_(cc, thread, nullptr), thread_(idle_hook(cc, thread)) {
    for (Table<CC>* t : tables) txn_.register_table(*t);
  }
  ~ScheduledTxn() { finish(); }
  ScheduledTxn(const ScheduledTxn&) = delete;
  ScheduledTxn& operator=(const ScheduledTxn&) = delete;

  // A new attempt; a protocol that locks the predicted access set up front
  // locks `predicted` now (acquire_all), as the executor has it do.
  ScheduledTxn& begin(const TxnDesc& predicted = {}) {
    thread_.post([this, predicted] {
      txn_.begin();
      active_ = true;
      failure_ = RC::kOk;
      committed_ = false;
      if constexpr (HasAcquireAll<CC>) {
        const RC rc = cc_.acquire_all(txn_, predicted);
        if (rc != RC::kOk) fail(rc);
      }
    });
    return *this;
  }
  // An operation of the procedure: kOk, or the reason it failed.
  ScheduledTxn& step(std::function<RC(Txn<CC>&)> op) {
    thread_.post([this, op = std::move(op)] {
      if (!active_) return;
      const RC rc = op(txn_);
      if (rc != RC::kOk) fail(rc);
    });
    return *this;
  }
  ScheduledTxn& read(Table<CC>& table, uint64_t key, uint64_t* value = nullptr) {
    return step([&table, key, value](Txn<CC>& t) {
      return test_support::read(t, table, key, value) ? RC::kOk : t.failure();
    });
  }
  ScheduledTxn& increment(Table<CC>& table, uint64_t key) {
    return step([&table, key](Txn<CC>& t) { return test_support::increment(t, table, key) ? RC::kOk : t.failure(); });
  }
  ScheduledTxn& insert(Table<CC>& table, uint64_t key, uint64_t value) {
    return step([&table, key, value](Txn<CC>& t) {
      uint8_t* p = t.insert(table, key);
      if (p == nullptr) return t.failure();
      std::memcpy(p, &value, 8);
      return RC::kOk;
    });
  }
  ScheduledTxn& commit() {
    thread_.post([this] {
      if (!active_) return;
      active_ = false;
      failure_ = txn_.commit();  // a failed commit cleans up itself
      committed_ = failure_ == RC::kOk;
    });
    return *this;
  }
  ScheduledTxn& abort() {
    thread_.post([this] {
      if (!active_) return;
      active_ = false;
      txn_.abort();
    });
    return *this;
  }

  // Commits and waits: success if the commit returned and succeeded.
  ::testing::AssertionResult commits() {
    commit();
    if (!returns()) return ::testing::AssertionFailure() << "the commit did not return";
    if (!committed_) return ::testing::AssertionFailure() << "the attempt failed: " << rc_name(failure_);
    return ::testing::AssertionSuccess();
  }

  // Every queued step returned (within kReturnLimit).
  bool returns() { return thread_.wait_idle(kReturnLimit); }
  // A queued step is still running after kPause: it waits.
  bool waits() { return !thread_.wait_idle(kPause); }
  // Gives the queued steps kPause to return, expecting nothing: for schedules
  // whose outcome does not depend on which transaction waits.
  void let_run() { thread_.wait_idle(kPause); }
  // Aborts the attempt if it is still running, then waits for every step.
  // Ends a schedule whose expectation failed with a step still waiting.
  void finish() {
    abort();
    thread_.wait_idle();
  }

  // After returns(): why the attempt failed (kOk if it did not), and whether
  // its last commit() succeeded.
  RC failure() const { return failure_; }
  bool committed() const { return committed_; }
  Txn<CC>& txn() { return txn_; }

 private:
  static std::function<void()> idle_hook(CC& cc, uint32_t thread) {
    if constexpr (WorkersServeLocks<CC>) {
      return [&cc, thread] { cc.serve_pending(thread); };
    } else {
      return {};
    }
  }
  void fail(RC rc) {
    txn_.abort();
    active_ = false;
    failure_ = rc;
  }

  CC& cc_;
  Txn<CC> txn_;
  bool active_ = false, committed_ = false;
  RC failure_ = RC::kOk;
  StepThread thread_;  // last: its steps use the members above
};

// Ends the schedules of `txns` together: each transaction that still runs
// aborts, which releases whatever another one waits for.
template <class... Txns>
void finish_all(Txns&... txns) {
  (txns.abort(), ...);
  (txns.finish(), ...);
}

}  // namespace ccb::test_support
