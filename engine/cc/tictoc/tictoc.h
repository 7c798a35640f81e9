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
// --tictoc_validation=bounded (engine/cc/tictoc/options.h) replaces step 1 by
// DBx1000's no-wait locking with PRE_ABORT and BOUNDED_SPINNING (tictoc.cpp,
// validate_tictoc, as the optimised configurations of the 28-core reference
// data build it); steps 2-4 are unchanged.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>

#include "engine/cc_helpers/common.h"
#include "engine/cc/tictoc/options.h"

namespace ccb {

class TicToc {
 public:
  static constexpr const char* kName = "tictoc";
  static constexpr uint64_t kLockBit = uint64_t{1} << 63;
  static constexpr int kDeltaShift = 48;
  static constexpr uint64_t kMaxDelta = (uint64_t{1} << 15) - 1;
  static constexpr uint64_t kWtsMask = (uint64_t{1} << kDeltaShift) - 1;
  // DBx1000's BOUNDED_SPINNING_CYCLES (the optimised configurations' 15).
  static constexpr uint32_t kBoundedSpinCycles = 15;
  using Options = TicTocOptions;
  void configure(const TicTocOptions& o) { bounded_ = o.bounded(); }

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
    if (bounded_) [[unlikely]]
      return commit_bounded(txn);
    const auto writes = sorted_accesses(txn, [](const auto& a) { return a.type == AccessType::kWrite; });
    uint64_t commit_ts = 0;
    for (auto* a : writes) {
      const uint64_t w = lock_bit<kLockBit>(a->row->meta.word);
      a->meta.locked = true;
      commit_ts = std::max(commit_ts, rts_of(w) + 1);
    }
    return validate_and_install(txn, writes, commit_ts);
  }

  void abort(auto&) {}

 protected:
  // Steps 2-4, the write set locked; `commit_ts` is at least every locked
  // row's rts + 1.
  RC validate_and_install(auto& txn, const auto& writes, uint64_t commit_ts) {
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

  // --tictoc_validation=bounded: DBx1000's validate_tictoc with
  // VALIDATION_LOCK "no-wait", PRE_ABORT "true" and BOUNDED_SPINNING. The
  // pre-abort check against the commit timestamp estimated from the accesses
  // (max wts read, max rts + 1 written); the write set, in access order, locked
  // with one try per row, each locked row's wts checked unchanged; a held lock
  // releases the locks taken, repeats the pre-abort check and retries after 1,
  // 3, 7, 15 pause rounds; the fifth failure aborts. Then steps 2-4.
  RC commit_bounded(auto& txn) {
    const auto writes = accesses_in_order(txn, [](const auto& a) { return a.type == AccessType::kWrite; });
    uint64_t estimate = 0;
    for (auto& a : txn.accesses())
      if (a.type != AccessType::kInsert)
        estimate = std::max(estimate, a.type == AccessType::kWrite ? a.meta.rts + 1 : a.meta.wts);
    const bool locked = lock_writes_no_wait_bounded<kLockBit>(
        writes, kBoundedSpinCycles, [](auto& a) -> Shared<uint64_t>& { return a.row->meta.word; },
        [](auto& a) { return wts_of(a.row->meta.word.reread()) != a.meta.wts; },
        [&] { return pre_abort_check(txn, estimate); });
    if (!locked) return RC::kValidation;
    uint64_t commit_ts = 0;
    for (auto* a : writes) commit_ts = std::max(commit_ts, rts_of(a->row->meta.word.reread()) + 1);
    return validate_and_install(txn, writes, commit_ts);
  }
  // DBx1000's PRE_ABORT: every row written still carries the wts its access
  // read, and no row read was overwritten with an rts below `estimate` (not
  // charged, as extend's first load).
  static bool pre_abort_check(auto& txn, uint64_t estimate) {
    for (auto& a : txn.accesses()) {
      if (a.type == AccessType::kInsert) continue;
      const uint64_t w = a.row->meta.word.unmodelled().load(std::memory_order_acquire);
      if (a.type == AccessType::kWrite ? wts_of(w) != a.meta.wts
                                       : wts_of(w) != a.meta.wts && estimate > rts_of(w))
        return false;
    }
    return true;
  }
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

  bool bounded_ = false;  // --tictoc_validation=bounded
};

}  // namespace ccb
