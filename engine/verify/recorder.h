// Per-thread history recording (switched on by --verify).
//
// Each worker appends its committed transactions to its own HistoryLog (no
// sharing, no locks); after the run the logs are concatenated into one History
// for the checker. When recording is off the transaction holds a null log
// pointer and pays one predictable branch per commit.
#pragma once

#include <vector>

#include "engine/verify/history.h"

namespace ccb::verify {

class HistoryLog {
 public:
  void begin_txn(uint64_t txn_id) {
    txns_.push_back(TxnRecord{txn_id, accesses_.size(), 0});
  }
  void add(GlobalKey key, VersionId read_version, VersionId prev_version) {
    accesses_.push_back(AccessRecord{key, read_version, prev_version});
    ++txns_.back().n_accesses;
  }
  size_t txn_count() const { return txns_.size(); }

  // Appends every log's records to one History, fixing access offsets.
  static History merge(std::vector<HistoryLog>& logs) {
    History h;
    size_t nt = 0, na = 0;
    for (auto& l : logs) nt += l.txns_.size(), na += l.accesses_.size();
    h.txns.reserve(nt);
    h.accesses.reserve(na);
    for (auto& l : logs) {
      const uint64_t base = h.accesses.size();
      for (TxnRecord t : l.txns_) {
        t.first_access += base;
        h.txns.push_back(t);
      }
      h.accesses.insert(h.accesses.end(), l.accesses_.begin(), l.accesses_.end());
      l.txns_ = {};
      l.accesses_ = {};
    }
    return h;
  }

 private:
  std::vector<TxnRecord> txns_;
  std::vector<AccessRecord> accesses_;
};

}  // namespace ccb::verify
