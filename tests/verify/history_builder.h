// Test helpers: a fluent builder for hand-written histories and a rotation
// helper for comparing cycles.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/verify/history.h"

namespace ccb::verify::testing {

// HistoryBuilder().txn(1).rmw(kX, 0).txn(2).read(kX, 1).build()
class HistoryBuilder {
 public:
  HistoryBuilder& txn(uint64_t id) {
    h_.txns.push_back(TxnRecord{id, h_.accesses.size(), 0});
    return *this;
  }
  // A read of version v, not followed by a write.
  HistoryBuilder& read(GlobalKey k, VersionId v) { return add(AccessRecord{k, v, kNotRead}); }
  // A blind write over version prev.
  HistoryBuilder& write(GlobalKey k, VersionId prev) { return add(AccessRecord{k, kNotRead, prev}); }
  // A read-modify-write that read v and installed its version over v.
  HistoryBuilder& rmw(GlobalKey k, VersionId v) { return add(AccessRecord{k, v, v}); }
  // Read v, but installed over `prev` (a later version): the lost-update shape.
  HistoryBuilder& read_write(GlobalKey k, VersionId v, VersionId prev) { return add(AccessRecord{k, v, prev}); }
  // An insert: a write over the key's "absent" version 0.
  HistoryBuilder& insert(GlobalKey k) { return write(k, kInitialVersion); }
  History build() const { return h_; }

 private:
  HistoryBuilder& add(const AccessRecord& a) {
    h_.accesses.push_back(a);
    ++h_.txns.back().n_accesses;
    return *this;
  }
  History h_;
};

// Rotates a cycle so that its smallest element comes first.
inline std::vector<uint64_t> canonical_cycle(std::vector<uint64_t> c) {
  if (!c.empty()) std::rotate(c.begin(), std::min_element(c.begin(), c.end()), c.end());
  return c;
}

}  // namespace ccb::verify::testing
