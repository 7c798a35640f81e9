// NoCC: execution without concurrency control, the operations of Txn's
// CC-free mode (engine/txn/cc_free.h) as a protocol of their own, for
// measuring the engine's own overhead. Concurrent conflicting transactions
// under NoCC are NOT serializable: the checker will (rightly) flag such runs.
#pragma once

#include "engine/cc_helpers/common.h"
#include "engine/txn/cc_free.h"

namespace ccb {

class NoCC : public CcFree {
 public:
  static constexpr const char* kName = "nocc";
  struct RowMeta {
    uint64_t unused = 0;  // rows keep an 8-byte header so layouts stay aligned
  };
  struct AccessMeta {};
  struct TxnMeta {};
};

}  // namespace ccb
