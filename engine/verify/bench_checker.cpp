// bench_checker: how fast does check_serializable run on a large history?
//
// Synthesizes a serial execution (serializable by construction) of random
// transactions over a uniform or Zipfian key space: each transaction touches
// --accesses distinct keys, each a read (with probability --read_ratio) or a
// read-modify-write. Then checks it and reports the time per million
// committed transactions. Exit status 0 when the checker says serializable
// (or with --stale_read_pct, which plants violations on purpose), 1 when it
// does not (a checker bug), 2 on bad flags.
//
//   bench_checker [--txns=N] [--accesses=N] [--keys=N] [--theta=F]
//                 [--read_ratio=F] [--seed=N] [--stale_read_pct=F]
//                 [--sparse_ids] [--shuffle]
//                 [--file=PATH]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>

#include "engine/verify/checker.h"
#include "engine/verify/history_io.h"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Flags {
  uint64_t txns = 2'000'000;
  uint32_t accesses = 16;
  uint64_t keys = 10'000'000;
  double theta = 0.0;
  double read_ratio = 0.5;
  uint64_t seed = 1;
  double stale_read_pct = 0.0;
  bool sparse_ids = false;
  bool shuffle = false;
  std::string file;
};

void usage(std::FILE* out) {
  std::fprintf(out,
               "usage: bench_checker [flags]\n"
               "  --txns=N        committed transactions to synthesize (default 2000000, >= 1)\n"
               "  --accesses=N    distinct keys per transaction (default 16, 1..1024, <= --keys)\n"
               "  --keys=N        key space size (default 10000000, >= 1)\n"
               "  --theta=F       Zipfian skew, 0 = uniform (default 0, 0 <= F < 1)\n"
               "  --read_ratio=F  probability that an access only reads (default 0.5, 0..1)\n"
               "  --seed=N        random seed (default 1)\n"
               "  --stale_read_pct=F  percent of pure reads that observe the version before\n"
               "                  the current one (plants cycles: times the witness search)\n"
               "  --sparse_ids    ids shaped (thread << 40 | sequence) instead of 1..N\n"
               "  --shuffle       store the transactions in random order (not commit order)\n"
               "  --file=PATH     also time write_history / read_history through PATH\n");
}

[[noreturn]] void bad_flag(const std::string& msg) {
  std::fprintf(stderr, "bench_checker: %s\n", msg.c_str());
  usage(stderr);
  std::exit(2);
}

bool parse_flag(const char* arg, const char* name, std::string* value) {
  const size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  *value = arg + n + 1;
  return true;
}

uint64_t to_u64(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0 || v[0] == '-')
    bad_flag(flag + ": '" + v + "' is not a non-negative integer");
  return x;
}

double to_double(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(x)) bad_flag(flag + ": '" + v + "' is not a number");
  return x;
}

Flags parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    std::string v;
    if (!std::strcmp(a, "--help") || !std::strcmp(a, "-h")) {
      usage(stdout);
      std::exit(0);
    } else if (!std::strcmp(a, "--sparse_ids")) {
      f.sparse_ids = true;
    } else if (!std::strcmp(a, "--shuffle")) {
      f.shuffle = true;
    } else if (parse_flag(a, "--txns", &v)) {
      f.txns = to_u64("--txns", v);
    } else if (parse_flag(a, "--accesses", &v)) {
      f.accesses = static_cast<uint32_t>(std::min<uint64_t>(to_u64("--accesses", v), 1u << 20));
    } else if (parse_flag(a, "--keys", &v)) {
      f.keys = to_u64("--keys", v);
    } else if (parse_flag(a, "--theta", &v)) {
      f.theta = to_double("--theta", v);
    } else if (parse_flag(a, "--read_ratio", &v)) {
      f.read_ratio = to_double("--read_ratio", v);
    } else if (parse_flag(a, "--stale_read_pct", &v)) {
      f.stale_read_pct = to_double("--stale_read_pct", v);
    } else if (parse_flag(a, "--seed", &v)) {
      f.seed = to_u64("--seed", v);
    } else if (parse_flag(a, "--file", &v)) {
      f.file = v;
    } else {
      bad_flag(std::string("unknown flag '") + a + "'");
    }
  }
  if (f.txns < 1) bad_flag("--txns must be >= 1");
  if (f.keys < 1 || f.keys > (uint64_t{1} << 40)) bad_flag("--keys must be in [1, 2^40]");
  if (f.accesses < 1 || f.accesses > 1024 || f.accesses > f.keys)
    bad_flag("--accesses must be in [1, 1024] and at most --keys");
  if (!(f.theta >= 0 && f.theta < 1)) bad_flag("--theta must be in [0, 1)");
  if (!(f.read_ratio >= 0 && f.read_ratio <= 1)) bad_flag("--read_ratio must be in [0, 1]");
  if (!(f.stale_read_pct >= 0 && f.stale_read_pct <= 100)) bad_flag("--stale_read_pct must be in [0, 100]");
  return f;
}

// Zipfian ranks in [0, n) (Gray et al., "Quickly generating billion-record
// synthetic databases", SIGMOD 1994), as in YCSB and DBx1000.
class Zipf {
 public:
  Zipf(uint64_t n, double theta) : n_(n), theta_(theta) {
    for (uint64_t i = 1; i <= n; ++i) zetan_ += 1.0 / std::pow(static_cast<double>(i), theta);
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

ccb::verify::History synthesize(const Flags& f) {
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

}  // namespace

int main(int argc, char** argv) {
  const Flags f = parse(argc, argv);
  auto t0 = Clock::now();
  ccb::verify::History h = synthesize(f);
  const double gen_s = seconds_since(t0);
  std::printf("synthesized %llu txns x %u accesses (keys=%llu theta=%.2f read_ratio=%.2f%s%s) in %.2f s\n",
              static_cast<unsigned long long>(f.txns), f.accesses, static_cast<unsigned long long>(f.keys), f.theta,
              f.read_ratio, f.sparse_ids ? " sparse_ids" : "", f.shuffle ? " shuffled" : "", gen_s);

  if (!f.file.empty()) {
    try {
      t0 = Clock::now();
      ccb::verify::write_history(f.file, h);
      const double w_s = seconds_since(t0);
      t0 = Clock::now();
      h = ccb::verify::read_history(f.file);
      std::printf("write_history %.2f s, read_history %.2f s (%s)\n", w_s, seconds_since(t0), f.file.c_str());
    } catch (const ccb::verify::HistoryIoError& e) {
      std::fprintf(stderr, "bench_checker: %s\n", e.what());
      return 2;
    }
  }

  // CPU time as well as wall time: on a shared machine the wall time also
  // counts the time other processes held the core.
  const double cpu0 = cpu_seconds();
  const ccb::verify::CheckResult r = ccb::verify::check_serializable(h);
  const double check_cpu_s = cpu_seconds() - cpu0;
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
  if (f.stale_read_pct > 0) return 0;  // violations are expected
  if (!r.serializable) {
    std::fprintf(stderr, "bench_checker: BUG: a serial history was judged not serializable: %s\n",
                 r.violation.message.c_str());
    return 1;
  }
  std::printf("serializable\n");
  return 0;
}
