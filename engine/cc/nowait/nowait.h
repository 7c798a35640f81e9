// NoWait: two-phase locking that aborts on any lock conflict (DBx1000's
// NO_WAIT). Readers take a shared lock and read the row in place; writers take
// the exclusive lock (upgrading their own shared lock if they hold the only
// one) and modify a private copy that commit installs. Locks are held until
// commit or abort (strict 2PL, engine/cc_helpers/two_phase_locking.h), so the history
// is serializable in lock order. Never waits, so never deadlocks.
#pragma once

#include "engine/cc_helpers/common.h"
#include "engine/cc_helpers/two_phase_locking.h"

namespace ccb {

class NoWait : public TwoPhaseLocking<NoWait> {
 public:
  static constexpr const char* kName = "nowait";
  struct RowMeta {
    RwLockWord lock;  // holder count (unit 1)
  };
  struct TxnMeta {};

  void begin(auto&) {}

 protected:
  friend TwoPhaseLocking<NoWait>;

  // The conflict rule: a lock that is not free right now aborts the attempt.
  static RC lock(auto&, auto& a, LockHeld want) {
    RwLockWord& l = a.row->meta.lock;
    const bool got = want == LockHeld::kShared          ? l.try_lock_shared()
                     : a.meta.held == LockHeld::kShared ? l.try_upgrade()
                                                        : l.try_lock_exclusive();
    if (!got) return note_contended_latch(), RC::kLockConflict;
    return RC::kOk;
  }
  static void unlock(auto&, auto& a) {
    if (a.meta.held == LockHeld::kExclusive) a.row->meta.lock.unlock_exclusive();
    else a.row->meta.lock.unlock_shared();
  }
};

}  // namespace ccb
