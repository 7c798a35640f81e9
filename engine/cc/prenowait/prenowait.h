// PreNoWait (Prasaad, Cheung, Suciu, "Handling Highly Contended OLTP Workloads
// Using Fast Dynamic Partitioning", SIGMOD 2020, section 5.3): "acquires all
// locks at the start of the transaction and releases only after commit; it
// aborts the transaction immediately if any of the requested locks cannot be
// acquired".
//
// NoWait whose locks are taken up front: acquire_all() walks the request's
// predicted access set (the workload's describe(): shared locks for predicted
// reads, exclusive for predicted writes) before the procedure runs, and the
// first unavailable lock aborts the attempt with RC::kLockConflict. The
// procedure then finds every predicted row already locked in its access set.
// An access the prediction missed is locked when it happens, with NoWait's
// rule. Row metadata, commit (install, publish inserts, release) and abort are
// NoWait's; locks are held until the attempt ends (strict 2PL).
#pragma once

#include "engine/cc_helpers/common.h"
#include "engine/cc/nowait/nowait.h"

namespace ccb {

class PreNoWait : public NoWait {
 public:
  static constexpr const char* kName = "prenowait";

  RC acquire_all(auto& txn, const TxnDesc& d) { return access_predicted(txn, d); }
};

}  // namespace ccb
