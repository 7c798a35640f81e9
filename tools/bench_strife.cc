// bench_strife: clustering statistics and analysis speed of the Strife
// clusterer on batches of TPC-C, YCSB and HOT transactions generated and
// described by the testbed's workloads (bench_batches.h). Experiments (Strife §5.2, §5.6):
//   fig05  spot clusters / CF clusters / residuals per workload (strife-fig05)
//   fig09  analysis throughput per thread count (strife-fig09a) and time per
//          step (strife-fig09b), medians over --reps runs of one batch (the
//          thread counts' runs interleaved)
//   fig10  CF clusters vs alpha (strife-fig10a/b)
// fig05 and fig10 run on one thread, where the clustering is deterministic
// for a seed. Output: tables (--format=text) or one JSON document on stdout
// (--format=json; the harness reads its rows, docs/harness.md). Flags are
// parsed as the engine parses its own (engine/core/cli.h). Exit codes: 0 ok,
// 2 a bad flag (one line on stderr naming it, nothing printed on stdout).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/cli.h"
#include "engine/core/json.h"
#include "engine/core/options.h"
#include "tools/bench_batches.h"
#include "partitioners/strife/clusterer.h"

namespace ccb::strife::bench {
namespace {

const ProgramHelp kHelp{
    "bench_strife: clustering statistics and analysis speed of the Strife clusterer (strife-fig05, -fig09a/b,\n"
    "-fig10a/b) on batches the testbed's workloads generate (partitioners/strife/README.md).\n\n"
    "usage: bench_strife [flags]",
    {__FILE__},
    "exit codes: 0 ok, 2 bad flags"};

constexpr const char* kExperiments[] = {"fig05", "fig09", "fig10"};

// Its flags, one row each below; the lists are parsed by from_flags. The
// JSON document's "config" is written by print_json (with the parsed thread
// list and the batches' source), so no row is echoed by the table.
struct Config {
  std::string experiments_text, fig05_text, fig09_text, fig10_text, alphas_text, threads_text, format, spot;
  std::vector<std::string> experiments;
  std::vector<BatchSpec> fig05, fig09, fig10;
  std::vector<double> alphas;
  uint64_t batch = 0;
  uint32_t k = 0;
  double alpha = 0;
  std::vector<uint64_t> threads;
  uint64_t reps = 0;
  uint32_t partitions = 0;
  uint64_t seed = 0;
  bool pack = false;
  bool fuse_after_merge = false;
  bool json = false;

  static OptionsTable<Config> flags;
  static Config from_flags();
};
OptionsTable<Config> Config::flags{"bench_strife_flags"};

const std::vector<std::string>& formats() {
  static const std::vector<std::string> names{"text", "json"};
  return names;
}

const std::vector<std::string>& spot_modes() {
  static const std::vector<std::string> names{"sample", "all"};
  return names;
}

}  // namespace
}  // namespace ccb::strife::bench

using ccb::strife::bench::Config;
CCB_OPTION(Config::flags, experiments_text, string, experiments, "fig05,fig09,fig10", ccb::any_value().not_echoed(),
           "comma-separated experiments: fig05 (clustering per workload), fig09 (analysis speed per thread count), "
           "fig10 (CF clusters vs alpha)");
CCB_OPTION(Config::flags, fig05_text, string, fig05_points,
           "tpcc:4,tpcc:15,tpcc:30,ycsb:0.1,ycsb:0.5,ycsb:0.8,ycsb:0.99,ycsb:1.2,hot:10,hot:50,hot:100,hot:200",
           ccb::any_value().not_echoed(),
           "fig05's comma-separated workload:param points; workloads: tpcc (param = warehouses), ycsb (theta), "
           "hot (hot records)");
CCB_OPTION(Config::flags, fig09_text, string, fig09_points, "tpcc:30,ycsb:0.1,ycsb:0.99,hot:100",
           ccb::any_value().not_echoed(), "fig09's workload:param points (as --fig05_points)");
CCB_OPTION(Config::flags, fig10_text, string, fig10_points,
           "tpcc:4,tpcc:15,tpcc:30,ycsb:0.1,ycsb:0.5,ycsb:0.8,ycsb:0.99,ycsb:1.2", ccb::any_value().not_echoed(),
           "fig10's workload:param points (as --fig05_points)");
CCB_OPTION(Config::flags, alphas_text, string, alphas, "0,0.05,0.1,0.2,0.3,0.4,0.5", ccb::any_value().not_echoed(),
           "fig10's comma-separated alpha values, each in [0, 1]");
CCB_OPTION(Config::flags, batch, uint64, batch, 10000, ccb::range(1, 10'000'000, "an integer").not_echoed(),
           "transactions per batch");
CCB_OPTION(Config::flags, k, uint32, k, 100, ccb::range(1, ccb::strife::kMaxK, "an integer").not_echoed(),
           "spot trials");
CCB_OPTION(Config::flags, alpha, double, alpha, 0.2, ccb::range(0, 1, "a number").not_echoed(),
           "residual parameter (0 merges all special clusters)");
CCB_OPTION(Config::flags, threads_text, string, threads, "1,2", ccb::any_value().not_echoed(),
           "fig09's comma-separated thread counts, each in [1, 1024]");
CCB_OPTION(Config::flags, reps, uint64, reps, 20, ccb::range(1, 100'000, "an integer").not_echoed(),
           "fig09's timed runs per point");
CCB_OPTION(Config::flags, partitions, uint32, partitions, 30, ccb::range(1, 10'000, "an integer").not_echoed(),
           "ycsb and hot partitions");
CCB_OPTION(Config::flags, seed, uint64, seed, 1, ccb::any_value().not_echoed(), "batch generation and spot sampling");
CCB_OPTION(Config::flags, pack, bool, pack, true, ccb::any_value().not_echoed(),
           "true: pack non-special clusters into the special clusters' queues; false: one queue per data cluster, as "
           "Algorithm 1");
CCB_OPTION(Config::flags, fuse_after_merge, bool, fuse_after_merge, true, ccb::any_value().not_echoed(),
           "true: fuse the transactions that fuse skipped again after merge; false: as Algorithm 1 (README.md)");
CCB_OPTION(Config::flags, spot, string, spot, "sample", ccb::one_of(&ccb::strife::bench::spot_modes).not_echoed(),
           "which transactions spot tries: sample (k random trials, Strife §3.1.2) or all (every transaction, the "
           "public STRIFE implementation the TSKD paper ran)");
CCB_OPTION(Config::flags, format, string, format, "text", ccb::one_of(&ccb::strife::bench::formats).not_echoed(),
           "output: text (tables) or json (one document)");

namespace ccb::strife::bench {
namespace {

Config Config::from_flags() {
  Config c = flags.read();
  const std::string experiments = "comma-separated experiments, each one of fig05, fig09, fig10";
  c.experiments = list_items(c.experiments_text, "experiments", experiments);
  for (const std::string& e : c.experiments)
    require(std::find(std::begin(kExperiments), std::end(kExperiments), e) != std::end(kExperiments), "experiments",
            experiments);
  c.alphas = number_list(c.alphas_text, 0.0, 1.0, "alphas", "numbers");
  c.threads = number_list<uint64_t>(c.threads_text, 1, kMaxThreads, "threads", "integers");
  c.json = c.format == "json";
  c.fig05 = parse_points(c.fig05_text, "fig05_points", c.partitions);
  c.fig09 = parse_points(c.fig09_text, "fig09_points", c.partitions);
  c.fig10 = parse_points(c.fig10_text, "fig10_points", c.partitions);
  return c;
}

bool wants(const Config& c, const char* experiment) {
  return std::find(c.experiments.begin(), c.experiments.end(), experiment) != c.experiments.end();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

std::string point_label(const BatchSpec& p) {
  std::ostringstream s;
  s << workload_name(p.workload) << ":" << p.param;
  return s.str();
}

// Batches are generated once per point and shared by the experiments.
class Batches {
 public:
  explicit Batches(const Config& c) : c_(c) {}
  const std::vector<TxnDesc>& get(const BatchSpec& p) {
    auto [it, added] = cache_.try_emplace(point_label(p));
    if (added) it->second = make_batch(p, c_.batch, c_.seed);
    return it->second;
  }

 private:
  const Config& c_;
  std::map<std::string, std::vector<TxnDesc>> cache_;
};

Options options(const Config& c, double alpha, unsigned threads) {
  Options o;
  o.k = c.k;
  o.alpha = alpha;
  o.threads = threads;
  o.seed = c.seed;
  o.pack_nonspecial = c.pack;
  o.fuse_after_merge = c.fuse_after_merge;
  o.spot = c.spot == "all" ? SpotMode::kAll : SpotMode::kSample;
  return o;
}

struct Fig05Row {
  BatchSpec point;
  Stats stats;
  size_t queue_min = 0, queue_max = 0;
};

struct Fig09Row {
  BatchSpec point;
  unsigned threads;
  double total_us;    // median wall time of cluster()
  double best_us;     // fastest run (less sensitive to other load on the machine)
  StepTimes step_us;  // per-step medians
  uint64_t batch;
  double txn_per_s() const { return 1e6 * batch / total_us; }
  double best_txn_per_s() const { return 1e6 * batch / best_us; }
};

struct Fig10Row {
  BatchSpec point;
  double alpha;
  Stats stats;
};

Fig05Row run_fig05(const Config& c, Batches& batches, const BatchSpec& p) {
  Clusterer clusterer(options(c, c.alpha, 1));
  const Plan plan = clusterer.cluster(batches.get(p));
  Fig05Row row{p, plan.stats};
  for (size_t q = 0; q < plan.num_queues(); ++q) {
    const size_t size = plan.queue(q).size();
    row.queue_min = q == 0 ? size : std::min(row.queue_min, size);
    row.queue_max = std::max(row.queue_max, size);
  }
  return row;
}

// One row per thread count. The runs of the thread counts are interleaved
// (one run of each in turn), so that load from other processes on a shared
// machine affects them alike.
std::vector<Fig09Row> run_fig09(const Config& c, Batches& batches, const BatchSpec& p) {
  const std::vector<TxnDesc>& batch = batches.get(p);
  struct Series {
    std::unique_ptr<Clusterer> clusterer;
    std::vector<double> total, prepare, spot, fuse, merge, allocate;
  };
  std::vector<Series> series;
  for (uint64_t threads : c.threads) {
    series.emplace_back();
    series.back().clusterer = std::make_unique<Clusterer>(options(c, c.alpha, static_cast<unsigned>(threads)));
    for (int warmup = 0; warmup < 2; ++warmup) series.back().clusterer->cluster(batch);
  }
  for (uint64_t r = 0; r < c.reps; ++r) {
    for (Series& s : series) {
      const auto start = std::chrono::steady_clock::now();
      const Plan plan = s.clusterer->cluster(batch);
      s.total.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
      const StepTimes& t = plan.stats.time_us;
      s.prepare.push_back(t.prepare);
      s.spot.push_back(t.spot);
      s.fuse.push_back(t.fuse);
      s.merge.push_back(t.merge);
      s.allocate.push_back(t.allocate);
    }
  }
  std::vector<Fig09Row> rows;
  for (size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    rows.push_back({p, static_cast<unsigned>(c.threads[i]), median(s.total),
                    *std::min_element(s.total.begin(), s.total.end()),
                    {median(s.prepare), median(s.spot), median(s.fuse), median(s.merge), median(s.allocate)},
                    batch.size()});
  }
  return rows;
}

// ------------------------------------------------------------------ output
void print_text(const Config& c, const std::vector<Fig05Row>& f5, const std::vector<Fig09Row>& f9,
                const std::vector<Fig10Row>& f10) {
  std::printf("bench_strife: batch %llu, k %u, alpha %g, partitions %u, seed %llu, pack %s, fuse_after_merge %s, spot %s\n",
              static_cast<unsigned long long>(c.batch), c.k, c.alpha, c.partitions,
              static_cast<unsigned long long>(c.seed), c.pack ? "true" : "false", c.fuse_after_merge ? "true" : "false",
              c.spot.c_str());
  if (!f5.empty()) {
    std::printf("\nstrife-fig05: clustering (1 thread)\n");
    std::printf("%-11s %5s %7s %5s %9s %6s %6s %8s %9s %9s %9s\n", "workload", "spot", "special", "cf", "residuals",
                "merges", "multi", "fused_am", "active", "queue_min", "queue_max");
    for (const Fig05Row& r : f5)
      std::printf("%-11s %5u %7u %5u %9u %6u %6u %8u %9llu %9zu %9zu\n", point_label(r.point).c_str(),
                  r.stats.spot_clusters, r.stats.special_clusters, r.stats.cf_clusters, r.stats.residuals,
                  r.stats.merges, r.stats.multi_special_txns, r.stats.fused_after_merge,
                  static_cast<unsigned long long>(r.stats.active_items), r.queue_min, r.queue_max);
  }
  if (!f9.empty()) {
    std::printf("\nstrife-fig09a: analysis throughput (median of %llu runs)\n", static_cast<unsigned long long>(c.reps));
    std::printf("%-11s %7s %12s %10s %12s %10s\n", "workload", "threads", "txn/s", "total_us", "best_txn/s",
                "best_us");
    for (const Fig09Row& r : f9)
      std::printf("%-11s %7u %12.0f %10.1f %12.0f %10.1f\n", point_label(r.point).c_str(), r.threads, r.txn_per_s(),
                  r.total_us, r.best_txn_per_s(), r.best_us);
    std::printf("\nstrife-fig09b: time per step, us (median)\n");
    std::printf("%-11s %7s %9s %7s %9s %7s %9s\n", "workload", "threads", "prepare", "spot", "fuse", "merge",
                "allocate");
    for (const Fig09Row& r : f9)
      std::printf("%-11s %7u %9.1f %7.1f %9.1f %7.1f %9.1f\n", point_label(r.point).c_str(), r.threads,
                  r.step_us.prepare, r.step_us.spot, r.step_us.fuse, r.step_us.merge, r.step_us.allocate);
  }
  if (!f10.empty()) {
    std::printf("\nstrife-fig10: CF clusters vs alpha (1 thread)\n");
    std::printf("%-11s %6s %4s %9s\n", "workload", "alpha", "cf", "residuals");
    for (const Fig10Row& r : f10)
      std::printf("%-11s %6g %4u %9u\n", point_label(r.point).c_str(), r.alpha, r.stats.cf_clusters,
                  r.stats.residuals);
  }
}

void write_point(JsonWriter& w, const BatchSpec& p) {
  w.key("workload").value(workload_name(p.workload)).key("param").value(p.param);
}

void write_stats(JsonWriter& w, const Stats& s) {
  w.key("batch_size").value(s.batch_size).key("active_items").value(s.active_items);
  w.key("spot_clusters").value(s.spot_clusters).key("special_clusters").value(s.special_clusters);
  w.key("merges").value(s.merges).key("multi_special_txns").value(s.multi_special_txns);
  w.key("fused_after_merge").value(s.fused_after_merge);
  w.key("data_clusters").value(s.data_clusters).key("free_txns").value(s.free_txns);
  w.key("cf_clusters").value(s.cf_clusters).key("residuals").value(s.residuals);
}

void write_steps(JsonWriter& w, const StepTimes& t) {
  w.begin_object();
  w.key("prepare").value(t.prepare).key("spot").value(t.spot).key("fuse").value(t.fuse);
  w.key("merge").value(t.merge).key("allocate").value(t.allocate).key("total").value(t.total());
  w.end_object();
}

// "name": [rows], each row an object whose members `member` writes.
template <class Row, class Member>
void write_rows(JsonWriter& w, const char* name, const std::vector<Row>& rows, Member&& member) {
  w.key(name).begin_array();
  for (const Row& r : rows) {
    w.begin_object();
    member(r);
    w.end_object();
  }
  w.end_array();
}

// One document: the settings and a list of rows per experiment (empty when
// not run); the harness takes a point's row from its experiment's list.
void print_json(const Config& c, const std::vector<Fig05Row>& f5, const std::vector<Fig09Row>& f9,
                const std::vector<Fig10Row>& f10) {
  JsonWriter w;
  w.begin_object().key("bench").value("strife");
  w.key("config").begin_object();
  w.key("batch").value(c.batch).key("k").value(c.k).key("alpha").value(c.alpha);
  w.key("partitions").value(c.partitions).key("seed").value(c.seed).key("reps").value(c.reps);
  w.key("pack").value(c.pack).key("fuse_after_merge").value(c.fuse_after_merge).key("spot").value(c.spot);
  w.key("threads").begin_array();
  for (uint64_t t : c.threads) w.value(t);
  w.end_array();
  w.key("batches").value(kBatchSource);
  w.end_object();
  write_rows(w, "fig05", f5, [&](const Fig05Row& r) {
    write_point(w, r.point);
    write_stats(w, r.stats);
    w.key("queue_min").value(r.queue_min).key("queue_max").value(r.queue_max);
    w.key("time_us");
    write_steps(w, r.stats.time_us);
  });
  write_rows(w, "fig09", f9, [&](const Fig09Row& r) {
    write_point(w, r.point);
    w.key("threads").value(r.threads).key("txn_per_s").value(r.txn_per_s()).key("total_us").value(r.total_us);
    w.key("best_txn_per_s").value(r.best_txn_per_s()).key("best_us").value(r.best_us);
    w.key("step_us");
    write_steps(w, r.step_us);
  });
  write_rows(w, "fig10", f10, [&](const Fig10Row& r) {
    write_point(w, r.point);
    w.key("alpha").value(r.alpha);
    write_stats(w, r.stats);
  });
  w.end_object();
  std::printf("%s\n", w.str().c_str());
}

int run(const Config& c) {
  Batches batches(c);
  std::vector<Fig05Row> f5;
  std::vector<Fig09Row> f9;
  std::vector<Fig10Row> f10;
  if (wants(c, "fig05"))
    for (const BatchSpec& p : c.fig05) f5.push_back(run_fig05(c, batches, p));
  if (wants(c, "fig09"))
    for (const BatchSpec& p : c.fig09)
      for (const Fig09Row& row : run_fig09(c, batches, p)) f9.push_back(row);
  if (wants(c, "fig10"))
    for (const BatchSpec& p : c.fig10)
      for (double a : c.alphas) {
        Clusterer clusterer(options(c, a, 1));
        f10.push_back({p, a, clusterer.cluster(batches.get(p)).stats});
      }
  if (c.json)
    print_json(c, f5, f9, f10);
  else
    print_text(c, f5, f9, f10);
  return 0;
}

}  // namespace
}  // namespace ccb::strife::bench

int main(int argc, char** argv) {
  using namespace ccb::strife::bench;
  return ccb::cli_main(argc, argv, kHelp, [] { return run(Config::from_flags()); });
}
