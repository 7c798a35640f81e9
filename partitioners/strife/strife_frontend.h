// Strife as a front-end of the bundle executor (engine/exec/bundle_plan.h):
// each batch is clustered (clusterer.h, Algorithm 1) and the clusters become
// a plan: every CF cluster a kWithoutCC queue on the shared worklist, which
// idle workers pop and run serially without CC, and the residuals the plan's
// residual set, run under the binary's protocol after the barrier (§2,
// "Execution"; the paper's residual protocol is 2PL NO_WAIT, i.e.
// rundb-nowait --frontend=strife).
//
// The worklist lists the CF clusters largest first, each copied into a queue
// buffer the plan kept from earlier batches (BundlePlan::add_to_worklist:
// with 10K single-transaction clusters per batch, allocating each queue
// anew took 0.21 ms per batch on worker 0, reusing the buffers 0.12 ms;
// issue 44 item 3). The plan reports the
// analysis step times (prepare, spot, fuse, merge, allocate, µs) and the
// clustering counters of Stats (README.md), fallback included.
//
// Thread safety: one caller at a time (the executor's worker 0, which
// coordinates); the team's other members work only inside plan().
#pragma once

#include <span>
#include <vector>

#include "engine/core/txn_desc.h"
#include "engine/exec/bundle_plan.h"
#include "partitioners/frontend_factory.h"
#include "partitioners/strife/clusterer.h"

namespace ccb::strife {

// The paper's rule for k (§3.1.2: "a small factor times core count ... we use
// k = 100 for 30 cores"): ceil(10 x threads / 3), so 100 at 30 threads.
inline uint32_t default_k(unsigned threads) { return (10 * threads + 2) / 3; }

// The rule for fallback clustering (Options::max_cluster_fraction) when
// --strife_fallback is not given [INF]. Strife §2 calls a clustering good
// when "n [is] at least as large as number of cores" and R is "no larger
// than a small fraction, α, of the batch"; when only the sequential
// clustering (one cluster, "executing all transactions sequentially, on a
// single core") and fallback remain, "Strife simply resorts to fallback
// clustering". The paper gives no size at which a cluster makes a clustering
// sequential. We take a cluster over (1 - α)|B|: then fewer than α|B|
// transactions lie outside it, so even as residuals they would leave one
// cluster, i.e. the clustering is sequential up to the residual budget α|B|.
// At one core the sequential clustering is good (n >= cores), so there is no
// fallback; at α = 0 the bound is |B| and §5.6.2's single cluster stays.
// Not |B| / cores: §5.3 runs 4 CF clusters of TPC-C's 4 warehouses (each
// about |B| / 4) on up to 30 cores without falling back.
inline double default_max_cluster_fraction(double alpha, unsigned threads) { return threads > 1 ? 1.0 - alpha : 1.0; }

// "sample" or "all" (--strife_spot).
const char* spot_mode_name(SpotMode mode);

class StrifeFrontend final : public BundleFrontend {
 public:
  explicit StrifeFrontend(const Options& options) : options_(options), clusterer_(options) {}
  void plan(std::span<const TxnDesc> batch, BundlePlan& plan) override;
  void params_json(JsonWriter& w) const override;
  // The executor's workers run the clusterer's parallel steps (§4).
  void use_team(PhaseTeam& team) override {
    BundleFrontend::use_team(team);
    clusterer_.use_team(team);
  }

 private:
  Options options_;
  Clusterer clusterer_;
  Plan clusters_;               // each batch's clusters (capacity reused)
  std::vector<uint32_t> order_;  // the worklist's order of the clusters (capacity reused)
};

// --frontend=strife (partitioners/frontends.txt): a StrifeFrontend with ctx.strife.
std::unique_ptr<BundleFrontend> make_frontend(FrontendContext& ctx);

}  // namespace ccb::strife
