// bench_tsgen: TSgen's cost per transaction (TSKD §4, Algorithm 1;
// partitioners/tspar/tsgen.h) on bundles of TPC-C, YCSB and HOT transactions
// generated and described by the testbed's workloads (bench_batches.h), per
// thread count k. TSgen runs serially on the bundle executor's coordinator
// while the workers wait, so its time per transaction is time the workers
// lose; the paper bounds it by O(|W| + (k-1)|R|).
//
// Per (point, k): the input partition is made once (--partitioner=none:
// TSKD[O], W = R; strife: the Strife clusterer as a Partitioner, TSKD[S];
// schism: METIS's partition and TSKD's residual extraction, TSKD[C]),
// then one Tsgen schedules the same bundle --reps times (as the front-end
// reuses its Tsgen across bundles), time(T) = the access-set size (the cost
// model's empty-history estimate). Reported: |R|, |R_s| and the median and
// fastest schedule() time in ns per transaction of the bundle. The key
// index's lookups run in chunks on --participants threads (1: on the caller),
// as on the bundle executor's team; under callgrind --separate-threads=yes
// the main thread's instructions are the coordinator's. Flags are
// parsed as the engine parses its own (engine/core/cli.h). Exit codes: 0 ok,
// 2 a bad flag (one line on stderr naming it, nothing printed on stdout).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/cli.h"
#include "engine/core/options.h"
#include <functional>
#include <thread>

#include "partitioners/residual.h"
#include "partitioners/schism/schism.h"
#include "partitioners/strife/strife_partitioner.h"
#include "partitioners/tspar/cost_model.h"
#include "partitioners/tspar/tsgen.h"
#include "tools/bench_batches.h"

namespace ccb::strife::bench {
namespace {

const ProgramHelp kHelp{
    "bench_tsgen: TSgen's time per transaction (TSKD Algorithm 1, partitioners/tspar) on bundles the testbed's\n"
    "workloads generate, per thread count k.\n\n"
    "usage: bench_tsgen [flags]",
    {__FILE__},
    "exit codes: 0 ok, 2 bad flags"};

// Its flags, one row each below (text output only: none is echoed); the
// lists are parsed by from_flags.
struct Config {
  std::string points_text, ks_text, partitioner;
  uint32_t partitions = 0, participants = 0;
  std::vector<BatchSpec> points;
  std::vector<uint64_t> ks;
  uint64_t batch = 0, reps = 0, seed = 0;

  static OptionsTable<Config> flags;
  static Config from_flags();
};
OptionsTable<Config> Config::flags{"bench_tsgen_flags"};

const std::vector<std::string>& partitioners() {
  static const std::vector<std::string> names{"none", "strife", "schism"};
  return names;
}

}  // namespace
}  // namespace ccb::strife::bench

using ccb::strife::bench::Config;
CCB_OPTION(Config::flags, points_text, string, points, "tpcc:8,ycsb:0.8,ycsb:0.99", ccb::any_value().not_echoed(),
           "comma-separated workload:param points; workloads: tpcc (param = warehouses), ycsb (theta), hot (hot "
           "records)");
CCB_OPTION(Config::flags, ks_text, string, ks, "2,8,32", ccb::any_value().not_echoed(),
           "comma-separated thread counts k (queues), each in [1, 1024]");
CCB_OPTION(Config::flags, partitioner, string, partitioner, "none",
           ccb::one_of(&ccb::strife::bench::partitioners).not_echoed(),
           "the input partition: none (TSKD[O]: every transaction residual), strife (TSKD[S]) or schism (TSKD[C]: "
           "METIS, then TSKD's residual extraction)");
CCB_OPTION(Config::flags, batch, uint64, batch, 10000, ccb::range(1, 1'000'000, "an integer").not_echoed(),
           "transactions per bundle");
CCB_OPTION(Config::flags, reps, uint64, reps, 20, ccb::range(1, 100'000, "an integer").not_echoed(),
           "timed schedule() calls per (point, k)");
CCB_OPTION(Config::flags, partitions, uint32, partitions, 30, ccb::range(1, 10'000, "an integer").not_echoed(),
           "ycsb and hot partitions");
CCB_OPTION(Config::flags, participants, uint32, participants, 1, ccb::range(1, 64, "an integer").not_echoed(),
           "threads running the chunks of TSgen's key index (1: the caller alone)");
CCB_OPTION(Config::flags, seed, uint64, seed, 1, ccb::any_value().not_echoed(),
           "bundle generation, Strife's spot sampling and TSgen's residual order");

namespace ccb::strife::bench {
namespace {

Config Config::from_flags() {
  Config c = flags.read();
  c.points = parse_points(c.points_text, "points", c.partitions);
  c.ks = number_list<uint64_t>(c.ks_text, 1, 1024, "ks", "integers");
  return c;
}

// body over [0, n) in `participants` near-equal chunks, one thread each
// (BundleFrontend::for_chunks's contract).
void team_chunks(uint32_t participants, size_t n, const std::function<void(size_t, size_t)>& body) {
  if (participants <= 1) return body(0, n);
  std::vector<std::thread> team;
  for (uint32_t c = 1; c < participants; ++c) team.emplace_back(body, n * c / participants, n * (c + 1) / participants);
  body(0, n / participants);
  for (std::thread& t : team) t.join();
}

int run(const Config& c) {
  std::printf("bench_tsgen: batch %llu, reps %llu, partitioner %s, participants %u, seed %llu\n",
              static_cast<unsigned long long>(c.batch), static_cast<unsigned long long>(c.reps),
              c.partitioner.c_str(), c.participants, static_cast<unsigned long long>(c.seed));
  std::printf("%-11s %4s %7s %7s %12s %12s\n", "workload", "k", "R", "R_s", "ns/txn_med", "ns/txn_best");
  for (const BatchSpec& point : c.points) {
    const std::vector<TxnDesc> bundle = make_batch(point, c.batch, c.seed);
    std::vector<double> time(bundle.size());
    const tspar::CostModel no_history;
    for (size_t i = 0; i < bundle.size(); ++i) time[i] = no_history.estimate(bundle[i]);
    for (uint64_t k : c.ks) {
      Partitioning part;
      if (c.partitioner == "strife") {
        Options o;
        o.seed = c.seed;
        StrifePartitioner(o).partition(bundle, static_cast<unsigned>(k), part);
      } else if (c.partitioner == "schism") {
        schism::SchismPartitioner({.seed = c.seed}).partition(bundle, static_cast<unsigned>(k), part);
        extract_residual(bundle, part);  // TSKD's step over a partition without a residual (TSKD §6.1)
      } else {
        part.parts.assign(k, {});
        for (uint32_t i = 0; i < bundle.size(); ++i) part.residual.push_back(i);
      }
      tspar::Tsgen tsgen(c.seed);
      tspar::Schedule s;
      std::vector<double> ns_per_txn;
      for (uint64_t r = 0; r < c.reps; ++r) {
        tsgen.schedule(bundle, part, time, s, [&](size_t n, const std::function<void(size_t, size_t)>& body) {
          team_chunks(c.participants, n, body);
        });
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
  return ccb::cli_main(argc, argv, kHelp, [] { return run(Config::from_flags()); });
}
