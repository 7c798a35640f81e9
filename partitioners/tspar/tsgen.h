// TSgen: TSKD's transaction scheduler (Cao et al., "Transaction Scheduling:
// From Conflicts to Runtime Conflicts", SIGMOD 2023, §4 Algorithm 1).
//
// Input: a bundle W, k threads, a partitioning (P_1..P_k, R) (partitioning.h)
// and an estimated serial execution time time(T) per transaction. Output: k
// RC-free queues Q_1..Q_k and the unscheduled residual R_s (Schedule).
//
// Algorithm 1: len_i = time(P_i); for each T* of R in an order R⃗ (random by
// default, §4 "by default, TSgen picks a random ordering of R"):
//   l = argmin_i len_i                        (least-loaded queue, line 5)
//   for every i: move the transactions of P_i that conflict with T* to the
//     end of Q_i                              (lines 6-8)
//   if ckRCF(.., Q_l ∪ {T*}, ..): append T* to Q_l, len_l += time(T*)
//   else: R_s += T*                           (lines 9-11)
// then append what is left of each P_i to Q_i (lines 12-13).
//
// ckRCF (omitted in the paper): T* placed at the end of Q_l runs (by schedule)
// over [ts, tc) with ts = time of Q_l so far; it is RC-free iff no transaction
// that conflicts with T* and already sits in another queue Q_j has a
// scheduled runtime overlapping [ts, tc) (§2.2 "Runtime conflict"; runtimes
// that only touch, tc == ts', do not overlap: Example 1's T2 [0,3) and T5
// [4,10) are RC-free). Queues only grow at their ends, so a transaction's
// scheduled runtime never changes once placed, and the final schedule is
// RC-free: the P_i left over at the end conflict with nothing placed in
// another queue (every such neighbour was pulled into Q_i before).
//
// Conflicts (serializability, §2.2: a common key, at least one of the two
// writing it) come from the partitioner's conflict graph when it handed one
// over (§4 "TSgen re-uses their conflict graphs"): a transaction graph
// (Partitioning::conflicts), whose neighbours lines 6-8 and ckRCF visit,
// O(deg(T*)); or the graph of transactions and records that can conflict
// (Partitioning::record_*: Schism's co-access records), which replaces the
// key index below (the same per-key algorithm, on the partitioner's record
// ids: no key is hashed, the accesses of records that conflict with nothing
// are not visited). Without either (Strife's clusters do not say which
// transactions share a record; Horticulture builds no graph; TSKD[O] has no
// partitioner) TSgen indexes the keys of R once (O(total accesses) hash probes; a P-transaction matters only through
// a key it shares with R) and works per key instead of per neighbour,
// because a hot key makes deg(T*) O(|W|) [INF: the paper's
// O(|W| + (k-1)|R|) leaves ckRCF's data structure out]:
//   lines 6-8  per key, the P-transactions that touch it (T* writes it) or
//              write it (T* reads it) are pulled once; later pulls through
//              the same key find nothing left, so all pulls cost O(accesses
//              of P) (a key's postings list its P-transactions only);
//   ckRCF      per key, the queues holding placed transactions that touch
//              it, each with the runtimes of those touching (writing) the
//              key; one queue's runtimes are disjoint and in time order, so a
//              binary search finds the only one that can overlap [ts, tc)
//              first: O(|keys(T*)| · q · log), q = the queues that hold the
//              key (at most k-1 besides Q_l, usually far fewer). A
//              placement records a runtime only under the keys that a T*
//              still to be checked touches (each key's last step in R⃗ is
//              known from the index): on a large key space most keys of a
//              bundle are touched once, and their runtimes were never read.
// The per-bundle work is proportional to what the bundle touches: the key
// index and the runtime lists are built from R's accesses and reset by what
// was used, never per (key, queue) pair.
//
// Where the index's work runs (issue 45 item 4): all of it in parallel loops
// through `for_chunks` (the front-end's team, BundleFrontend::for_chunks).
// R's accesses are grouped by key bucket (key_buckets.h) and each bucket's
// keys inserted into its own region of the table, in R's order, which gives
// them their ids (the insertion's probe is the only probe of an
// R-transaction's access); the P-transactions' accesses are then looked up
// read-only, each chunk writing only its own transactions' slots; the
// postings are then counted and filled in bundle order. So the schedule is
// the same for any chunking (unit-tested with 1 and several participants).
// Only Algorithm 1's loop (lines 3-11, each T* depends on the placements
// before it) runs on the caller alone.
// Under sim (docs/sim.md, "The analysis's cost") TSgen's work costs virtual
// time on the fiber that does it: one index_probe of the "analysis" work type
// per hash probe of the index, per posting visited by lines 6-8, per
// (key, queue) runtime list searched by ckRCF, per runtime recorded by a
// placement, and per neighbour visited in the graph path (on the
// partitioner's records no key is hashed, so their index charges no probe,
// as the key index's counting sorts charge none); natively these hooks
// compile to nothing.
// Thread safety: a Tsgen is used by one caller at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "engine/core/random.h"
#include "engine/core/txn_desc.h"
#include "partitioners/partitioning.h"

namespace ccb::tspar {

struct Schedule {
  std::vector<std::vector<uint32_t>> queues;  // Q_1..Q_k, in run order
  std::vector<uint32_t> rs;                   // R_s, in the order examined
  std::vector<double> load;                   // estimated serial time of each Q_i
  double tsgen_us = 0;                        // wall time of schedule()
};

enum class ResidualOrder : uint8_t { kRandom, kGiven };

class Tsgen {
 public:
  explicit Tsgen(uint64_t seed = 1, ResidualOrder order = ResidualOrder::kRandom) : rng_(seed), order_(order) {}

  // REQUIRES: p.validate(bundle.size()) is empty; time.size() == bundle.size();
  // bundle ids 0..size-1, key sets sorted; p.parts.size() >= 1. The key
  // index's lookups of the P-transactions run through `for_chunks`.
  void schedule(std::span<const TxnDesc> bundle, const Partitioning& p, std::span<const double> time,
                Schedule& out, const ForChunks& for_chunks = serial_chunks);

 private:
  enum class Where : uint8_t { kPart, kPulled, kQueue, kPending, kResidual };
  struct Slot {
    Where where = Where::kPending;
    uint32_t queue = 0;       // kPart, kPulled: its P_i; kQueue: its Q_j
    uint32_t pos = 0;         // its place in P_i (pulls of one T* keep P_i's order)
    double ts = 0, tc = 0;    // kQueue: scheduled runtime [ts, tc)
  };
  struct Posting {
    uint32_t id;  // postings_: the transaction; accesses_: the key id (kEmpty: a key R does not touch)
    bool write;
  };

  // A placed transaction's scheduled runtime, in the lists of (key, queue).
  struct Runtime {
    double ts, tc;
  };

  void index_keys(std::span<const TxnDesc> bundle, const ForChunks& for_chunks);  // R⃗ = order_buf_
  void index_records(const Partitioning& p);  // the same from the partitioner's records (R⃗ = order_buf_)
  void index_postings(size_t keys, size_t bundle_size);  // both: the postings, the per-bundle resets
  void place(uint32_t t, uint32_t q, std::span<const double> time, Schedule& out);
  // Lines 6-8 and ckRCF, with the partitioner's graph or with the key index.
  void pull_graph(const Partitioning& p, uint32_t t_star, std::span<const double> time, Schedule& out);
  bool rc_free_graph(const Partitioning& p, uint32_t t_star, uint32_t l, double ts, double tc) const;
  void pull_keys(const Partitioning& p, uint32_t t_star, std::span<const double> time, Schedule& out);
  void pull(uint32_t u);
  void place_pulled(const Partitioning& p, std::span<const double> time, Schedule& out);
  bool rc_free_keys(uint32_t t_star, uint32_t l, double ts, double tc) const;

  Random rng_;
  ResidualOrder order_;
  std::vector<Slot> slots_;
  bool by_keys_ = false;  // no conflict graph: the key index below is in use
  uint32_t k_ = 0;
  // R's keys -> key id: open addressing, linear probing (a probe per access
  // of W, so no node-based map), one region of the table per key bucket
  // (key_buckets.h), so that the buckets are filled apart on the team.
  // kEmpty marks a free slot. Bucket b's ids count from bucket_begin_[b]:
  // unique, below the number of R's accesses, with gaps.
  static constexpr uint32_t kEmpty = ~0u;
  struct RAccess {
    GlobalKey key;
    uint32_t slot;  // its place in accesses_
    uint32_t step;  // its transaction's place in R⃗
    bool write;
  };
  // Key id -> the last step of R⃗ whose T* touches the key: a placement
  // records runtimes only for keys some ckRCF from keep_from_ on searches.
  std::vector<uint32_t> last_step_;
  uint32_t keep_from_ = 0;
  std::vector<RAccess> r_accesses_;     // R's accesses by bucket
  std::vector<uint32_t> bucket_begin_;  // bucket -> its range of r_accesses_ (and of ids)
  std::vector<uint64_t> region_begin_;  // bucket -> its slots (a power of two of them)
  std::vector<GlobalKey> slot_keys_;
  std::vector<uint32_t> slot_ids_;
  uint32_t find_key(GlobalKey key) const;
  uint32_t add_key(GlobalKey key, size_t bucket, uint32_t& next_id);
  std::vector<uint32_t> posting_offsets_;              // key id -> postings_ range
  std::vector<uint32_t> cursor_;                       // scratch: the postings' fill positions
  std::vector<Posting> postings_;
  std::vector<uint32_t> access_offsets_;               // txn -> accesses_ range: all its accesses
  std::vector<Posting> accesses_;                      // (key id or kEmpty, write) per access of each txn
  std::vector<uint8_t> pulled_;                        // key id -> 1: P-writers pulled, 2: all P pulled
  // Per key id, the queues holding placed transactions that touch the key,
  // in the order they first did, each with its runtime lists: indices into
  // runtimes_ of the runtimes of those touching / writing the key, in time
  // order (kEmpty: no writer yet). A key's first queue sits in
  // key_runtimes_ (queue kEmpty: none yet), further ones in more_runtimes_,
  // chained by `next`: most keys of a bundle are touched by one queue, so
  // the common case is one flat array read.
  struct QueueRuntimes {
    uint32_t queue = kEmpty, touching = kEmpty, writing = kEmpty, next = kEmpty;
  };
  std::vector<QueueRuntimes> key_runtimes_;   // key id -> its first queue's lists
  std::vector<QueueRuntimes> more_runtimes_;  // the further queues' lists
  std::vector<std::vector<Runtime>> runtimes_;  // a pool: first runtimes_used_ in use
  uint32_t runtimes_used_ = 0;                 // (capacities kept across bundles)
  QueueRuntimes& runtimes_of(uint32_t key, uint32_t queue);
  uint32_t new_runtime_list();
  std::vector<uint32_t> order_buf_;
  std::vector<uint64_t> pulled_buf_;  // one T*'s neighbours in some P_i: (i << 32 | place in P_i)
};

}  // namespace ccb::tspar
