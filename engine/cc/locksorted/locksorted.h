// LockSorted (Prasaad, Cheung, Suciu, "Handling Highly Contended OLTP
// Workloads Using Fast Dynamic Partitioning", SIGMOD 2020, section 5.3):
// "sorts the read-write set and acquires locks in an ordered fashion before
// executing the transaction"; it "neither performs expensive deadlock
// detection nor does it incur abort-restart overheads. Instead, LockSorted
// waits on the lock in an ordered fashion."
//
// acquire_all() locks the request's predicted access set (the workload's
// describe(): shared for predicted reads, exclusive for predicted writes) in
// ascending global-key order, waiting for each lock. Every transaction waits
// only there, in that one order, holding only locks of smaller keys, so no
// waits-for cycle can form: conflicts delay but never abort. The procedure
// then runs against rows it already holds; commit and abort are NoWait's
// (install, publish inserts, release: strict 2PL). An access the prediction
// missed is locked when it happens with NoWait's rule (RC::kLockConflict on
// conflict): waiting there could close a cycle. Row metadata: NoWait's
// RwLockWord.
#pragma once

#include "engine/cc_helpers/common.h"
#include "engine/cc/nowait/nowait.h"

namespace ccb {

class LockSorted : public NoWait {
 public:
  static constexpr const char* kName = "locksorted";
  struct TxnMeta {
    bool acquiring = false;  // inside acquire_all(): wait for locks
  };

  RC acquire_all(auto& txn, const TxnDesc& d) {
    txn.meta().acquiring = true;
    const RC rc = access_predicted(txn, d);
    txn.meta().acquiring = false;
    return rc;
  }
  RC read(auto& txn, auto& a) {
    return wait_while_acquiring(txn, [&] { return NoWait::read(txn, a); });
  }
  RC write(auto& txn, auto& a) {
    return wait_while_acquiring(txn, [&] { return NoWait::write(txn, a); });
  }

 private:
  // Retries a no-wait lock attempt until it succeeds, during acquisition only.
  static RC wait_while_acquiring(auto& txn, auto try_lock) {
    RC rc = try_lock();
    for (SpinWait w; rc == RC::kLockConflict && txn.meta().acquiring; rc = try_lock()) w.pause();
    return rc;
  }
};

}  // namespace ccb
