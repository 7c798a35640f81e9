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
#pragma once

#include <atomic>

#include "engine/cc_helpers/common.h"

namespace ccb {

class Occ {
 public:
  static constexpr const char* kName = "occ";
  static constexpr uint64_t kLatch = uint64_t{1} << 63;
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
    stable_copy<kLatch>(txn, a, a.row->meta.word);
    a.data = a.local;
    return RC::kOk;
  }
  RC write(auto& txn, auto& a) {
    if (a.local == nullptr) stable_copy<kLatch>(txn, a, a.row->meta.word);
    return RC::kOk;
  }
  RC insert(auto&, auto&) { return RC::kOk; }

  RC commit(auto& txn) {
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
};

}  // namespace ccb
