// NoCC: execution without concurrency control, for transactions a front-end
// has proven conflict-free (Strife's and TsPAR's conflict-free queues) and for
// measuring the engine's own overhead. Reads go to the row in place; writes
// are installed at commit. Concurrent conflicting transactions under NoCC are
// NOT serializable: the checker will (rightly) flag such runs.
#pragma once

#include <cstring>

#include "engine/cc/common.h"

namespace ccb {

class NoCC {
 public:
  static constexpr const char* kName = "nocc";
  struct RowMeta {
    uint64_t unused = 0;  // rows keep an 8-byte header so layouts stay aligned
  };
  struct AccessMeta {};
  struct TxnMeta {};

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
