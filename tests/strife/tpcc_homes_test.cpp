// Strife on TPC-C batches as the Strife paper's §5.3 draws them: which
// warehouse a request is issued for decides how many conflict-free clusters
// a batch can have. With worker-bound homes (--home_warehouse=worker,
// DBx1000's) a batch generated for 15 clients touches 15 of 30 warehouses,
// so Strife finds at most 15 CF clusters; with uniform homes (clients over
// the whole database) it touches all 30 and finds more than 15 ("Strife
// produces as many CF clusters as warehouses", §5.3; how many of the 30 its
// k spot trials reach is the sampling's).
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "partitioners/strife/clusterer.h"
#include "workloads/tpcc/tpcc_requests.h"

namespace ccb::strife {
namespace {

constexpr uint32_t kWarehouses = 30;
constexpr uint32_t kClients = 15;
constexpr uint32_t kBatch = 10000;

struct Batch {
  std::vector<TxnDesc> descs;
  std::set<uint32_t> warehouses;
};

// A batch as the bundle executor generates it: request i for client i mod
// kClients; Fig. 6(b)'s mix (50/50 NewOrder/Payment, by customer id).
Batch tpcc_batch(const std::string& home) {
  TpccOptions o;
  o.warehouses = kWarehouses;
  o.home_warehouse = home;
  o.mix_pct = {50, 50, 0, 0, 0};
  o.by_last_name_pct = 0;
  const TpccGenerator g(o);
  Random rng(7);
  Batch b;
  TpccRequest r;
  for (uint32_t i = 0; i < kBatch; ++i) {
    g.generate(rng, i % kClients, r);
    b.warehouses.insert(r.w_id);
    b.descs.push_back(TpccGenerator::describe(r));
    b.descs.back().id = i;
  }
  return b;
}

Plan cluster(const Batch& b) {
  Options o;
  o.k = 50;  // ceil(10 x 15 cores / 3), the --strife_k default at 15 threads
  o.alpha = 0.2;
  Clusterer c(o);
  return c.cluster(b.descs);
}

TEST(StrifeTpccHomes, WorkerHomesLeaveHalfTheWarehousesOut) {
  const Batch b = tpcc_batch("worker");
  EXPECT_EQ(b.warehouses.size(), kClients);
  const Plan plan = cluster(b);
  EXPECT_LE(plan.stats.cf_clusters, kClients);
  EXPECT_GE(plan.stats.cf_clusters, kClients - 2);
}

TEST(StrifeTpccHomes, UniformHomesSpreadTheBatchOverEveryWarehouse) {
  const Batch b = tpcc_batch("uniform");
  EXPECT_EQ(b.warehouses.size(), kWarehouses);
  const Plan plan = cluster(b);
  EXPECT_GT(plan.stats.cf_clusters, kClients);
  EXPECT_LE(plan.stats.cf_clusters, kWarehouses);
  std::printf("uniform homes, %u clients, %u warehouses: %u CF clusters, %u residuals of %u\n", kClients,
              kWarehouses, plan.stats.cf_clusters, plan.stats.residuals, kBatch);
}

}  // namespace
}  // namespace ccb::strife
