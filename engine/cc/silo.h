// Silo (Tu et al., "Speedy Transactions in Multicore In-Memory Databases",
// SOSP 2013, section 4).
//
// Each row carries a TID word: bit 0 is the lock bit, the rest is the TID of
// the last writer, (epoch << 32) | (sequence << 1). Reads copy the row between
// two equal, unlocked loads of the TID word. Commit (section 4.4):
//   Phase 1: lock the write set in a global (address) order.
//            Read the global epoch E: the serialization point.
//   Phase 2: validate the read set: each row's TID must be unchanged and not
//            locked by another transaction.
//   Phase 3: choose the commit TID (larger than every TID read or written,
//            larger than this worker's last TID, in epoch E), install the
//            writes and release each lock by storing the new TID.
// A background thread advances the epoch every kEpochMillis (section 4.2).
// Inserts publish a row already stamped with the commit TID before the write
// locks are released; range-scan node-set validation (phantoms) is not
// implemented because no workload here scans (docs/verify.md).
#pragma once

#include <algorithm>
#include <atomic>

#include "engine/cc/common.h"

namespace ccb {

class Silo {
 public:
  static constexpr const char* kName = "silo";
  static constexpr int kEpochMillis = 40;
  static constexpr uint64_t kLockBit = 1;

  struct RowMeta {
    std::atomic<uint64_t> tid{0};
  };
  struct AccessMeta {
    uint64_t observed_tid = 0;
    bool locked = false;
  };
  struct TxnMeta {
    uint64_t last_tid = 0;
  };

  void tick() { epoch_.fetch_add(1, std::memory_order_release); }

  void begin(auto&) {}

  RC read(auto& txn, auto& a) {
    a.meta.observed_tid = stable_copy(txn, a, a.row->meta.tid, is_locked);
    a.data = a.local;
    return RC::kOk;
  }
  RC write(auto& txn, auto& a) {
    if (a.local == nullptr) a.meta.observed_tid = stable_copy(txn, a, a.row->meta.tid, is_locked);
    return RC::kOk;
  }
  RC insert(auto&, auto&) { return RC::kOk; }

  RC commit(auto& txn) {
    // Phase 1.
    const auto writes = sorted_accesses(txn, [](const auto& a) { return a.type == AccessType::kWrite; });
    for (auto* a : writes) {
      lock(a->row->meta.tid);
      a->meta.locked = true;
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
    const uint64_t epoch = epoch_.load(std::memory_order_acquire);
    // Phase 2.
    if (!validate_reads(txn)) {
      unlock_all(writes);
      return RC::kValidation;
    }
    // Phase 3.
    install(txn, writes, epoch);
    return RC::kOk;
  }

  void abort(auto&) {}  // nothing is held during execution

 protected:
  // Phase 2: every row read (read-modify-writes included) still carries the
  // TID observed at read time and is not locked by another transaction.
  static bool validate_reads(auto& txn) {
    for (auto& a : txn.accesses()) {
      if (a.type == AccessType::kInsert) continue;
      const uint64_t now = a.row->meta.tid.load(std::memory_order_acquire);
      const bool locked_by_other = (now & kLockBit) && !a.meta.locked;
      if ((now & ~kLockBit) != a.meta.observed_tid || locked_by_other) return false;
    }
    return true;
  }
  // Phase 3: the commit TID is larger than every TID read or written and than
  // this worker's last one, and lies in `epoch`; writes are installed and
  // unlocked by storing it.
  static void install(auto& txn, const auto& writes, uint64_t epoch) {
    uint64_t max_tid = txn.meta().last_tid;
    for (auto& a : txn.accesses())
      if (a.type != AccessType::kInsert) max_tid = std::max(max_tid, a.meta.observed_tid);
    const uint64_t tid = std::max(max_tid + 2, epoch << 32);
    txn.meta().last_tid = tid;
    for (auto* a : writes) txn.install(*a);
    txn.publish_inserts([&](RowMeta& m) { m.tid.store(tid, std::memory_order_relaxed); });
    for (auto* a : writes) {
      a->row->meta.tid.store(tid, std::memory_order_release);
      a->meta.locked = false;
    }
  }
  static bool is_locked(uint64_t v) { return (v & kLockBit) != 0; }
  static void lock(std::atomic<uint64_t>& w) {
    uint64_t v = w.load(std::memory_order_relaxed);
    for (;;) {
      if (!(v & kLockBit) && w.compare_exchange_weak(v, v | kLockBit, std::memory_order_acquire, std::memory_order_relaxed))
        return;
      cpu_relax();
      v = w.load(std::memory_order_relaxed);
    }
  }
  static void unlock_all(const auto& writes) {
    for (auto* a : writes) {
      a->row->meta.tid.fetch_and(~kLockBit, std::memory_order_release);
      a->meta.locked = false;
    }
  }

  alignas(64) std::atomic<uint64_t> epoch_{1};
};

}  // namespace ccb
