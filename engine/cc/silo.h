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

  void begin(Txn<Silo>&) {}

  RC read(Txn<Silo>& txn, Access<Silo>& a) {
    a.meta.observed_tid = stable_copy(txn, a, a.row->meta.tid, is_locked);
    a.data = a.local;
    return RC::kOk;
  }
  RC write(Txn<Silo>& txn, Access<Silo>& a) {
    if (a.local == nullptr) a.meta.observed_tid = stable_copy(txn, a, a.row->meta.tid, is_locked);
    return RC::kOk;
  }
  RC insert(Txn<Silo>&, Access<Silo>&) { return RC::kOk; }

  RC commit(Txn<Silo>& txn) {
    // Phase 1.
    Access<Silo>** writes;
    const size_t nw = sorted_accesses(txn, [](const Access<Silo>& a) { return a.type == AccessType::kWrite; }, writes);
    for (size_t i = 0; i < nw; ++i) {
      lock(writes[i]->row->meta.tid);
      writes[i]->meta.locked = true;
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
    const uint64_t epoch = epoch_.load(std::memory_order_acquire);

    // Phase 2: every row read (read-modify-writes included) must be unchanged.
    uint64_t max_tid = txn.meta().last_tid;
    for (auto& a : txn.accesses()) {
      if (a.type == AccessType::kInsert) continue;
      const uint64_t now = a.row->meta.tid.load(std::memory_order_acquire);
      const bool locked_by_other = (now & kLockBit) && !a.meta.locked;
      if ((now & ~kLockBit) != a.meta.observed_tid || locked_by_other) {
        unlock_all(writes, nw);
        return RC::kValidation;
      }
      max_tid = std::max(max_tid, a.meta.observed_tid);
    }

    // Phase 3.
    const uint64_t tid = std::max(max_tid + 2, epoch << 32);
    txn.meta().last_tid = tid;
    for (size_t i = 0; i < nw; ++i) txn.install(*writes[i]);
    txn.publish_inserts([&](RowMeta& m) { m.tid.store(tid, std::memory_order_relaxed); });
    for (size_t i = 0; i < nw; ++i) {
      writes[i]->row->meta.tid.store(tid, std::memory_order_release);
      writes[i]->meta.locked = false;
    }
    return RC::kOk;
  }

  void abort(Txn<Silo>&) {}  // nothing is held during execution

 private:
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
  static void unlock_all(Access<Silo>** writes, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      writes[i]->row->meta.tid.fetch_and(~kLockBit, std::memory_order_release);
      writes[i]->meta.locked = false;
    }
  }

  alignas(64) std::atomic<uint64_t> epoch_{1};
};

}  // namespace ccb
