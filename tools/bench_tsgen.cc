// bench_tsgen: TSgen's cost per transaction (TSKD §4, Algorithm 1;
// partitioners/tspar/tsgen.h) on bundles of TPC-C, YCSB and HOT transactions
// generated and described by the testbed's workloads (bench_batches.h), per
// thread count k. TSgen runs serially on the bundle executor's coordinator
// while the workers wait, so its time per transaction is time the workers
// lose; the paper bounds it by O(|W| + (k-1)|R|).
//
// Per (point, k): the input partition is made once (--partitioner=none:
// TSKD[O], W = R; strife: the Strife clusterer as a Partitioner, TSKD[S]),
// then one Tsgen schedules the same bundle --reps times (as the front-end
// reuses its Tsgen across bundles), time(T) = the access-set size (the cost
// model's empty-history estimate). Reported: |R|, |R_s| and the median and
// fastest schedule() time in ns per transaction of the bundle. Flags are
// parsed as the engine parses its own (engine/core/cli.h). Exit codes: 0 ok,
// 2 a bad flag (one line on stderr naming it, nothing printed on stdout).
#include <gflags/gflags.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/cli.h"
#include "partitioners/strife/strife_partitioner.h"
#include "partitioners/tspar/cost_model.h"
#include "partitioners/tspar/tsgen.h"
#include "tools/bench_batches.h"

DEFINE_string(points, "tpcc:8,ycsb:0.8,ycsb:0.99", "comma-separated workload:param points; workloads: tpcc (param = "
              "warehouses), ycsb (theta), hot (hot records)");
DEFINE_string(ks, "2,8,32", "comma-separated thread counts k (queues), each in [1, 1024]");
DEFINE_string(partitioner, "none", "the input partition: none (TSKD[O]: every transaction residual) or strife");
DEFINE_uint64(batch, 10000, "transactions per bundle ([1, 1000000])");
DEFINE_uint64(reps, 20, "timed schedule() calls per (point, k) ([1, 100000])");
DEFINE_uint32(partitions, 30, "ycsb and hot partitions ([1, 10000])");
DEFINE_uint64(seed, 1, "bundle generation, Strife's spot sampling and TSgen's residual order");

namespace ccb::strife::bench {
namespace {

const ProgramHelp kHelp{
    "bench_tsgen: TSgen's time per transaction (TSKD Algorithm 1, partitioners/tspar) on bundles the testbed's\n"
    "workloads generate, per thread count k.\n\n"
    "usage: bench_tsgen [flags]",
    {__FILE__},
    "exit codes: 0 ok, 2 bad flags"};

struct Config {
  std::vector<BatchSpec> points;
  std::vector<uint64_t> ks;
  bool strife = false;
  uint64_t batch, reps, seed;
};

Config config_from_flags() {
  Config c;
  const uint32_t partitions = in_range(FLAGS_partitions, 1, 10'000, "partitions", "an integer");
  c.points = parse_points(FLAGS_points, "points", partitions);
  c.ks = number_list<uint64_t>(FLAGS_ks, 1, 1024, "ks", "integers");
  require(FLAGS_partitioner == "none" || FLAGS_partitioner == "strife", "partitioner", "none or strife");
  c.strife = FLAGS_partitioner == "strife";
  c.batch = in_range(FLAGS_batch, 1, 1'000'000, "batch", "an integer");
  c.reps = in_range(FLAGS_reps, 1, 100'000, "reps", "an integer");
  c.seed = FLAGS_seed;
  return c;
}

int run(const Config& c) {
  std::printf("bench_tsgen: batch %llu, reps %llu, partitioner %s, seed %llu\n",
              static_cast<unsigned long long>(c.batch), static_cast<unsigned long long>(c.reps),
              c.strife ? "strife" : "none", static_cast<unsigned long long>(c.seed));
  std::printf("%-11s %4s %7s %7s %12s %12s\n", "workload", "k", "R", "R_s", "ns/txn_med", "ns/txn_best");
  for (const BatchSpec& point : c.points) {
    const std::vector<TxnDesc> bundle = make_batch(point, c.batch, c.seed);
    std::vector<double> time(bundle.size());
    const tspar::CostModel no_history;
    for (size_t i = 0; i < bundle.size(); ++i) time[i] = no_history.estimate(bundle[i]);
    for (uint64_t k : c.ks) {
      Partitioning part;
      if (c.strife) {
        Options o;
        o.seed = c.seed;
        StrifePartitioner(o).partition(bundle, static_cast<unsigned>(k), part);
      } else {
        part.parts.assign(k, {});
        for (uint32_t i = 0; i < bundle.size(); ++i) part.residual.push_back(i);
      }
      tspar::Tsgen tsgen(c.seed);
      tspar::Schedule s;
      std::vector<double> ns_per_txn;
      for (uint64_t r = 0; r < c.reps; ++r) {
        tsgen.schedule(bundle, part, time, s);
        ns_per_txn.push_back(s.tsgen_us * 1e3 / static_cast<double>(bundle.size()));
      }
      std::sort(ns_per_txn.begin(), ns_per_txn.end());
      std::printf("%-11s %4llu %7zu %7zu %12.1f %12.1f\n",
                  (std::string(workload_name(point.workload)) + ":" + std::to_string(point.param).substr(0, 4)).c_str(),
                  static_cast<unsigned long long>(k), part.residual.size(), s.rs.size(), ns_per_txn[ns_per_txn.size() / 2],
                  ns_per_txn.front());
    }
  }
  return 0;
}

}  // namespace
}  // namespace ccb::strife::bench

int main(int argc, char** argv) {
  using namespace ccb::strife::bench;
  return ccb::cli_main(argc, argv, kHelp, [] { return run(config_from_flags()); });
}
