// Partitioning: what a partitioner (Strife, Schism, Horticulture) produces for
// one bundle, and what TSKD's scheduler (TsPAR/TSgen, partitioners/tspar)
// consumes: TSKD §3 "W = P_1 ∪ ... ∪ P_k ∪ R", k = #cores.
//
//   parts[i]   P_i, the transactions of partition i, as indices into the
//              bundle, in the order the partitioner wants them run;
//   residual   R, the transactions in conflict with a transaction of another
//              partition, run with CC: Strife's own (its algorithm makes
//              P_1..P_k mutually conflict-free); empty from a partitioner
//              without one (Schism, Horticulture: TSKD §6.1 "STRIFE
//              generates partitioning of transactions with an explicit
//              residual set, while SCHISM and HORTICULTURE do not"), whose
//              partitions may conflict; TSKD extracts R from those itself
//              (extract_residual, residual.h).
//
// Every index of the bundle appears exactly once (validate()). The partitioner
// may hand over the conflict graph it built, so that TSgen reuses it instead of
// rebuilding it (TSKD §4.2: O(|W| + (k-1)|R|)); `conflicts` is empty when it
// did not build one.
//
// ForChunks: how a partitioning step runs its parallel loops on whatever
// team the caller has (BundleFrontend::for_chunks: the bundle executor's
// workers; serial_chunks: the caller alone).
//
// Thread safety: built by one thread, then only read.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/core/phase_team.h"
#include "engine/core/txn_desc.h"

namespace ccb {

// for_chunks(n, body): body(begin, end) over disjoint chunks covering [0, n),
// on any number of participants, returning when all are done; the steps that
// take one give the same result for any chunking.
using ForChunks = std::function<void(size_t n, const std::function<void(size_t begin, size_t end)>& body)>;
inline void serial_chunks(size_t n, const std::function<void(size_t, size_t)>& body) { body(0, n); }

// One access of a transaction to a record that can conflict
// (Partitioning::record_accesses).
struct RecordAccess {
  uint32_t record;  // below Partitioning::records
  bool write;
};

struct Partitioning {
  std::vector<std::vector<uint32_t>> parts;  // parts.size() == k
  std::vector<uint32_t> residual;
  // Optional: conflicts[t] = the bundle indices that conflict with t (share a
  // key, at least one of the two writing it); sized to the bundle or empty.
  std::vector<std::vector<uint32_t>> conflicts;
  // Optional, the variant of the conflict graph a partitioner built (TSKD
  // §4: "variants of conflict graph have already been used in transaction
  // partitioners ... TSgen re-uses their conflict graphs when looking up
  // conflicts"): the graph of transactions and the records that can conflict
  // (some transaction of the bundle writes the record and at least two access
  // it: Schism's co-access vertices), as each transaction's accesses to them,
  // dense record ids below `records`, in CSR form (record_offsets sized to the
  // bundle + 1; empty when the partitioner handed none over). TSgen looks
  // conflicts up by these ids instead of indexing the bundle's keys itself
  // (tsgen.h).
  std::vector<uint32_t> record_offsets;
  std::vector<RecordAccess> record_accesses;
  uint32_t records = 0;
  // Wall time of the partitioning step, microseconds (overheadR's denominator).
  double partition_us = 0;

  void clear() {
    parts.clear();
    residual.clear();
    conflicts.clear();
    record_offsets.clear();
    record_accesses.clear();
    records = 0;
    partition_us = 0;
  }

  // Empty if every index in [0, bundle_size) appears exactly once; else what is wrong.
  std::string validate(size_t bundle_size) const {
    std::vector<uint8_t> seen(bundle_size, 0);
    auto mark = [&](std::span<const uint32_t> txns) -> std::string {
      for (uint32_t t : txns) {
        if (t >= bundle_size) return "partitioning lists transaction " + std::to_string(t) + " outside the bundle";
        if (seen[t]++) return "partitioning lists transaction " + std::to_string(t) + " twice";
      }
      return {};
    };
    for (const auto& p : parts)
      if (auto e = mark(p); !e.empty()) return e;
    if (auto e = mark(residual); !e.empty()) return e;
    for (size_t t = 0; t < bundle_size; ++t)
      if (!seen[t]) return "partitioning omits transaction " + std::to_string(t);
    if (!conflicts.empty() && conflicts.size() != bundle_size) return "conflicts is not sized to the bundle";
    if (!record_offsets.empty()) {
      if (record_offsets.size() != bundle_size + 1 || record_offsets.front() != 0 ||
          record_offsets.back() != record_accesses.size())
        return "record_offsets does not cover the bundle's record accesses";
      for (const RecordAccess& a : record_accesses)
        if (a.record >= records) return "a record access names record " + std::to_string(a.record) + " of " +
                                        std::to_string(records);
    }
    return {};
  }
};

// A partitioner: one call per bundle, on the executor's coordinating thread.
class Partitioner {
 public:
  virtual ~Partitioner() = default;
  // Fills `out` (cleared by the caller) with k = `parts` partitions of `bundle`,
  // whose ids are 0..size-1 and whose key sets are sorted.
  virtual void partition(std::span<const TxnDesc> bundle, unsigned parts, Partitioning& out) = 0;
  virtual const char* name() const = 0;
  // Whether partition() gives an explicit residual, leaving P_1..P_k mutually
  // conflict-free (Strife); false: out.residual stays empty and the
  // partitions may conflict (Schism, Horticulture; TSKD §6.1).
  virtual bool gives_residual() const { return true; }
  // The bundle executor's workers as the team of the partitioner's parallel
  // steps (BundleFrontend::use_team; Strife's clusterer); without it a
  // partitioner runs on the caller (and threads of its own, if it has any).
  virtual void use_team(PhaseTeam&) {}
  // Asks the partitioner to hand its conflict graph over in each
  // partitioning (Partitioning::record_* or conflicts) where it builds one
  // (Schism); TSKD calls it for TSgen (TSKD §4). Default: none to hand over.
  virtual void hand_over_conflicts() {}
};

}  // namespace ccb
