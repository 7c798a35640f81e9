// bench_strife: clustering statistics and analysis speed of the Strife
// clusterer on batches of TPC-C, YCSB and HOT transactions generated and
// described by the testbed's workloads (bench_batches.h). Experiments (FIGURES.md §4):
//   fig05  spot clusters / CF clusters / residuals per workload (strife-fig05)
//   fig09  analysis throughput per thread count (strife-fig09a) and time per
//          step (strife-fig09b), medians over --reps runs of one batch (the
//          thread counts' runs interleaved)
//   fig10  CF clusters vs alpha (strife-fig10a/b)
// fig05 and fig10 run on one thread, where the clustering is deterministic
// for a seed. Exit codes: 0 ok, 2 bad flag (the message names the flag).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "partitioners/strife/bench_batches.h"
#include "partitioners/strife/clusterer.h"

namespace ccb::strife::bench {
namespace {

constexpr const char* kUsage = R"(usage: bench_strife [flags]
  --experiments=LIST   fig05,fig09,fig10 (default: all three)
  --fig05_points=LIST  workload:param points of fig05
                       (default tpcc:4,tpcc:15,tpcc:30,ycsb:0.1,ycsb:0.5,ycsb:0.8,
                        ycsb:0.99,ycsb:1.2,hot:10,hot:50,hot:100,hot:200)
  --fig09_points=LIST  (default tpcc:30,ycsb:0.1,ycsb:0.99,hot:100)
  --fig10_points=LIST  (default tpcc:4,tpcc:15,tpcc:30,ycsb:0.1,ycsb:0.5,ycsb:0.8,ycsb:0.99,ycsb:1.2)
                       workloads: tpcc (param = warehouses), ycsb (theta), hot (hot records)
  --alphas=LIST        fig10 alpha values, each in [0, 1] (default 0,0.05,0.1,0.2,0.3,0.4,0.5)
  --batch=N            transactions per batch, in [1, 10000000] (default 10000)
  --k=N                spot trials, in [1, 1024] (default 100)
  --alpha=X            residual parameter, in [0, 1] (default 0.2; 0 merges all special clusters)
  --threads=LIST       fig09 thread counts, each in [1, 1024] (default 1,2)
  --reps=N             fig09 timed runs per point, in [1, 100000] (default 20)
  --partitions=N       ycsb/hot partitions, in [1, 10000] (default 30)
  --seed=N             batch generation and spot sampling (default 1)
  --pack=B             true: pack non-special clusters into the special clusters' queues;
                       false: one queue per data cluster, as Algorithm 1 (default true)
  --fuse_after_merge=B true: fuse the transactions that fuse skipped again after merge;
                       false: as Algorithm 1 (default true). See README.md.
  --format=F           text or json (default text)
)";

struct BadFlag : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Config {
  std::vector<std::string> experiments{"fig05", "fig09", "fig10"};
  std::vector<BatchSpec> fig05, fig09, fig10;
  std::vector<double> alphas{0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5};
  uint64_t batch = 10000;
  uint32_t k = 100;
  double alpha = 0.2;
  std::vector<uint64_t> threads{1, 2};
  uint64_t reps = 20;
  uint32_t partitions = 30;
  uint64_t seed = 1;
  bool pack = true;
  bool fuse_after_merge = true;
  bool json = false;
};

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = std::min(s.find(',', start), s.size());
    out.emplace_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

double parse_double(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(x)) throw BadFlag(flag + ": '" + v + "' is not a number");
  return x;
}

uint64_t parse_uint(const std::string& flag, const std::string& v, uint64_t lo, uint64_t hi) {
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || v[0] == '-' || *end != '\0' || x < lo || x > hi)
    throw BadFlag(flag + ": '" + v + "' must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return x;
}

bool parse_bool(const std::string& flag, const std::string& v) {
  if (v == "true") return true;
  if (v == "false") return false;
  throw BadFlag(flag + ": '" + v + "' is not one of true, false");
}

std::vector<BatchSpec> parse_points(const std::string& flag, const std::string& v) {
  std::vector<BatchSpec> points;
  for (const std::string& item : split(v)) {
    const size_t colon = item.find(':');
    const auto workload = parse_workload(std::string_view(item).substr(0, colon));
    if (colon == std::string::npos || !workload)
      throw BadFlag(flag + ": '" + item + "' must be workload:param with workload one of tpcc, ycsb, hot");
    points.push_back({*workload, parse_double(flag, item.substr(colon + 1))});
    if (const std::string err = check_spec(points.back()); !err.empty()) throw BadFlag(flag + ": " + err);
  }
  return points;
}

Config parse(int argc, char** argv) {
  Config c;
  c.fig05 = parse_points("--fig05_points",
                         "tpcc:4,tpcc:15,tpcc:30,ycsb:0.1,ycsb:0.5,ycsb:0.8,ycsb:0.99,ycsb:1.2,hot:10,hot:50,hot:100,hot:200");
  c.fig09 = parse_points("--fig09_points", "tpcc:30,ycsb:0.1,ycsb:0.99,hot:100");
  c.fig10 = parse_points("--fig10_points", "tpcc:4,tpcc:15,tpcc:30,ycsb:0.1,ycsb:0.5,ycsb:0.8,ycsb:0.99,ycsb:1.2");
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos)
      throw BadFlag(arg + ": flags have the form --name=value (see --help)");
    const std::string name = arg.substr(0, eq), v = arg.substr(eq + 1);
    if (name == "--experiments") {
      c.experiments = split(v);
      for (const std::string& e : c.experiments)
        if (e != "fig05" && e != "fig09" && e != "fig10")
          throw BadFlag(name + ": '" + e + "' is not one of fig05, fig09, fig10");
    } else if (name == "--fig05_points") {
      c.fig05 = parse_points(name, v);
    } else if (name == "--fig09_points") {
      c.fig09 = parse_points(name, v);
    } else if (name == "--fig10_points") {
      c.fig10 = parse_points(name, v);
    } else if (name == "--alphas") {
      c.alphas.clear();
      for (const std::string& a : split(v)) {
        c.alphas.push_back(parse_double(name, a));
        if (!(c.alphas.back() >= 0 && c.alphas.back() <= 1)) throw BadFlag(name + ": '" + a + "' must be in [0, 1]");
      }
    } else if (name == "--batch") {
      c.batch = parse_uint(name, v, 1, 10'000'000);
    } else if (name == "--k") {
      c.k = static_cast<uint32_t>(parse_uint(name, v, 1, kMaxK));
    } else if (name == "--alpha") {
      c.alpha = parse_double(name, v);
      if (!(c.alpha >= 0 && c.alpha <= 1)) throw BadFlag(name + ": '" + v + "' must be in [0, 1]");
    } else if (name == "--threads") {
      c.threads.clear();
      for (const std::string& t : split(v)) c.threads.push_back(parse_uint(name, t, 1, 1024));
    } else if (name == "--reps") {
      c.reps = parse_uint(name, v, 1, 100'000);
    } else if (name == "--partitions") {
      c.partitions = static_cast<uint32_t>(parse_uint(name, v, 1, 10'000));
    } else if (name == "--seed") {
      c.seed = parse_uint(name, v, 0, UINT64_MAX);
    } else if (name == "--pack") {
      c.pack = parse_bool(name, v);
    } else if (name == "--fuse_after_merge") {
      c.fuse_after_merge = parse_bool(name, v);
    } else if (name == "--format") {
      if (v != "text" && v != "json") throw BadFlag(name + ": '" + v + "' is not one of text, json");
      c.json = v == "json";
    } else {
      throw BadFlag(name + ": unknown flag (see --help)");
    }
  }
  for (auto* points : {&c.fig05, &c.fig09, &c.fig10})
    for (BatchSpec& p : *points) p.partitions = c.partitions;
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
  std::printf("bench_strife: batch %llu, k %u, alpha %g, partitions %u, seed %llu, pack %s, fuse_after_merge %s\n",
              static_cast<unsigned long long>(c.batch), c.k, c.alpha, c.partitions,
              static_cast<unsigned long long>(c.seed), c.pack ? "true" : "false", c.fuse_after_merge ? "true" : "false");
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

std::string json_point(const BatchSpec& p) {
  std::ostringstream s;
  s << "\"workload\": \"" << workload_name(p.workload) << "\", \"param\": " << p.param;
  return s.str();
}

std::string json_stats(const Stats& s) {
  std::ostringstream o;
  o << "\"batch_size\": " << s.batch_size << ", \"active_items\": " << s.active_items
    << ", \"spot_clusters\": " << s.spot_clusters << ", \"special_clusters\": " << s.special_clusters
    << ", \"merges\": " << s.merges << ", \"multi_special_txns\": " << s.multi_special_txns
    << ", \"fused_after_merge\": " << s.fused_after_merge
    << ", \"data_clusters\": " << s.data_clusters << ", \"free_txns\": " << s.free_txns
    << ", \"cf_clusters\": " << s.cf_clusters << ", \"residuals\": " << s.residuals;
  return o.str();
}

std::string json_steps(const StepTimes& t) {
  std::ostringstream o;
  o << "{\"prepare\": " << t.prepare << ", \"spot\": " << t.spot << ", \"fuse\": " << t.fuse
    << ", \"merge\": " << t.merge << ", \"allocate\": " << t.allocate << ", \"total\": " << t.total() << "}";
  return o.str();
}

template <class Row, class Fn>
void json_array(std::ostringstream& o, const char* name, const std::vector<Row>& rows, Fn&& fn, bool last) {
  o << "  \"" << name << "\": [";
  for (size_t i = 0; i < rows.size(); ++i) o << (i ? ",\n    {" : "\n    {") << fn(rows[i]) << "}";
  o << (rows.empty() ? "]" : "\n  ]") << (last ? "\n" : ",\n");
}

void print_json(const Config& c, const std::vector<Fig05Row>& f5, const std::vector<Fig09Row>& f9,
                const std::vector<Fig10Row>& f10) {
  std::ostringstream o;
  o.precision(10);
  o << "{\n  \"bench\": \"strife\",\n  \"config\": {\"batch\": " << c.batch << ", \"k\": " << c.k
    << ", \"alpha\": " << c.alpha << ", \"partitions\": " << c.partitions << ", \"seed\": " << c.seed
    << ", \"reps\": " << c.reps << ", \"pack\": " << (c.pack ? "true" : "false")
    << ", \"fuse_after_merge\": " << (c.fuse_after_merge ? "true" : "false") << ", \"threads\": [";
  for (size_t i = 0; i < c.threads.size(); ++i) o << (i ? ", " : "") << c.threads[i];
  o << "], \"batches\": \"" << kBatchSource << "\"},\n";
  json_array(o, "fig05", f5, [](const Fig05Row& r) {
    std::ostringstream s;
    s << json_point(r.point) << ", " << json_stats(r.stats) << ", \"queue_min\": " << r.queue_min
      << ", \"queue_max\": " << r.queue_max << ", \"time_us\": " << json_steps(r.stats.time_us);
    return s.str();
  }, false);
  json_array(o, "fig09", f9, [](const Fig09Row& r) {
    std::ostringstream s;
    s.precision(10);
    s << json_point(r.point) << ", \"threads\": " << r.threads << ", \"txn_per_s\": " << r.txn_per_s()
      << ", \"total_us\": " << r.total_us << ", \"best_txn_per_s\": " << r.best_txn_per_s()
      << ", \"best_us\": " << r.best_us << ", \"step_us\": " << json_steps(r.step_us);
    return s.str();
  }, false);
  json_array(o, "fig10", f10, [](const Fig10Row& r) {
    std::ostringstream s;
    s << json_point(r.point) << ", \"alpha\": " << r.alpha << ", " << json_stats(r.stats);
    return s.str();
  }, true);
  o << "}\n";
  std::fputs(o.str().c_str(), stdout);
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
  Config config;
  try {
    config = parse(argc, argv);
  } catch (const BadFlag& e) {
    std::fprintf(stderr, "bench_strife: %s\n", e.what());
    return 2;
  }
  return run(config);
}
