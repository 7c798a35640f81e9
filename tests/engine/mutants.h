// Deliberately broken protocols, built only for the tests: each reuses a real
// protocol and breaks exactly one rule. The serializability checker (and the
// invariants) must flag every one of them under contention.
#pragma once

#include <cstring>

#include "engine/cc/nowait/nowait.h"
#include "engine/cc/occ/occ.h"
#include "engine/cc/silo/silo.h"

namespace ccb::mutants {

// OCC that commits without backward validation.
class OccSkipsValidation : public Occ {
 public:
  static constexpr const char* kName = "occ-skips-validation";
  RC commit(auto& txn) {
    const auto rows = sorted_accesses(txn, [](const auto& a) { return a.type != AccessType::kInsert; });
    for (auto* a : rows) lock_bit<kLatch>(a->row->meta.word);
    install_and_unlatch(txn, rows);
    return RC::kOk;
  }
};

// Silo that locks its write set but never re-checks its read set (phase 2).
class SiloSkipsReadValidation : public Silo {
 public:
  static constexpr const char* kName = "silo-skips-read-validation";
  RC commit(auto& txn) {
    const auto writes = silo::lock_writes(txn);
    install(txn, writes, epoch_.load(std::memory_order_acquire));
    return RC::kOk;
  }
};

// NoWait that drops each lock as soon as it has copied the row, and installs
// its writes at commit without holding any lock (not two-phase).
class NoWaitReleasesEarly : public NoWait {
 public:
  static constexpr const char* kName = "nowait-releases-early";
  RC read(auto& txn, auto& a) {
    if (!a.row->meta.lock.try_lock_shared()) return RC::kLockConflict;
    txn.copy_locked_row(a);
    a.row->meta.lock.unlock_shared();
    a.data = a.local;
    return RC::kOk;
  }
  RC write(auto& txn, auto& a) {
    if (!a.row->meta.lock.try_lock_exclusive()) return RC::kLockConflict;
    if (a.local == nullptr) txn.copy_locked_row(a);
    a.row->meta.lock.unlock_exclusive();
    return RC::kOk;
  }
  RC commit(auto& txn) {
    for (auto& a : txn.accesses())
      if (a.type == AccessType::kWrite) txn.install(a);
    txn.publish_inserts([](RowMeta&, auto) {});
    return RC::kOk;
  }
  void abort(auto&) {}
};

}  // namespace ccb::mutants
