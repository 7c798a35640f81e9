// OCC: classic backward-validation optimistic concurrency control as in
// DBx1000 (occ.cpp with per-row validation), the "OCC" baseline of the TSKD
// and BCC papers (Kung & Robinson 1981).
//
// Each transaction takes a start timestamp from a global counter. Reads copy
// the row (seqlock-style against the row latch). At commit, every accessed row
// is latched in address order; the transaction is valid only if no accessed
// row was written by a transaction that committed after it started
// (row.wts <= start_ts). It then takes a commit timestamp from the counter,
// installs its writes stamped with it and unlatches. Serial order = commit
// timestamp order. This criterion is conservative: a row overwritten after the
// start but before this transaction read it still aborts it ("false aborts",
// BCC paper section 1), which is the behaviour the papers compare against.
//
// --occ_validation=bounded (engine/cc/occ/options.h) takes the latches as
// DBx1000 built with BOUNDED_SPINNING does (the optimised configurations of
// the 28-core reference data): in access order, unsorted; a held latch is
// retried with a bounded exponential back-off and, still held after it, the
// transaction aborts (no order, so a wait could deadlock); each row is
// validated as soon as it is latched and the first stale row aborts. Which
// latches a committer holds and when it takes its commit timestamp are as
// under wait, so the serial order is the same. --occ_read_abort aborts at a
// read (or a first write) that copies a row written after the start, as
// DBx1000's Row_occ::access does under the row latch: such a transaction
// would fail its validation anyway.
#pragma once

#include <atomic>
#include <cstddef>

#include "engine/cc_helpers/common.h"
#include "engine/cc/occ/options.h"

namespace ccb {

class Occ {
 public:
  static constexpr const char* kName = "occ";
  static constexpr uint64_t kLatch = uint64_t{1} << 63;
  // DBx1000's BOUNDED_SPINNING_CYCLES (the optimised configurations' 15): the
  // back-off's pause rounds double plus one up to it (1, 3, 7, 15).
  static constexpr uint32_t kBoundedSpinCycles = 15;
  using Options = OccOptions;
  void configure(const OccOptions& o) {
    bounded_ = o.bounded();
    read_abort_ = o.read_abort;
  }
  struct RowMeta {
    Shared<uint64_t> word{0};  // latch bit | wts (commit ts of the last writer)
  };
  struct AccessMeta {};
  struct TxnMeta {
    uint64_t start_ts = 0;
  };

  void begin(auto& txn) {
    // The global timestamp counter: a serialized line under sim.
    txn.meta().start_ts = clock_.fetch_add(1, std::memory_order_acq_rel);
  }

  RC read(auto& txn, auto& a) {
    const uint64_t observed = stable_copy<kLatch>(txn, a, a.row->meta.word);
    a.data = a.local;
    return stale_at_access(txn, observed) ? RC::kValidation : RC::kOk;
  }
  RC write(auto& txn, auto& a) {
    if (a.local == nullptr && stale_at_access(txn, stable_copy<kLatch>(txn, a, a.row->meta.word)))
      return RC::kValidation;
    return RC::kOk;
  }
  RC insert(auto&, auto&) { return RC::kOk; }

  RC commit(auto& txn) {
    if (bounded_) return commit_bounded(txn);
    const auto rows = sorted_accesses(txn, [](const auto& a) { return a.type != AccessType::kInsert; });
    for (auto* a : rows) lock_bit<kLatch>(a->row->meta.word);
    if (!validate(txn, rows)) {
      for (auto* a : rows) unlock_bit<kLatch>(a->row->meta.word);
      return RC::kValidation;
    }
    install_and_unlatch(txn, rows);
    return RC::kOk;
  }

  void abort(auto&) {}  // nothing is held during execution

 protected:
  // --occ_read_abort: the row copied was written after this transaction
  // started, so its validation would fail (a row's wts only grows).
  bool stale_at_access(auto& txn, uint64_t observed) const {
    return read_abort_ && (observed & ~kLatch) > txn.meta().start_ts;
  }
  // --occ_validation=bounded: latch and validate each row in access order,
  // aborting at a latch still held after the back-off or at a stale row.
  RC commit_bounded(auto& txn) {
    const auto rows = accesses_in_order(txn, [](const auto& a) { return a.type != AccessType::kInsert; });
    auto** items = rows.items;
    const size_t n = rows.size();
    size_t latched = 0;
    bool ok = true;
    for (; ok && latched < n; ++latched) {
      Shared<uint64_t>& word = items[latched]->row->meta.word;
      if (!try_lock_bit_bounded<kLatch>(word, kBoundedSpinCycles)) break;  // Row_occ::try_latch
      ok = (word.reread() & ~kLatch) <= txn.meta().start_ts;
    }
    if (!ok || latched < n) {
      for (size_t i = 0; i < latched; ++i) unlock_bit<kLatch>(items[i]->row->meta.word);
      return RC::kValidation;
    }
    install_and_unlatch(txn, rows);
    return RC::kOk;
  }
  // Takes the commit timestamp, installs the writes stamped with it, unlatches.
  void install_and_unlatch(auto& txn, const auto& rows) {
    const uint64_t commit_ts = clock_.fetch_add(1, std::memory_order_acq_rel);
    for (auto* a : rows)
      if (a->is_write()) txn.install(*a);
    txn.publish_inserts([&](RowMeta& m, auto row) { row[m.word].store(commit_ts, std::memory_order_relaxed); });
    for (auto* a : rows) {
      if (a->is_write()) a->row->meta.word.rewrite(commit_ts, std::memory_order_release);
      else unlock_bit<kLatch>(a->row->meta.word);
    }
  }
  // Backward validation: no accessed row written after this transaction
  // started. REQUIRES: every row in `rows` latched by this transaction.
  static bool validate(auto& txn, const auto& rows) {
    for (auto* a : rows)
      if ((a->row->meta.word.reread() & ~kLatch) > txn.meta().start_ts)
        return false;
    return true;
  }

  alignas(64) Shared<uint64_t> clock_{1};
  bool bounded_ = false;     // --occ_validation=bounded
  bool read_abort_ = false;  // --occ_read_abort
};

}  // namespace ccb
