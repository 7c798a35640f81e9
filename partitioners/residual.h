// What Schism and Horticulture share once every transaction of a bundle has a
// partition (the partitions, parts_of_assignment; the majority routing of a
// transaction to a partition), and TSKD's residual extraction over such a
// partitioning (extract_residual), TSKD's step, not the partitioners': the
// SCHISM and HORTICULTURE baselines run their partitions as they are, with CC
// (TSKD §3: "Each partition is executed serially by a dedicated thread and
// partitions are executed concurrently with CC").
//
// Residual (TSKD §6.1, "For the partitioning of SCHISM and HORTICULTURE, TSKD
// first extracts a residual set that contains all those transactions that are
// in conflict with some other transactions from another partition"): T in P_i
// goes to R if some T' in P_j, j != i, shares a key with T and one of the two
// writes it. Both ends of such a conflict go to R, so what stays in
// P_1..P_k is mutually conflict-free (the premise of running them without CC)
// and R is exactly the set the paper names, not a smaller cover of it.
//
// Thread safety: plain functions and a value type; one caller at a time
// (extract_residual's own loops run on the participants of its for_chunks).
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

// Fills out.record_offsets, out.record_accesses and out.records from
// `accesses` (accesses_by_key() of a bundle of `bundle_size`): the records
// some transaction writes and at least two access, numbered in key order,
// each transaction's accesses to them in key order (Partitioning: the
// conflict graph a partitioner hands over to TSgen). O(A).
void record_graph(std::span<const KeyAccess> accesses, uint32_t bundle_size, Partitioning& out);
// Fills out.parts (k lists, bundle order) and out.residual from the
// assignment part_of[t] < k of every transaction t of the bundle whose
// accesses_by_key() is `accesses`. Leaves out.conflicts and out.partition_us
// alone. O(A), A = total accesses.
// REQUIRES: part_of.size() == bundle size, every part_of[t] < k.
void split_with_residual(std::span<const KeyAccess> accesses, std::span<const uint32_t> part_of, unsigned k,
                         Partitioning& out);

// The partitions of an assignment, without a residual: out.parts (k lists,
// bundle order) holds every transaction t in part_of[t]; out.residual is
// cleared. O(n). REQUIRES: every part_of[t] < k.
void parts_of_assignment(std::span<const uint32_t> part_of, unsigned k, Partitioning& out);

// TSKD §6.1's extraction over the partitioning `io` of `bundle` (its parts
// cover the bundle, its residual empty: a partitioner without an explicit
// residual): moves every transaction in conflict with one of another partition
// to io.residual (the rule of split_with_residual). O(A log A), A = total
// accesses, in parallel loops through `for_chunks` (the front-end's team,
// TSKD's analysis on the workers): the accesses are bucketed by key hash, each
// bucket sorted and marked on its own; the result is the same for any
// chunking.
// REQUIRES: io.validate(bundle.size()) is empty and io.residual is empty.
void extract_residual(std::span<const TxnDesc> bundle, Partitioning& io,
                      const ForChunks& for_chunks = serial_chunks);

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
