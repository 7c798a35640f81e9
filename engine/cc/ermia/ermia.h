// ERMIA-like serializable snapshot isolation: snapshot isolation
// (engine/cc/si/si.h) plus the Serial Safety Net (Wang, Johnson, Fekete, Pandis,
// "Efficiently making (almost) any concurrency control mechanism
// serializable", VLDB Journal 2017; in ERMIA, Kim et al., SIGMOD 2016).
//
// SSN stamps (VLDBJ section 3): every version V carries its creator's commit
// stamp c(V) (wts), a pstamp eta(V), the latest commit stamp of a committed
// reader of V (the inline version's rts; a new version starts with its
// creator's stamp), and an sstamp pi(V), the successor stamp its overwriter
// set (kept on chain versions; infinite while V is the newest). A committing
// transaction T computes
//   eta(T) = max over the versions T read or overwrote of c(V), and over the
//            versions T overwrote of eta(V)             (T's predecessors)
//   pi(T)  = min(c(T), min over the versions T read that were overwritten
//            since of pi(V))                             (T's successors)
// and aborts if pi(T) <= eta(T): the exclusion window, a predecessor that
// committed after a successor, which every cycle of the dependency graph
// contains (VLDBJ Theorem 1). Otherwise it commits: each version it read
// gets eta(V) >= c(T), each version it overwrote gets pi(V) = pi(T).
// First committer wins on writes, as in SI.
//
// Concurrent commits exchange stamps through the rows they share, so the
// stamps of a row must not change while a committer reads them: each
// committer locks every row it accessed, read or written, in address order
// (SnapshotIsolation<true>::commit), and its test and stamp updates run
// under those locks. ERMIA itself exchanges them latch-free (readers register
// in per-version bitmaps, committers wait for the ones in pre-commit); this
// is the simpler equivalent for a test bed (engine/cc/ermia/README.md).
#pragma once

#include "engine/cc/si/si.h"

namespace ccb {

class Ermia : public SnapshotIsolation<true> {
 public:
  static constexpr const char* kName = "ermia";
  void stats_json(JsonWriter& w) const {
    state_.versions_json(w);
    const mv::Counters c = state_.totals().counters;
    w.key("ssn_aborts").value(c.ssn_aborts);
    w.key("write_conflicts").value(c.write_conflicts);
  }
};

}  // namespace ccb
