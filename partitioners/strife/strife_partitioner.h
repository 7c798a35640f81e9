// Strife as a Partitioner (partitioners/partitioning.h), the input of TSKD[S]
// (TSKD §6.2: TsPAR on top of STRIFE's partitions).
//
// Strife's clusterer (clusterer.h, Algorithm 1) yields CF clusters, often more
// than the k threads, and residuals. The partition P_1..P_k is the CF clusters
// assigned to the k parts largest first, each to the part with the fewest
// transactions so far (LPT) [INF: the TSKD paper does not say how STRIFE's
// clusters map to threads; Strife itself lets idle workers pop clusters, which
// is the same greedy balance by count]; a cluster's transactions stay together
// and in Strife's order. R = Strife's residuals. Strife builds no conflict
// graph, so `conflicts` stays empty and TSgen indexes the keys itself.
//
// Thread safety: one caller at a time (the clusterer's team works only
// inside partition()).
#pragma once

#include "partitioners/partitioning.h"
#include "partitioners/strife/clusterer.h"

namespace ccb::strife {

class StrifePartitioner final : public Partitioner {
 public:
  explicit StrifePartitioner(const Options& options) : options_(options), clusterer_(options) {}
  void partition(std::span<const TxnDesc> bundle, unsigned parts, Partitioning& out) override;
  const char* name() const override { return "strife"; }
  void use_team(PhaseTeam& team) override { clusterer_.use_team(team); }
  const Options& options() const { return options_; }

 private:
  Options options_;
  Clusterer clusterer_;
};

}  // namespace ccb::strife
