// Schism (Curino et al., PVLDB 2010) as a partitioner of one bundle (TSKD §6.1:
// "implemented SCHISM by following [15]"; METIS on the
// co-access graph, as Schism itself).
//
// Per bundle (README.md):
//   1. graph (Schism §4.1): a vertex per record, an edge between two records
//      accessed by the same transaction, weighted by the number of
//      transactions of the bundle that access both; a vertex weighs the
//      number of transactions accessing the record (§4.1's workload-balancing
//      node weight). Records no transaction of the bundle writes, or that only
//      one transaction accesses, are left out: Schism's replication (§4.2)
//      replicates a tuple whose replication edges weigh its updates, so a
//      record never written is free to replicate and cuts nothing, and a
//      record of one transaction has no co-access edge.
//   2. partition (§4.3): METIS k-way (METIS_PartGraphKway) into k = #cores
//      parts, minimizing the cut edge weight under METIS's balance bound.
//   3. routing: a transaction goes to the part holding most of its records
//      (MajorityRouter, residual.h); one with no graph record, to the part
//      with the fewest transactions.
// No residual: the k partitions cover the bundle and may conflict (TSKD §6.1:
// SCHISM does not produce a residual; TSKD extracts one itself,
// extract_residual in residual.h; the SCHISM baseline runs the partitions
// with CC, partitioners/partitioner_frontend.h).
//
// Dropped from Schism (a tool that designs a database layout, not a batch
// scheduler): the explanation phase (decision trees over attributes), range
// predicates, sampling of the trace, and the final validation against
// hash/replication schemes; the bundle is the trace.
//
// Thread safety: one caller at a time; partition() is single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "partitioners/partitioning.h"

namespace ccb::schism {

struct Options {
  uint64_t seed = 1;        // METIS_OPTION_SEED: the same bundle gives the same partition
  double imbalance = 1.03;  // max part weight / average (METIS_OPTION_UFACTOR; 1.03 = METIS's k-way default)
};

// The co-access graph of the last bundle (for the README's numbers and tests).
struct GraphStats {
  uint64_t vertices = 0;
  uint64_t edges = 0;    // undirected
  uint64_t cut = 0;      // METIS's objective: the weight of the cut edges
};

class SchismPartitioner final : public Partitioner {
 public:
  explicit SchismPartitioner(const Options& options) : options_(options) {}
  void partition(std::span<const TxnDesc> bundle, unsigned parts, Partitioning& out) override;
  const char* name() const override { return "schism"; }
  bool gives_residual() const override { return false; }
  const GraphStats& last_graph() const { return graph_; }
  // TSKD's TSgen takes the conflicts from the records of step 1 (TSKD §4:
  // "TSgen re-uses their conflict graphs"): each partitioning then carries
  // them (Partitioning::record_*, record_graph in residual.h), inside
  // partition_us.
  void hand_over_conflicts() override { hand_over_ = true; }

 private:
  Options options_;
  GraphStats graph_;
  bool hand_over_ = false;
};

inline std::unique_ptr<Partitioner> make_schism(const Options& options = {}) {
  return std::make_unique<SchismPartitioner>(options);
}

}  // namespace ccb::schism
