// What Schism and Horticulture share once every transaction of a bundle has a
// partition: TSKD's residual extraction, the majority routing of a transaction
// to a partition, and the bundle executor's plan of a partitioning.
//
// Residual (TSKD §6.1, "For the partitioning of SCHISM and HORTICULTURE, TSKD
// first extracts a residual set that contains all those transactions that are
// in conflict with some other transactions from another partition"): T in P_i
// goes to R if some T' in P_j, j != i, shares a key with T and one of the two
// writes it. Both ends of such a conflict go to R, so what stays in
// P_1..P_k is mutually conflict-free (the premise of running them without CC)
// and R is exactly the set the paper names, not a smaller cover of it.
//
// Thread safety: plain functions and a value type; one caller at a time.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/core/txn_desc.h"
#include "partitioners/partitioning.h"

namespace ccb {

// One access of a bundle's transaction to a record.
struct KeyAccess {
  GlobalKey key;
  uint32_t txn;  // index in the bundle
  bool write;
};
// Every access of `bundle`, sorted by key (a record's accesses are adjacent).
std::vector<KeyAccess> accesses_by_key(std::span<const TxnDesc> bundle);

// Fills out.parts (k lists, bundle order) and out.residual from the
// assignment part_of[t] < k of every transaction t of the bundle whose
// accesses_by_key() is `accesses`. Leaves out.conflicts and out.partition_us
// alone. O(A), A = total accesses.
// REQUIRES: part_of.size() == bundle size, every part_of[t] < k.
void split_with_residual(std::span<const KeyAccess> accesses, std::span<const uint32_t> part_of, unsigned k,
                         Partitioning& out);
// The same, sorting the bundle's accesses first: O(A log A).
inline void split_with_residual(std::span<const TxnDesc> bundle, std::span<const uint32_t> part_of, unsigned k,
                                Partitioning& out) {
  split_with_residual(accesses_by_key(bundle), part_of, k, out);
}

// Routes transactions one at a time to the partition holding most of their
// records (Schism §4.3's rule for a tuple-level partitioning; Horticulture's
// base partition when the routing attribute is the majority one). A
// transaction with no vote, or a tie, goes to the candidate holding the fewest
// transactions so far, then the lowest id: partitions stay balanced when the
// records say nothing.
class MajorityRouter {
 public:
  explicit MajorityRouter(unsigned k) : votes_(k, 0), load_(k, 0) {}
  void vote(uint32_t part) { ++votes_[part]; }
  // The current transaction's partition; resets the votes for the next one.
  uint32_t decide();
  const std::vector<uint32_t>& load() const { return load_; }

 private:
  std::vector<uint32_t> votes_;
  std::vector<uint32_t> load_;  // transactions routed to each partition
};

}  // namespace ccb
