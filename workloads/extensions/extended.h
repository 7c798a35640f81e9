// Extended<W>: any workload W with TSKD's runtime skew and I/O latency
// (extensions.h) applied around its stored procedure.
//
// It satisfies the Workload concept by delegating everything to W (tables,
// generation, description, invariants) and adds to each request the two ranks
// drawn at generation ("Transactions are assigned with a minimum runtime
// randomly drawn", TSKD Sec. 6.1), so a request keeps its bound and delay
// across retries and replays. run() executes W's procedure and, if it
// succeeded, busy-waits before returning to the executor, i.e. before commit,
// while the attempt still holds its locks (2PL) or has not yet validated
// (optimistic protocols) -- where TSKD delays the commit:
//   1. until attempt start + r_T * minT * t_T (runtime lower bound);
//   2. for r_IO * minIO cycles (I/O latency "at transaction commit time").
// An attempt that fails inside the procedure returns at once, as it never
// reaches its commit.
//
// Calibration of t_T (unless --runtime_skew_t_us fixes it): each worker runs
// its first 2 x calibration_txns commits with no delay at all. The first half
// warms caches, arenas and branch predictors (timed, the very first
// transactions of a run are several times slower than the steady state); in
// the second half it times each committed attempt from the start of run() to
// on_commit(), which the executor calls right after the commit. Then it
// contributes the sum to the shared RuntimeCalibration and from its next
// transaction on applies the delays with the published mean. A worker that
// is still calibrating when the measured interval begins would be measured
// without its delays: such a run is refused after it ends
// (check_measurement, naming --runtime_skew_calibration_txns), never
// reported as a run with runtime skew. The per-worker state travels from
// run() to on_commit() through attempt_scratch (same thread, see its header).
//
// Use: with_extensions(w, ExtensionOptions::from_flags(), f) calls f(w) when
// both extensions are off (the plain workload, no wrapper on the hot path),
// else f(Extended<W>(w, ...)).
//
// Thread safety: as W; the calibration is shared and synchronized.
#pragma once

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/txn/txn.h"
#include "engine/core/cli.h"
#include "engine/core/random.h"
#include "engine/core/json.h"
#include "workloads/common/attempt_scratch.h"
#include "workloads/extensions/extensions.h"
#include "engine/workload.h"

namespace ccb {

template <class W>
class Extended {
 public:
  static constexpr const char* kName = W::kName;
  struct Request {
    typename W::Request inner;
    uint32_t type = 0;          // inner.type, for the executor's per-type statistics
    uint32_t runtime_rank = 0;  // r_T in [1, p]; 0 = no lower bound
    uint32_t io_rank = 0;       // r_IO in [0, l_IO]
  };
  struct ThreadState {
    typename W::ThreadState inner;
  };

  // Refuses (ConfigError naming the flag) delays that would keep one
  // transaction, and so the run, going far past --duration (see kMaxDelay*).
  Extended(W& inner, const ExtensionOptions& o)
      : inner_(inner),
        opt_(check_delays(o)),
        runtime_(o.runtime),
        io_(o.io),
        calibration_(static_cast<uint64_t>(o.runtime.t_us * 1e3)),
        instance_(next_instance_.fetch_add(1, std::memory_order_relaxed) + 1) {}

  // The longest delay a transaction may get from either extension: a run
  // ends at most about this much after --duration. The paper's settings are
  // far below (runtime bound p x minT x t_T: 48 x 0.5 x some us; I/O delay
  // l_IO x minIO: 50 x 5000 cycles).
  static constexpr double kMaxDelayUs = 1e6;
  static constexpr double kMaxDelayCycles = 2e9;  // about a second at 2 GHz

  std::vector<std::string> txn_types() const { return inner_.txn_types(); }
  void load(int threads) { inner_.load(threads); }

  void generate(Random& rng, uint32_t thread, Request& r) const {
    inner_.generate(rng, thread, r.inner);
    r.type = r.inner.type;
    r.runtime_rank = runtime_.draw_rank(rng);
    r.io_rank = io_.draw_rank(rng);
  }

  template <class TxnT>
  RC run(TxnT& txn, const Request& r) {
    Worker& me = worker();
    if (opt_.runtime.enabled) me.start_ns = now_ns();
    const RC rc = inner_.run(txn, r.inner);
    if (rc != RC::kOk || me.calibrating) return rc;
    if (r.runtime_rank > 0) spin_until_ns(me.start_ns + runtime_.bound_ns(r.runtime_rank, calibration_.t_ns()));
    if (r.io_rank > 0) spin_cycles(io_.cycles(r.io_rank));
    return RC::kOk;
  }

  // W's description with the two ranks, which set the cost (TxnDesc::cost_params).
  TxnDesc describe(const Request& r) const {
    TxnDesc d = inner_.describe(r.inner);
    d.cost_params = {r.runtime_rank, r.io_rank};
    return d;
  }

  void on_commit(ThreadState& s, const Request& r) const {
    inner_.on_commit(s.inner, r.inner);
    Worker& me = worker();
    if (!me.calibrating) return;
    calibration_.count_uncalibrated_commit();
    const uint32_t k = opt_.runtime.calibration_txns;
    if (++me.n <= k) return;  // warming up
    me.sum_ns += now_ns() - me.start_ns;
    if (me.n == 2 * uint64_t{k}) {
      calibration_.contribute(me.sum_ns, k);
      me.calibrating = false;
    }
  }

  std::vector<InvariantResult> check_invariants(const std::vector<ThreadState>& states) {
    std::vector<typename W::ThreadState> inner;
    inner.reserve(states.size());
    for (const ThreadState& s : states) inner.push_back(s.inner);
    return inner_.check_invariants(inner);
  }

  void options_json(JsonWriter& w) const {
    inner_.options_json(w);
    opt_.to_json(w);
    w.key("runtime_skew_t_ns_used").value(calibration_.t_ns());
    w.key("runtime_skew_calibrated_workers").value(calibration_.workers());
  }
  size_t memory_bytes() const { return inner_.memory_bytes(); }
  MemoryEstimate memory_estimate() const { return inner_.memory_estimate(); }

  // W's optional members, where W has them (engine/exec/online_executor.h).
  auto table_by_id(uint32_t id) const
    requires requires(const W& w, uint32_t i) { w.table_by_id(i); }
  {
    return inner_.table_by_id(id);
  }
  uint32_t partition_count(uint32_t threads) const
    requires PartitionedWorkload<W>
  {
    return inner_.partition_count(threads);
  }
  uint32_t partition_of(GlobalKey k, uint32_t n) const
    requires PartitionedWorkload<W>
  {
    return inner_.partition_of(k, n);
  }
  // The bundle executor's OLLP reconnaissance (engine/exec/bundle_batches.h):
  // without it a wrapped TPC-C would run Payments by last name, OrderStatus,
  // Delivery and StockLevel in CC-free queues with rows undeclared.
  void begin_reconnaissance(std::span<Request> batch)
    requires requires(W& w, std::span<Request> b) { w.begin_reconnaissance(b, &Request::inner); }
  {
    inner_.begin_reconnaissance(batch, &Request::inner);
  }
  bool reconnoiter(Request& r) const
    requires HasReconnaissance<W>
  {
    return inner_.reconnoiter(r.inner);
  }
  // The queue binding after the plan (engine/exec/queue_binding.h): without
  // it a wrapped TPC-C's Deliveries keep the batch-order binding.
  void begin_queue_binding()
    requires HasQueueBinding<W>
  {
    inner_.begin_queue_binding();
  }
  bool bind_in_queue(Request& r) const
    requires HasQueueBinding<W>
  {
    return inner_.bind_in_queue(r.inner);
  }
  void accept_binding(const Request& r)
    requires HasQueueBinding<W>
  {
    inner_.accept_binding(r.inner);
  }
  bool read_only(const Request& r) const
    requires HasReadOnlyRequests<W>
  {
    return inner_.read_only(r.inner);
  }
  // The measured interval's start (the executors call it): from here on a
  // worker still calibrating t_T commits without its delays (counted, see
  // check_measurement), and the clock of requests that change with time
  // (HOT's moving hot set), without which a wrapped HOT would never move its
  // hot records.
  void on_measure_start(uint64_t now) {
    calibration_.start_measuring();
    if constexpr (requires { inner_.on_measure_start(now); }) inner_.on_measure_start(now);
  }
  // After the run (rundb/run.h), before anything is written: a run in which
  // a worker was still calibrating t_T in the measured interval measured
  // transactions without their runtime bounds (all of them when no worker
  // finished); it is refused, naming the flag, rather than reported as a
  // run with runtime skew.
  void check_measurement(uint64_t measured_commits) const {
    const uint64_t undelayed = calibration_.uncalibrated_measured_commits();
    if (undelayed == 0) return;
    throw ConfigError(
        "runtime_skew_calibration_txns",
        std::to_string(undelayed) + " of the " + std::to_string(measured_commits) +
            " measured commits ran without runtime skew: their worker had not finished calibrating t_T (" +
            std::to_string(2 * uint64_t{opt_.runtime.calibration_txns}) + " commits each; " +
            std::to_string(calibration_.workers()) +
            " workers finished in the whole run) before the measured interval began. Allowed: a warm-up in which "
            "every worker commits that many (a longer --warmup or a smaller --runtime_skew_calibration_txns), or "
            "t_T fixed with --runtime_skew_t_us; no result written");
  }
  uint64_t description_epoch() const
    requires requires(const W& w) { { w.description_epoch() } -> std::convertible_to<uint64_t>; }
  {
    return inner_.description_epoch();
  }

  W& inner() { return inner_; }
  const RuntimeCalibration& calibration() const { return calibration_; }

 private:
  static const ExtensionOptions& check_delays(const ExtensionOptions& o) {
    const RuntimeSkewOptions& rt = o.runtime;
    const double longest_us = rt.p * rt.min_t * rt.t_us;  // t_us = 0: measured, a transaction's own runtime
    require(!rt.enabled || longest_us <= kMaxDelayUs, "runtime_skew_t_us",
            "a t_T at which the longest runtime bound, p x minT x t_T (--runtime_skew_p=" + std::to_string(rt.p) +
                ", --runtime_skew_min_t=" + std::to_string(rt.min_t) + "), is at most 1 s: at most " +
                std::to_string(kMaxDelayUs / (rt.p * rt.min_t)) + " us");
    const double longest_cycles = static_cast<double>(o.io.l_io) * o.io.min_cycles;
    require(longest_cycles <= kMaxDelayCycles, "io_latency_min_cycles",
            "a minIO at which the longest I/O delay, l_IO x minIO (--io_latency_l=" + std::to_string(o.io.l_io) +
                "), is at most 2e9 cycles: at most " +
                std::to_string(static_cast<uint64_t>(kMaxDelayCycles / std::max(o.io.l_io, 1u))));
    return o;
  }

  // Per-worker state, keyed to this wrapper instance so that a thread reused
  // by a later instance (tests) starts afresh.
  struct Worker {
    uint64_t instance = 0;
    uint64_t start_ns = 0;  // start of the current attempt
    bool calibrating = false;
    uint64_t n = 0, sum_ns = 0;
  };
  Worker& worker() const {
    Worker& me = attempt_scratch<Extended, Worker>();
    if (me.instance != instance_) {
      me = Worker{};
      me.instance = instance_;
      me.calibrating = opt_.runtime.enabled && !calibration_.fixed();
    }
    return me;
  }

  W& inner_;
  ExtensionOptions opt_;
  RuntimeSkew runtime_;
  IoDelay io_;
  mutable RuntimeCalibration calibration_;
  uint64_t instance_;
  static inline std::atomic<uint64_t> next_instance_{0};
};

// Calls f(w) when no extension is enabled, else f(e) with e an Extended<W>
// around w; returns what f returns (both calls must return the same type).
template <class W, class F>
auto with_extensions(W& w, const ExtensionOptions& ext, F&& f) {
  if (!ext.enabled()) return f(w);
  Extended<W> e(w, ext);
  return f(e);
}

}  // namespace ccb
