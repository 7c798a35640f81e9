// PartCC: partition-level locking in the style of H-Store (Kallman et al.,
// VLDB 2008) and HyPer (Kemper and Neumann, ICDE 2011), the "PartCC"
// comparator of the Strife paper (Prasaad et al., SIGMOD 2020, section 6.3:
// "partitioned CC ... each partition is protected by a lock ... transactions
// acquire locks on all partitions they access").
//
// The database is split into P partitions, one lock each. The workload maps a
// key to its partition (partition_count() and partition_of(), its optional
// members; engine/workload.h): TPC-C by warehouse (P = warehouses), YCSB by
// key range and HOT by its own key-mod-P partitioning (P = --partitions, or the
// thread count when it is 0). acquire_all() locks every partition the
// request's predicted access set (describe()) names, in ascending partition
// order, waiting for each: the only waits are in that one order, so no
// deadlock. The procedure then runs without row-level concurrency control:
// reads go to the row in place, writes to a private copy that commit installs
// (the CC-free operations, engine/txn/cc_free.h); commit installs, publishes inserts and
// releases the partitions.
//
// A request also names partitions of rows it cannot name (TxnDesc's
// partition_keys: TPC-C's Payment of a customer chosen by last name names
// its district, hence the remote customer's warehouse), which are locked up
// front with the others, as DBx1000's HSTORE takes every partition of its
// query before it runs: a remote Payment waits for both warehouses and
// never aborts on them. A row the prediction missed all the same (HOT's hot
// record moves between describe() and execution in --hot_shift_s mode) is
// checked at access: its partition is locked if not held yet, waiting if it is above
// every partition held (the same order) and otherwise tried once
// (RC::kLockConflict on failure), so the run stays serializable whatever the
// prediction. A partition tried and refused is remembered, and the retries of
// the same request (txn.restarts() > 0) lock it up front with the predicted
// ones, in the one order, as H-Store restarts a mispredicted transaction with
// the partitions it learned it needs. Without that, the retry took its
// predicted partition again at once and tried the missed one again: a
// holder of the missed partition waiting for the predicted one never got it
// in between when the retries came without backoff (--backoff_max_us=0), a
// livelock that the simulation's deterministic schedule made permanent
// (issue 46: 0 commits in 0.03 virtual s on TPC-C, 2 threads, 4 warehouses).
// Tables a workload marks as unpartitioned (kNoPartition: TPC-C's read-only
// ITEM and its insert-only HISTORY with unique keys) take no lock.
//
// What it drops from H-Store: no single-threaded partition executors or
// command routing (a worker thread runs the whole transaction after taking its
// partition locks; the workload's worker-bound homes, --home_warehouse=worker
// and --home_partition=worker, issue partition i's transactions at worker i
// as routing would), no undo-free execution (writes still go to private copies)
// and no speculative execution.
//
// Thread safety: one PartCC is shared by the workers; the partition lock array
// is fixed once bound.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/cc_helpers/common.h"
#include "engine/cc_helpers/workload_partitioning.h"
#include "engine/config.h"
#include "engine/core/json.h"

namespace ccb {

class PartCC {
 public:
  static constexpr const char* kName = "partcc";
  static constexpr uint32_t kNoPartition = WorkloadPartitioning::kNone;
  static constexpr int kMaxThreads = 1024;

  struct RowMeta {
    uint64_t unused = 0;  // no row-level state: rows keep an 8-byte header
  };
  struct AccessMeta {};
  struct TxnMeta {
    std::vector<uint32_t> held;  // partitions locked by this attempt, ascending
  };

  // Binds the workload's partitioning (called by run_online before loading).
  // A workload without partition_of() cannot run under PartCC.
  template <class W>
  void bind_workload(const EngineConfig& cfg, const W& w) {
    const auto p = WorkloadPartitioning::of_workload(w, static_cast<uint32_t>(cfg.threads));
    if (!p)
      throw ConfigError("cc", std::string("protocol partcc needs a partitioned workload (tpcc, ycsb, hot); workload ") +
                                  W::kName + " has no partition_of()");
    set_partitioning(*p);
  }
  void set_partitioning(const WorkloadPartitioning& p) {
    parts_ = p;
    parts_.count = std::max<uint32_t>(p.count, 1);
    locks_.reset(new PartitionLock[parts_.count]);
  }
  uint32_t partitions() const { return parts_.count; }
  uint32_t partition_of(GlobalKey k) const { return parts_.of(k); }

  void begin(auto& txn) { txn.meta().held.clear(); }

  // Locks the partitions the request names (its predicted access set and
  // its partition keys: TxnDesc), and on a retry those the request's earlier
  // attempts missed, in ascending order (waiting).
  RC acquire_all(auto& txn, const TxnDesc& d) {
    std::vector<uint32_t>& want = scratch_parts(txn);
    std::vector<uint32_t>& missed = per_thread_[txn.thread_id()].missed;
    if (txn.restarts() == 0) missed.clear();  // a new request: the list was about another one
    want.assign(missed.begin(), missed.end());
    for (GlobalKey k : d.read_set) add_partition(want, k);
    for (GlobalKey k : d.write_set) add_partition(want, k);
    for (GlobalKey k : d.partition_keys) add_partition(want, k);
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    Counters& c = counters_[txn.thread_id()];
    ++c.txns;
    c.partitions += want.size();
    if (want.size() > 1) ++c.multi_partition;
    for (uint32_t p : want) {
      locks_[p].lock();
      txn.meta().held.push_back(p);
    }
    return RC::kOk;
  }

  RC read(auto& txn, auto& a) {
    const RC rc = cover(txn, a);
    if (rc != RC::kOk) return rc;
    a.data = a.row->data();
    return RC::kOk;
  }
  RC write(auto& txn, auto& a) {
    const RC rc = cover(txn, a);
    if (rc != RC::kOk) return rc;
    if (a.local == nullptr) txn.copy_locked_row(a);  // a read upgraded keeps no copy yet
    return RC::kOk;
  }
  RC insert(auto& txn, auto& a) { return cover(txn, a); }

  RC commit(auto& txn) {
    for (auto& a : txn.accesses())
      if (a.type == AccessType::kWrite) txn.install(a);
    txn.publish_inserts([](auto&, auto) {});
    release(txn);
    return RC::kOk;
  }
  void abort(auto& txn) { release(txn); }

  // Whether partition p is locked now (tests).
  bool locked(uint32_t p) const { return locks_[p].locked(); }

  void reset_stats(uint32_t thread) { counters_[thread] = Counters{}; }
  void stats_json(JsonWriter& w) const {
    Counters s;
    for (int t = 0; t < kMaxThreads; ++t) {
      s.txns += counters_[t].txns;
      s.partitions += counters_[t].partitions;
      s.multi_partition += counters_[t].multi_partition;
      s.unpredicted += counters_[t].unpredicted;
    }
    w.key("partitions").value(parts_.count);
    w.key("locked_txns").value(s.txns);
    w.key("partitions_per_txn").value(s.txns ? double(s.partitions) / double(s.txns) : 0.0);
    w.key("multi_partition_share").value(s.txns ? double(s.multi_partition) / double(s.txns) : 0.0);
    w.key("unpredicted_partition_locks").value(s.unpredicted);
  }

 private:
  struct alignas(64) PartitionLock : SpinLatch {};  // one line each
  struct alignas(64) Counters {
    uint64_t txns = 0, partitions = 0, multi_partition = 0, unpredicted = 0;
  };

  void add_partition(std::vector<uint32_t>& v, GlobalKey k) const {
    const uint32_t p = partition_of(k);
    if (p != kNoPartition) v.push_back(p);
  }
  std::vector<uint32_t>& scratch_parts(auto& txn) {
    return per_thread_[txn.thread_id()].parts;
  }

  // Makes sure the partition of a's row is locked by this attempt.
  RC cover(auto& txn, auto& a) {
    const uint32_t p = partition_of(make_global_key(a.table->id(), a.key));
    if (p == kNoPartition) return RC::kOk;
    std::vector<uint32_t>& held = txn.meta().held;
    if (std::find(held.begin(), held.end(), p) != held.end()) return RC::kOk;
    ++counters_[txn.thread_id()].unpredicted;
    if (held.empty() || p > held.back()) {
      locks_[p].lock();
    } else if (!locks_[p].try_lock()) {
      note_contended_latch();
      per_thread_[txn.thread_id()].missed.push_back(p);  // the retry locks it up front (see the header)
      return RC::kLockConflict;
    } else {
      held.insert(std::lower_bound(held.begin(), held.end(), p), p);
      return RC::kOk;
    }
    held.push_back(p);
    return RC::kOk;
  }
  void release(auto& txn) {
    for (uint32_t p : txn.meta().held) locks_[p].unlock();
    txn.meta().held.clear();
  }

  struct alignas(64) Scratch {
    std::vector<uint32_t> parts;
    std::vector<uint32_t> missed;  // partitions the current request's attempts tried and were refused
  };
  WorkloadPartitioning parts_;  // one partition until bound
  std::unique_ptr<PartitionLock[]> locks_{new PartitionLock[1]};
  std::unique_ptr<Counters[]> counters_{new Counters[kMaxThreads]};
  std::unique_ptr<Scratch[]> per_thread_{new Scratch[kMaxThreads]};
};

}  // namespace ccb
