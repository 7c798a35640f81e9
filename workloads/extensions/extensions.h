// The two workload extensions of the TSKD paper (Cao et al., SIGMOD 2023,
// Sec. 6.1), usable with every workload through Extended<W> (extended.h):
//
// RuntimeSkew: "lower bounding the runtime of transactions: [...] if the
//   actual execution time of T exceeds t_min, then nothing changes and T
//   commits as usual; otherwise, it delays its committing until the total
//   runtime is t_min." t_min is "randomly drawn from a range [minT * t_T,
//   p * minT * t_T], following a Zipfian distribution with the skewness
//   parameter theta_T", t_T being the average transaction runtime. Drawn here
//   as a rank r in {1..p} from Zipf(theta_T) (r = 1 most likely), t_min =
//   r * minT * t_T [INF: the text gives the range and the law, not the
//   discretization]. t_T is measured by the workers themselves at the start
//   of the run (RuntimeCalibration) unless given by --runtime_skew_t_us.
//
// IoDelay: "an artificial delay to simulate I/O latency at transaction commit
//   time. The delays draw values from [0, l_IO * minIO] for a Zipfian
//   distribution with skewness parameter theta_IO, where minIO is set to 5000
//   CPU cycles". Drawn as a rank r in {0..l_IO} from Zipf(theta_IO) (r = 0,
//   no delay, most likely), delay = r * minIO cycles [INF, as above].
//   l_IO = 0 disables it (the paper's default: "by default we disabled I/O
//   latency").
//
// Both are busy waits: the paper's delays are a few microseconds (5000 cycles
// ~ 2 us), far below what a sleep can resolve, and a waiting transaction keeps
// its core as a transaction stalled inside the engine would.
//
// Thread safety: options and the RuntimeSkew/IoDelay samplers are immutable
// after construction; RuntimeCalibration is shared by all workers (a mutex on
// the once-per-worker contribution, an atomic for the published value).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "engine/core/options.h"
#include "engine/core/random.h"
#include "engine/core/zipf.h"
#include "engine/core/clock.h"

namespace ccb {

struct RuntimeSkewOptions {
  bool enabled = false;
  double min_t = 0.5;               // minT in (0, 1]; TSKD Table 1 default 1/2
  uint32_t p = 48;                  // integer p; Table 1 default 48
  double theta = 0.8;               // theta_T; Table 1 default 0.8
  double t_us = 0;                  // t_T in microseconds; 0 = measure it (calibration)
  uint32_t calibration_txns = 1000; // committed transactions each worker skips, then times, for t_T
};

struct IoDelayOptions {
  uint32_t l_io = 0;          // l_IO; 0 = off (the paper's default)
  double theta = 1.2;         // theta_IO; Table 1 default 1.2
  uint32_t min_cycles = 5000; // minIO in CPU cycles
  bool enabled() const { return l_io > 0; }
};

struct ExtensionOptions {
  RuntimeSkewOptions runtime;
  IoDelayOptions io;
  bool enabled() const { return runtime.enabled || io.enabled(); }
  static OptionsTable<ExtensionOptions> flags;  // its rows: extensions.cpp
  static ExtensionOptions from_flags() { return flags.read(); }
  void to_json(JsonWriter& w) const { flags.write(*this, w); }
};

// For a workload that does not take the extensions (workloads/workloads.txt,
// whose rundb units compile no Extended<W>): a ConfigError naming the
// extension flag given, the workload, and `allowed`, the workloads that take
// them ("ycsb|tpcc"). Nothing when both extensions are off.
void refuse_extensions(const ExtensionOptions& ext, const std::string& workload, const std::string& allowed);

// Draws the runtime lower-bound rank of a transaction.
class RuntimeSkew {
 public:
  explicit RuntimeSkew(const RuntimeSkewOptions& o) : opt_(o), zipf_(o.p, o.theta) {}
  // Rank r in [1, p]; 0 when the extension is off (no bound).
  uint32_t draw_rank(Random& rng) const {
    return opt_.enabled ? static_cast<uint32_t>(zipf_.sample(rng)) + 1 : 0;
  }
  // t_min = r * minT * t_T.
  uint64_t bound_ns(uint32_t rank, uint64_t t_ns) const {
    return static_cast<uint64_t>(rank * opt_.min_t * static_cast<double>(t_ns));
  }
  const RuntimeSkewOptions& options() const { return opt_; }

 private:
  RuntimeSkewOptions opt_;
  ZipfDistribution zipf_;
};

// Draws the I/O delay of a transaction.
class IoDelay {
 public:
  explicit IoDelay(const IoDelayOptions& o) : opt_(o), zipf_(uint64_t{o.l_io} + 1, o.theta) {}
  // Rank r in [0, l_IO]; 0 when the extension is off.
  uint32_t draw_rank(Random& rng) const {
    return opt_.enabled() ? static_cast<uint32_t>(zipf_.sample(rng)) : 0;
  }
  uint64_t cycles(uint32_t rank) const { return uint64_t{rank} * opt_.min_cycles; }
  const IoDelayOptions& options() const { return opt_; }

 private:
  IoDelayOptions opt_;
  ZipfDistribution zipf_;
};

// t_T, the average runtime of a committed transaction, as measured by the
// workers: each worker times calibration_txns committed transactions after
// as many untimed ones (from the start of the committed attempt to its
// commit, with no extension delay applied) and contributes the sum once; the published t_T is
// the mean over all contributions so far. Workers are to contribute in the
// warm-up ("t = average runtime measured in warm-up", TSKD: "warm-up dry-run
// trails"): a commit of a worker still calibrating after the measured
// interval began ran without its delays, and is counted here
// (uncalibrated_measured_commits; Extended<W> refuses such a run).
class RuntimeCalibration {
 public:
  explicit RuntimeCalibration(uint64_t fixed_t_ns = 0) : t_ns_(fixed_t_ns), fixed_(fixed_t_ns > 0) {}
  bool fixed() const { return fixed_; }
  void start_measuring() { measuring_.store(true, std::memory_order_release); }
  // A commit of a worker that has not contributed yet.
  void count_uncalibrated_commit() {
    if (measuring_.load(std::memory_order_acquire)) uncalibrated_measured_.fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t uncalibrated_measured_commits() const { return uncalibrated_measured_.load(std::memory_order_relaxed); }
  void contribute(uint64_t sum_ns, uint64_t n) {
    std::lock_guard<std::mutex> g(mu_);
    sum_ns_ += sum_ns;
    n_ += n;
    ++workers_;
    if (!fixed_ && n_ > 0) t_ns_.store(sum_ns_ / n_ > 0 ? sum_ns_ / n_ : 1, std::memory_order_release);
  }
  // 0 until the first contribution (or the fixed value).
  uint64_t t_ns() const { return t_ns_.load(std::memory_order_acquire); }
  uint32_t workers() const {
    std::lock_guard<std::mutex> g(mu_);
    return workers_;
  }

 private:
  std::atomic<uint64_t> t_ns_;
  const bool fixed_;
  std::atomic<bool> measuring_{false};
  std::atomic<uint64_t> uncalibrated_measured_{0};
  mutable std::mutex mu_;
  uint64_t sum_ns_ = 0, n_ = 0;
  uint32_t workers_ = 0;
};

// Busy-waits until now_ns() >= deadline_ns.
void spin_until_ns(uint64_t deadline_ns);
// Busy-waits for `cycles` cycles of a nominal 2.5 GHz core
// (nominal_cycles_to_ns, engine/core/clock.h) on every machine, natively and
// simulated, so that an I/O delay lasts as long in a native run as in a
// simulated one. (The time-stamp counter, counted before, ticks at the
// machine's own rate: 2.596 GHz on the development VM, where native I/O
// delays came out 4 % shorter than the simulated ones.)
void spin_cycles(uint64_t cycles);

}  // namespace ccb
