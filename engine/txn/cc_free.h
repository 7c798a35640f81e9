// The operations of a transaction run without concurrency control: Txn's
// CC-free mode (Txn::set_cc_free) for the transactions a front-end has proven
// conflict-free with everything running beside them (Strife's and TsPAR's
// conflict-free queues), on any protocol's rows, and the NoCC protocol
// (engine/cc/nocc/nocc.h), which runs them always. Reads go to the row in
// place; writes are installed at commit; no row metadata is touched.
// Concurrent conflicting transactions run so are NOT serializable: the checker
// will (rightly) flag such runs.
#pragma once

#include "engine/txn/protocol.h"  // RC, AccessType

namespace ccb {

struct CcFree {
  void begin(auto&) {}
  RC read(auto&, auto& a) {
    a.data = a.row->data();
    return RC::kOk;
  }
  RC write(auto& txn, auto& a) {
    txn.copy_locked_row(a);  // no lock: conflict-free by the front-end's plan
    return RC::kOk;
  }
  RC insert(auto&, auto&) { return RC::kOk; }
  RC commit(auto& txn) {
    for (auto& a : txn.accesses())
      if (a.type == AccessType::kWrite) txn.install(a);
    txn.publish_inserts([](auto&, auto) {});  // any protocol's rows (Txn::set_cc_free)
    return RC::kOk;
  }
  void abort(auto&) {}
};

}  // namespace ccb
