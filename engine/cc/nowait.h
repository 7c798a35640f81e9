// NoWait: two-phase locking that aborts on any lock conflict (DBx1000's
// NO_WAIT). Readers take a shared lock and read the row in place; writers take
// the exclusive lock (upgrading their own shared lock if they hold the only
// one) and modify a private copy that commit installs. Locks are held until
// commit or abort (strict 2PL), so the history is serializable in lock order.
// Never waits, so never deadlocks.
#pragma once

#include <cstring>

#include "engine/cc/common.h"

namespace ccb {

class NoWait {
 public:
  static constexpr const char* kName = "nowait";
  struct RowMeta {
    RwLockWord lock;
  };
  struct AccessMeta {
    LockHeld held = LockHeld::kNone;
  };
  struct TxnMeta {};

  void begin(auto&) {}

  RC read(auto&, auto& a) {
    if (!a.row->meta.lock.try_lock_shared()) return note_contended_latch(), RC::kLockConflict;
    a.meta.held = LockHeld::kShared;
    a.data = a.row->data();
    return RC::kOk;
  }

  RC write(auto& txn, auto& a) {
    RwLockWord& lock = a.row->meta.lock;
    const bool got = a.meta.held == LockHeld::kShared ? lock.try_upgrade() : lock.try_lock_exclusive();
    if (!got) return note_contended_latch(), RC::kLockConflict;
    a.meta.held = LockHeld::kExclusive;
    txn.copy_locked_row(a);
    return RC::kOk;
  }

  RC insert(auto&, auto&) { return RC::kOk; }  // private until published

  RC commit(auto& txn) {
    install_exclusively_locked(txn);
    release(txn);
    return RC::kOk;
  }

  void abort(auto& txn) { release(txn); }

 protected:
  static void release(auto& txn) {
    for (auto& a : txn.accesses()) {
      if (a.meta.held == LockHeld::kExclusive) a.row->meta.lock.unlock_exclusive();
      else if (a.meta.held == LockHeld::kShared) a.row->meta.lock.unlock_shared();
      a.meta.held = LockHeld::kNone;
    }
  }
};

}  // namespace ccb
