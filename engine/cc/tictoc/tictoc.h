// TicToc (Yu et al., "TicToc: Time Traveling Optimistic Concurrency Control",
// SIGMOD 2016).
//
// Each row carries one word: bit 63 lock | 15-bit delta | 48-bit wts, with
// rts = wts + delta (section 3.6, "Timestamp compression"). A read records the
// [wts, rts] interval of the version it copied. Commit (Algorithm 2 and 3):
//   1. lock the write set in address order;
//   2. commit_ts = max(max wts over the read set, max rts + 1 over the locked
//      write set) -- data-driven, no global clock;
//   3. validate the read set: a version whose rts < commit_ts is still valid if
//      its wts is unchanged and it is not locked by another transaction; then
//      its rts is extended to commit_ts (CAS). If the delta would overflow,
//      wts is advanced so the delta fits (section 3.6);
//   4. install writes with wts = rts = commit_ts and unlock.
#pragma once

#include <algorithm>
#include <atomic>

#include "engine/cc_helpers/common.h"

namespace ccb {

class TicToc {
 public:
  static constexpr const char* kName = "tictoc";
  static constexpr uint64_t kLockBit = uint64_t{1} << 63;
  static constexpr int kDeltaShift = 48;
  static constexpr uint64_t kMaxDelta = (uint64_t{1} << 15) - 1;
  static constexpr uint64_t kWtsMask = (uint64_t{1} << kDeltaShift) - 1;

  struct RowMeta {
    Shared<uint64_t> word{0};
  };
  struct AccessMeta {
    uint64_t wts = 0, rts = 0;
    bool locked = false;
  };
  struct TxnMeta {};

  static uint64_t wts_of(uint64_t w) { return w & kWtsMask; }
  static uint64_t rts_of(uint64_t w) { return wts_of(w) + ((w >> kDeltaShift) & kMaxDelta); }
  static uint64_t pack(uint64_t wts, uint64_t rts) { return wts | ((rts - wts) << kDeltaShift); }

  void begin(auto&) {}

  RC read(auto& txn, auto& a) {
    observe(a, stable_copy<kLockBit>(txn, a, a.row->meta.word));
    a.data = a.local;
    return RC::kOk;
  }
  RC write(auto& txn, auto& a) {
    if (a.local == nullptr) observe(a, stable_copy<kLockBit>(txn, a, a.row->meta.word));
    return RC::kOk;
  }
  RC insert(auto&, auto&) { return RC::kOk; }

  RC commit(auto& txn) {
    const auto writes = sorted_accesses(txn, [](const auto& a) { return a.type == AccessType::kWrite; });
    uint64_t commit_ts = 0;
    for (auto* a : writes) {
      const uint64_t w = lock_bit<kLockBit>(a->row->meta.word);
      a->meta.locked = true;
      commit_ts = std::max(commit_ts, rts_of(w) + 1);
    }
    for (auto& a : txn.accesses())
      if (a.type != AccessType::kInsert) commit_ts = std::max(commit_ts, a.meta.wts);

    for (auto& a : txn.accesses()) {
      if (a.type == AccessType::kInsert) continue;
      if (a.meta.locked) {
        // Read-modify-write: the version we read must still be the latest.
        if (wts_of(a.row->meta.word.reread()) != a.meta.wts) return fail(writes);
        continue;
      }
      if (a.meta.rts >= commit_ts) continue;
      if (!extend(a, commit_ts)) return fail(writes);
    }

    for (auto* a : writes) txn.install(*a);
    const uint64_t committed = pack(commit_ts, commit_ts);
    txn.publish_inserts([&](RowMeta& m, auto row) { row[m.word].store(committed, std::memory_order_relaxed); });
    for (auto* a : writes) {
      a->row->meta.word.rewrite(committed, std::memory_order_release);
      a->meta.locked = false;
    }
    return RC::kOk;
  }

  void abort(auto&) {}

 protected:
  static bool is_locked(uint64_t w) { return (w & kLockBit) != 0; }
  static void observe(auto& a, uint64_t w) {
    a.meta.wts = wts_of(w);
    a.meta.rts = rts_of(w);
  }
  // Algorithm 3, lines for a read-set entry with rts < commit_ts.
  static bool extend(auto& a, uint64_t commit_ts) {
    Shared<uint64_t>& word = a.row->meta.word;
    uint64_t v = word.unmodelled().load(std::memory_order_acquire);  // the CAS below charges the line
    for (;;) {
      if (wts_of(v) != a.meta.wts) return false;                  // overwritten since read
      if (rts_of(v) >= commit_ts) return true;                   // someone extended it already
      if (is_locked(v)) return false;                            // a writer will overwrite it
      uint64_t wts = wts_of(v);
      if (commit_ts - wts > kMaxDelta) wts = commit_ts - kMaxDelta;  // delta overflow: shift wts
      if (word.compare_exchange_weak(v, pack(wts, commit_ts), std::memory_order_acq_rel, std::memory_order_acquire))
        return true;
    }
  }
  static RC fail(const auto& writes) {
    for (auto* a : writes) {
      unlock_bit<kLockBit>(a->row->meta.word);
      a->meta.locked = false;
    }
    return RC::kValidation;
  }
};

}  // namespace ccb
