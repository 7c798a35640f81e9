// bench_checker: how fast does check_serializable run on a large history?
//
// Synthesizes a serial execution (serializable by construction) of random
// transactions over a uniform or Zipfian key space: each transaction touches
// --accesses distinct keys, each a read (with probability --read_ratio) or a
// read-modify-write. Then checks it and reports the time per million
// committed transactions, as text or (--json) one JSON document. Flags are
// parsed as the engine parses its own (engine/core/cli.h). Exit status 0 when
// the checker says serializable (or with --stale_read_pct, which plants
// violations on purpose), 1 when it does not (a checker bug), 2 on a bad flag
// (one line on stderr naming it, nothing written).
//
//   bench_checker [--txns=N] [--accesses=N] [--keys=N] [--theta=F]
//                 [--read_ratio=F] [--seed=N] [--stale_read_pct=F]
//                 [--sparse_ids] [--shuffle] [--file=PATH] [--json]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <optional>
#include <random>
#include <string>

#include "engine/core/cli.h"
#include "engine/core/json.h"
#include "engine/core/memory.h"
#include "engine/core/options.h"
#include "engine/core/zipf.h"
#include "engine/verify/checker.h"
#include "engine/verify/history_io.h"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

const ccb::ProgramHelp kHelp{
    "bench_checker: times the serializability checker (engine/verify) on a synthesized serial history\n"
    "(docs/verify.md).\n\nusage: bench_checker [flags]",
    {__FILE__},
    "exit codes: 0 ok, 1 a serial history was judged not serializable (a checker bug), 2 bad flags or --file "
    "not readable back"};

// Its flags, one row each below; --json aside, they are echoed as the
// document's "config".
struct Options {
  uint64_t txns = 0;
  uint32_t accesses = 0;
  uint64_t keys = 0;
  double theta = 0;
  double read_ratio = 0;
  uint64_t seed = 0;
  double stale_read_pct = 0;
  bool sparse_ids = false;
  bool shuffle = false;
  std::string file;
  bool json = false;

  static ccb::OptionsTable<Options> flags;
  static Options from_flags();
};
ccb::OptionsTable<Options> Options::flags{"bench_checker_flags"};

}  // namespace

CCB_OPTION(Options::flags, txns, uint64, txns, 2'000'000, ccb::range(1, 0x1p40, "an integer"),
           "committed transactions to synthesize");
CCB_OPTION(Options::flags, accesses, uint32, accesses, 16, ccb::range(1, 1024, "an integer"),
           "distinct keys per transaction (at most --keys)");
CCB_OPTION(Options::flags, keys, uint64, keys, 10'000'000, ccb::range(1, 0x1p40, "an integer"), "key space size");
CCB_OPTION(Options::flags, theta, double, theta, 0.0, ccb::below(0, 1, "a number"),
           "Zipfian skew of the keys, 0 = uniform");
CCB_OPTION(Options::flags, read_ratio, double, read_ratio, 0.5, ccb::range(0, 1, "a probability"),
           "probability that an access only reads; the others read-modify-write");
CCB_OPTION(Options::flags, seed, uint64, seed, 1, ccb::any_value(), "random seed");
CCB_OPTION(Options::flags, stale_read_pct, double, stale_read_pct, 0.0, ccb::range(0, 100, "a percentage"),
           "percent of pure reads that observe the version before the current one: plants cycles, to time the "
           "witness search");
CCB_OPTION(Options::flags, sparse_ids, bool, sparse_ids, false, ccb::any_value(),
           "transaction ids shaped (thread << 40 | sequence) instead of 1..N");
CCB_OPTION(Options::flags, shuffle, bool, shuffle, false, ccb::any_value(),
           "store the transactions in random order (not commit order)");
CCB_OPTION(Options::flags, file, string, file, "", ccb::writable_path(),
           "also time write_history / read_history through this file (in an existing, writable directory)");
CCB_OPTION(Options::flags, json, bool, json, false, ccb::any_value().not_echoed(),
           "print the result as one JSON document instead of text");

namespace {

// The flags, checked (ConfigError naming the first bad one).
Options Options::from_flags() {
  Options f = flags.read();
  ccb::require(f.accesses <= f.keys, "accesses", "an integer in [1, 1024], at most --keys (" + std::to_string(f.keys) + ")");
  // The synthesized history and the key state, and about as much again for
  // the checker's graph: refused before anything is allocated when it
  // cannot fit (a bad_alloc after minutes otherwise).
  const double history_bytes = static_cast<double>(f.txns) * (sizeof(ccb::verify::TxnRecord) +
                                                               f.accesses * sizeof(ccb::verify::AccessRecord));
  const double key_bytes = static_cast<double>(f.keys) * sizeof(ccb::verify::VersionId) * (f.stale_read_pct > 0 ? 2 : 1);
  const double need = 2 * history_bytes + key_bytes, available = static_cast<double>(ccb::available_memory_bytes());
  char sizes[96];
  std::snprintf(sizes, sizeof sizes, "%.1f GiB, %.1f GiB available", need / (1u << 30), available / (1u << 30));
  ccb::require(available == 0 || need <= available, history_bytes >= key_bytes ? "txns" : "keys",
               std::string("a history that fits in memory: --txns x --accesses and --keys need about ") + sizes);
  return f;
}

// Zipfian ranks in [0, n) (Gray et al., "Quickly generating billion-record
// synthetic databases", SIGMOD 1994), as in YCSB and DBx1000.
class Zipf {
 public:
  Zipf(uint64_t n, double theta) : n_(n), theta_(theta) {
    zetan_ = ccb::ZipfDistribution::zeta(n, theta);  // O(min(n, 2^26)) (engine/core/zipf.h)
    const double zeta2 = 1.0 + 1.0 / std::pow(2.0, theta);
    alpha_ = 1.0 / (1.0 - theta);
    eta_ = (1.0 - std::pow(2.0 / static_cast<double>(n), 1.0 - theta)) / (1.0 - zeta2 / zetan_);
  }
  uint64_t next(double u) const {
    const double uz = u * zetan_;
    if (uz < 1.0) return 0;
    if (uz < 1.0 + std::pow(0.5, theta_)) return std::min<uint64_t>(1, n_ - 1);
    const auto r = static_cast<uint64_t>(static_cast<double>(n_) * std::pow(eta_ * u - eta_ + 1.0, alpha_));
    return std::min(r, n_ - 1);
  }

 private:
  uint64_t n_;
  double theta_;
  double zetan_ = 0, alpha_ = 0, eta_ = 0;
};

ccb::verify::History synthesize(const Options& f) {
  using namespace ccb::verify;
  std::mt19937_64 rng(f.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<uint64_t> uniform(0, f.keys - 1);
  const bool zipf = f.theta > 0;
  Zipf z(zipf ? f.keys : 1, zipf ? f.theta : 0.5);
  // Scatter Zipfian ranks over the key space so the hot keys are not adjacent.
  auto key_of_rank = [&](uint64_t r) { return (r * 0x9E3779B97F4A7C15ull) % f.keys; };

  History h;
  h.txns.resize(f.txns);
  h.accesses.resize(f.txns * f.accesses);
  std::vector<VersionId> current(f.keys, kInitialVersion);  // the serial execution's state
  std::vector<VersionId> previous;                          // the version before current
  if (f.stale_read_pct > 0) previous.assign(f.keys, kInitialVersion);
  std::vector<uint64_t> picked(f.accesses);
  for (uint64_t i = 0; i < f.txns; ++i) {
    const uint64_t id = f.sparse_ids ? (((i % 8) << 40) | (i / 8 + 1)) : i + 1;
    TxnRecord& t = h.txns[i];
    t.txn_id = id;
    t.first_access = i * f.accesses;
    t.n_accesses = f.accesses;
    for (uint32_t j = 0; j < f.accesses; ++j) {
      uint64_t k;
      do {
        k = zipf ? key_of_rank(z.next(unit(rng))) : uniform(rng);
      } while (std::find(picked.begin(), picked.begin() + j, k) != picked.begin() + j);
      picked[j] = k;
      AccessRecord& a = h.accesses[t.first_access + j];
      a.key = ccb::make_global_key(static_cast<uint32_t>(k % 3), k);
      a.read_version = current[k];
      if (unit(rng) >= f.read_ratio) {
        a.prev_version = current[k];
        if (!previous.empty()) previous[k] = current[k];
        current[k] = id;
      } else if (!previous.empty() && unit(rng) * 100 < f.stale_read_pct) {
        a.read_version = previous[k];  // a stale read: not serial any more
      }
    }
  }
  if (f.shuffle) std::shuffle(h.txns.begin(), h.txns.end(), rng);
  return h;
}

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

long peak_rss_mib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024;
}

// --json: the settings, the timings and the check result (check_history
// --json's document) as one JSON document.
void print_json(const Options& f, double synthesize_s, std::optional<double> write_s, std::optional<double> read_s,
                const ccb::verify::CheckResult& r, double check_cpu_s) {
  ccb::JsonWriter w;
  w.begin_object().key("benchmark").value("bench_checker");
  w.key("config").begin_object();
  Options::flags.write(f, w);
  w.end_object();
  w.key("synthesize_seconds").value(synthesize_s);
  w.key("write_history_seconds");
  write_s ? w.value(*write_s) : w.value(nullptr);
  w.key("read_history_seconds");
  read_s ? w.value(*read_s) : w.value(nullptr);
  w.key("check").raw_value(ccb::verify::check_result_to_json(r));
  w.key("check_cpu_seconds").value(check_cpu_s);
  const double txns = static_cast<double>(f.txns);
  w.key("wall_seconds_per_million_txns").value(r.check_seconds * 1e6 / txns);
  w.key("cpu_seconds_per_million_txns").value(check_cpu_s * 1e6 / txns);
  w.key("peak_rss_mib").value(peak_rss_mib());
  w.end_object();
  std::printf("%s\n", w.str().c_str());
}

void print_text(const Options& f, const ccb::verify::CheckResult& r, double check_cpu_s) {
  const auto& c = r.counts;
  std::printf("check: %.3f s wall, %.3f s cpu (wall: group %.3f, graph %.3f, scc %.3f, witness %.3f)\n",
              r.check_seconds, check_cpu_s,
              r.phases.group_seconds, r.phases.graph_seconds, r.phases.scc_seconds, r.phases.witness_seconds);
  std::printf("edges ww=%llu wr=%llu rw=%llu graph=%llu\n", static_cast<unsigned long long>(c.edges_ww),
              static_cast<unsigned long long>(c.edges_wr), static_cast<unsigned long long>(c.edges_rw),
              static_cast<unsigned long long>(c.graph_edges));
  std::printf("%.3f s wall, %.3f s cpu per million transactions; peak RSS %ld MiB\n",
              r.check_seconds * 1e6 / static_cast<double>(f.txns), check_cpu_s * 1e6 / static_cast<double>(f.txns),
              peak_rss_mib());
  if (!r.serializable) {
    std::printf("violation: %s (cyclic components %llu, largest %llu)\n", r.violation.message.substr(0, 300).c_str(),
                static_cast<unsigned long long>(c.cyclic_sccs), static_cast<unsigned long long>(c.largest_scc));
  }
}

int run(const Options& f) {
  auto t0 = Clock::now();
  ccb::verify::History h = synthesize(f);
  const double gen_s = seconds_since(t0);
  if (!f.json) {
    std::printf("synthesized %llu txns x %u accesses (keys=%llu theta=%.2f read_ratio=%.2f%s%s) in %.2f s\n",
                static_cast<unsigned long long>(f.txns), f.accesses, static_cast<unsigned long long>(f.keys), f.theta,
                f.read_ratio, f.sparse_ids ? " sparse_ids" : "", f.shuffle ? " shuffled" : "", gen_s);
  }

  std::optional<double> write_s, read_s;
  if (!f.file.empty()) {
    try {
      t0 = Clock::now();
      ccb::verify::write_history(f.file, h);
      write_s = seconds_since(t0);
      t0 = Clock::now();
      h = ccb::verify::read_history(f.file);
      read_s = seconds_since(t0);
    } catch (const ccb::verify::HistoryIoError& e) {
      throw ccb::ConfigError("file", e.what());
    }
    if (!f.json) std::printf("write_history %.2f s, read_history %.2f s (%s)\n", *write_s, *read_s, f.file.c_str());
  }

  // CPU time as well as wall time: on a shared machine the wall time also
  // counts the time other processes held the core.
  const double cpu0 = cpu_seconds();
  const ccb::verify::CheckResult r = ccb::verify::check_serializable(h);
  const double check_cpu_s = cpu_seconds() - cpu0;
  if (f.json) {
    print_json(f, gen_s, write_s, read_s, r, check_cpu_s);
  } else {
    print_text(f, r, check_cpu_s);
  }
  if (f.stale_read_pct > 0) return 0;  // violations are expected
  if (!r.serializable) {
    std::fprintf(stderr, "bench_checker: BUG: a serial history was judged not serializable: %s\n",
                 r.violation.message.c_str());
    return 1;
  }
  if (!f.json) std::printf("serializable\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return ccb::cli_main(argc, argv, kHelp, [] { return run(Options::from_flags()); });
}
