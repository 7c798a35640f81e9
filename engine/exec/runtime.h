// What the two executors (the online executor, engine/exec/online_executor.h,
// and the bundle executor, engine/exec/bundle_executor.h) share around their
// workers' loops: the result of a run (RunOutcome), the configuration checks
// of a protocol x workload x threads combination, the optional workload
// members both use, the registration of the workload's tables with a
// worker's transaction, a worker's idle wait and its backoff after an abort,
// and Runtime<CC>: the run's threads (engine/core/thread_group.h, RunThreads)
// set up for the protocol.
//
// Runtime<CC> starts, natively and under sim alike:
//   workers       worker_threads<CC>(cfg) of them, pinned with --pin (their
//                 CPUs are the result's worker_cpus);
//   lock service  a protocol with one (HasLockService, protocol.h) is opened
//                 before the workers start and closed after the run; its
//                 service threads (lend_threads: Orthrus's CC threads) run
//                 beside the workers and stop once the last worker returned;
//                 each worker calls worker_done() after its loop;
//   epoch ticker  a protocol with an epoch clock (HasEpochTick) is tick()ed
//                 every kEpochMillis until the executor calls stop_ticking();
//   latches       each worker's contended latch acquisitions
//                 (engine/core/latch_contention.h) from the moment it calls
//                 measuring() (its measured interval starts) to its return;
//                 their sum is the result's contended_latch_acquisitions.
// Under sim the workers are virtual cores 0..n-1, the lent threads the
// virtual cores after them, the ticker and the executor's main body fibers
// beside them (engine/sim/sim.h); the sleeps and waits below follow virtual
// time.
//
// Thread safety: a Runtime is built and run() once, by one thread; a worker
// calls measuring() with its own index only; stop_ticking() from any thread.
#pragma once

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sched.h>

#include "engine/txn/protocol.h"
#include "engine/config.h"
#include "engine/core/clock.h"
#include "engine/core/latch_contention.h"
#include "engine/core/random.h"
#include "engine/core/spin.h"
#include "engine/core/table.h"
#include "engine/core/thread_group.h"
#include "engine/core/topology.h"
#include "engine/exec/thread_reorder.h"
#include "engine/exec/tsdefer.h"
#include "engine/sim/sim.h"
#include "engine/stats/thread_stats.h"
#include "engine/verify/cf_check.h"
#include "engine/verify/recorder.h"
#include "engine/workload.h"  // the optional workload capabilities

namespace ccb {

// Registers every table of the workload with a transaction whose protocol
// locks the predicted access set (acquire_all() finds a key's table by its id).
template <class CC, class W, class TxnT>
  requires HasTableById<W, CC>
void register_tables(W& w, TxnT& txn) {
  for (uint32_t id = 0; id < (1u << kTableIdBits); ++id)
    if (Table<CC>* t = w.table_by_id(id)) txn.register_table(*t);
}

template <class W>
struct RunOutcome {
  ThreadStats stats;
  double measured_s = 0;
  double warmup_s = 0;
  std::vector<typename W::ThreadState> workload_states;
  std::vector<verify::HistoryLog> history_logs;  // one per worker, empty unless --verify
  std::vector<int> worker_cpus;                  // pinned CPU per worker, empty if not pinned
  std::optional<TsDeferStats> tsdefer;           // with online TsDEFER (--frontend=tsdefer), measured interval
  std::optional<ThreadReorderStats> reorder;     // with thread-aware reordering (--frontend=reorder), measured interval
  uint64_t contended_latch_acquisitions = 0;     // measured interval, all workers
  // Bundle executor only (engine/exec/bundle_executor.h): the result's whole
  // "frontend" object, and with --verify where each queue-phase transaction ran.
  std::string frontend_json;
  std::vector<verify::QueueTag> queue_tags;
};

// The threads that run transactions: --threads, less the lock servers of a
// protocol with a lock service (Orthrus's CC threads; protocol.h).
template <class CC>
int worker_threads(const EngineConfig& cfg) {
  if constexpr (HasLockService<CC>) return cfg.threads - CC::lock_server_threads(cfg.threads);
  else return cfg.threads;
}

// Configuration errors of the protocol x workload x threads combination.
template <class CC, class W>
void check_executor_support(const EngineConfig& cfg) {
  if constexpr (HasLockService<CC>) {
    if (worker_threads<CC>(cfg) < 1)
      throw ConfigError("threads", "protocol " + std::string(CC::kName) + " needs at least one execution thread " +
                                       "besides its " + std::to_string(CC::lock_server_threads(cfg.threads)) +
                                       " lock-server thread(s); give more threads");
  }
  if constexpr (HasMaxThreads<CC>) {
    if (cfg.threads > CC::kMaxThreads)
      throw ConfigError("threads", "protocol " + std::string(CC::kName) + " supports at most " +
                                       std::to_string(CC::kMaxThreads) + " threads");
  }
  if constexpr (HasAcquireAll<CC> && !HasTableById<W, CC>) {
    throw ConfigError("cc", "protocol " + std::string(CC::kName) + " locks the predicted access set, which needs " +
                                "the workload to expose its tables (table_by_id); workload " +
                                std::string(W::kName) + " does not");
  }
}

// A worker's idle wait until `deadline` (now_ns() time): the backoff after
// an abort, and the abort buffer's wait when every slot waits. Under sim a
// virtual wait, no spin rounds.
inline void idle_until_ns(const EngineConfig& cfg, uint64_t deadline) {
  if (sim::in_fiber()) return sim::sleep_until_ns(deadline);
  while (now_ns() < deadline) {
    if (cfg.threads > static_cast<int>(Topology::get().cpus.size())) sched_yield();  // let the holder run
    else cpu_relax();
  }
}

// Randomized exponential backoff after an abort (--abort_policy=backoff):
// wait uniformly in [0, min(--backoff_max_us, 1us * 2^retries)]. None for a
// protocol that backs off itself (HasOwnBackoff, protocol.h: Cicada), so a
// retry waits once, the protocol's way.
template <class CC>
void backoff_after_abort(const EngineConfig& cfg, Random& rng, uint32_t retries) {
  if constexpr (HasOwnBackoff<CC>) return;
  if (cfg.backoff_max_us == 0) return;
  const uint64_t cap_ns = uint64_t{cfg.backoff_max_us} * 1000;
  const uint64_t window = std::min<uint64_t>(cap_ns, uint64_t{1000} << std::min<uint32_t>(retries, 20));
  idle_until_ns(cfg, now_ns() + rng.below(window + 1));
}

// The run's threads for protocol CC (the header).
template <class CC>
class Runtime {
 public:
  // REQUIRES: cfg and cc outlive the runtime; check_executor_support passed.
  Runtime(const EngineConfig& cfg, CC& cc)
      : cfg_(cfg),
        cc_(cc),
        workers_(worker_threads<CC>(cfg)),
        cpus_(pinning(cfg, workers_)),
        threads_(workers_, cpus_) {
    threads_.count(latches_);
    if constexpr (HasEpochTick<CC>)
      threads_.tick_every(std::chrono::milliseconds(CC::kEpochMillis), [&cc] { cc.tick(); });
  }

  int workers() const { return workers_; }
  // Worker i's CPU at [i] with --pin (the result's worker_cpus), else empty.
  const std::vector<int>& worker_cpus() const { return cpus_; }

  // Runs worker(i) on every worker and `main` beside them (the executor's
  // controller, or nothing); returns when every thread of the run has.
  void run(const std::function<void(int)>& worker, std::function<void()> main) {
    if constexpr (HasLockService<CC>) {
      cc_.open(cfg_.threads - workers_, workers_);
      LentThreads lent;
      cc_.lend_threads(lent);
      threads_.lend(std::move(lent));
    }
    threads_.run(
        [&](int i) {
          worker(i);
          if constexpr (HasLockService<CC>) cc_.worker_done(static_cast<uint32_t>(i));
        },
        std::move(main));
    if constexpr (HasLockService<CC>) cc_.close();
  }

  // On worker i's thread: its measured interval starts (its latch count starts from here).
  void measuring(int i) { latches_.mark(i); }
  // The epoch ticker's last tick is behind (the measured interval is over).
  void stop_ticking() { threads_.stop_ticking(); }
  // REQUIRES: run() returned.
  uint64_t contended_latch_acquisitions() const { return latches_.total(); }

 private:
  static std::vector<int> pinning(const EngineConfig& cfg, int workers) {
    std::vector<int> cpus;
    if (!cfg.pin) return cpus;
    const auto order = Topology::get().pinning_order();
    for (int i = 0; i < workers; ++i) cpus.push_back(order[i % order.size()].cpu);
    return cpus;
  }
  static uint64_t& latch_word() { return tls_contended_latch_acquisitions; }

  const EngineConfig& cfg_;
  CC& cc_;
  const int workers_;
  const std::vector<int> cpus_;
  WorkerCounter latches_{&latch_word};
  RunThreads threads_;
};

}  // namespace ccb
