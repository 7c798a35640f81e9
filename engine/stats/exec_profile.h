// The execution profile (--profile): where worker time goes, in the six
// categories of the Strife paper's Fig 7 (§6, "Execution profile"):
//   abort       the whole time of attempts that ended in an abort (conflict,
//               logical or OLLP mismatch) and of the backoff after them
//   lock        the protocol's per-access calls of committed attempts (read,
//               write, insert, acquire_all: locking and waiting, or for
//               optimistic protocols their bookkeeping)
//   index       primary-index lookups and the publication of inserts
//   validation  commit() minus the index work inside it (validate, install,
//               release)
//   execute     the rest of committed attempts: the stored procedure's own work
//   analysis    the bundle executor's analysis phase x workers (the phase holds
//               every worker at its barrier; 0 under the online executor)
// Committed attempts are split; aborted ones go to `abort` whole, because the
// paper's Abort is "time spent in aborted execution".
//
// Two halves, both chosen at compile time (a template parameter, no runtime
// check): Txn<CC, true> (engine/txn/txn.h) times its index and protocol calls
// into its own AttemptTimes, and the executor's AttemptProfiler<true> times
// each attempt and sorts its time into an ExecProfile. The executors select
// the worker loop with Txn<CC, true> and AttemptProfiler<true> once, when
// --profile is given; otherwise they run Txn<CC> and AttemptProfiler<false>,
// whose calls inline to nothing, so the unprofiled loop is the code without
// profiling and reads no clock.
//
// Clock: the time-stamp counter (profile_ticks(): rdtsc, about 10 ns here
// against about 25 ns for now_ns(); a YCSB transaction takes ~70 clock reads
// with --profile), converted to seconds with a ratio calibrated against
// now_ns() once per process. Elsewhere than x86 it is now_ns().
//
// Thread safety: one AttemptTimes, AttemptProfiler and ExecProfile per worker;
// ExecProfile::merge after the workers joined.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "engine/core/clock.h"
#include "engine/core/json.h"

namespace ccb {

// The profile's clock, in ticks.
inline uint64_t profile_ticks() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return now_ns();
#endif
}

// Nanoseconds per profile tick, measured once (a 5 ms busy window against
// now_ns(); the TSC of current x86 parts runs at a constant rate).
inline double profile_ns_per_tick() {
  static const double ratio = [] {
    const uint64_t n0 = now_ns(), t0 = profile_ticks();
    while (now_ns() - n0 < 5000000) {
    }
    const uint64_t n1 = now_ns(), t1 = profile_ticks();
    return t1 > t0 ? static_cast<double>(n1 - n0) / static_cast<double>(t1 - t0) : 1.0;
  }();
  return ratio;
}

// What one attempt spent inside Txn<CC>, in ticks; reset when the attempt starts.
struct AttemptTimes {
  uint64_t lock = 0;
  uint64_t index = 0;
  uint64_t validation = 0;
};

struct ExecProfile {
  enum Category : size_t { kAbort, kLock, kExecute, kIndex, kValidation, kAnalysis, kCount };
  static constexpr const char* kNames[kCount] = {"abort", "lock", "execute", "index", "validation", "analysis"};
  std::array<uint64_t, kCount> ticks{};
  // The part of kAbort spent waiting after an abort (the backoff, the abort
  // buffer's idle wait) rather than in the aborted attempts themselves: the
  // account of an aborted attempt (`ccbench account`, docs/benchmarks.md).
  uint64_t backoff_ticks = 0;

  uint64_t total_ticks() const {
    uint64_t t = 0;
    for (uint64_t v : ticks) t += v;
    return t;
  }
  void merge(const ExecProfile& o) {
    for (size_t i = 0; i < kCount; ++i) ticks[i] += o.ticks[i];
    backoff_ticks += o.backoff_ticks;
  }
  // Adds wall time measured with now_ns() (the bundle executor's analysis).
  void add_ns(Category c, uint64_t ns) { ticks[c] += static_cast<uint64_t>(static_cast<double>(ns) / profile_ns_per_tick()); }
  double seconds(Category c) const { return static_cast<double>(ticks[c]) * profile_ns_per_tick() * 1e-9; }
  // Each category's share of the total (sum 1; all 0 when nothing was timed).
  std::array<double, kCount> shares() const {
    const double total = static_cast<double>(total_ticks());
    std::array<double, kCount> out{};
    for (size_t i = 0; i < kCount; ++i) out[i] = total > 0 ? static_cast<double>(ticks[i]) / total : 0.0;
    return out;
  }

  // The result's "profile" object: the six shares, "seconds", the same six
  // in worker-seconds, and "abort_seconds", abort's worker-seconds split into
  // the aborted attempts and the waits after them.
  void to_json(JsonWriter& w) const {
    const auto share = shares();
    w.key("profile").begin_object();
    for (size_t i = 0; i < kCount; ++i) w.key(kNames[i]).value(share[i]);
    w.key("seconds").begin_object();
    for (size_t i = 0; i < kCount; ++i) w.key(kNames[i]).value(seconds(static_cast<Category>(i)));
    w.end_object();
    const double backoff = static_cast<double>(backoff_ticks) * profile_ns_per_tick() * 1e-9;
    w.key("abort_seconds").begin_object();
    w.key("attempts").value(std::max(0.0, seconds(kAbort) - backoff));
    w.key("backoff").value(backoff);
    w.end_object();
    w.end_object();
  }
};

// Whether this build is the profile variant (make build VARIANT=profile,
// build/profile/bin/rundb-<cc>): its binaries run every transaction through
// the profiled Txn<CC, true> and always report the profile; the release
// binaries hold no profiled code at all (their inlining stays as it was
// before the profile existed) and refuse --profile.
#ifndef CCB_PROFILE_BUILD
#define CCB_PROFILE_BUILD 0
#endif
inline constexpr bool kProfileBuild = CCB_PROFILE_BUILD != 0;

// The executors' run<kProfile>() is instantiated for the --profile the
// caller chose at compile time (run_online); a mismatch is a wiring bug.
template <bool kProfile, class Config>
void check_profile_matches(const Config& cfg) {
  if (cfg.profile != kProfile) {
    std::fprintf(stderr, "fatal: executor run<%d>() called with --profile=%d\n", kProfile, cfg.profile);
    std::abort();
  }
}

template <bool kOn>
class AttemptProfiler;

// Profiling off: every call is a no-op the compiler removes.
template <>
class AttemptProfiler<false> {
 public:
  explicit AttemptProfiler(ExecProfile&) {}
  template <class TxnT>
  void attach(TxnT&) {}
  void start() {}
  template <class F>
  auto acquire(F&& f) { return f(); }
  void end(bool) {}
  template <class F>
  void backoff(F&& f) { f(); }
};

template <>
class AttemptProfiler<true> {
 public:
  explicit AttemptProfiler(ExecProfile& total) : total_(total) {}
  // The profiled transaction (Txn<CC, true>) whose index and protocol time
  // this profiler resets and reads.
  template <class TxnT>
  void attach(TxnT& txn) {
    static_assert(TxnT::kIsProfiled, "AttemptProfiler<true> needs a Txn<CC, true>");
    times_ = &txn.profile_times();
  }
  // An attempt starts (call before txn.begin()).
  void start() {
    *times_ = {};
    start_ = profile_ticks();
  }
  // acquire_all(): locking the predicted access set counts as lock. It
  // accesses rows through the transaction (engine/cc_helpers/common.h,
  // access_predicted), which times their index and protocol calls itself, so
  // only the rest of its time is added here (else it would count twice).
  template <class F>
  auto acquire(F&& f) {
    const uint64_t inside_before = inside(), t = profile_ticks();
    auto rc = f();
    const uint64_t elapsed = profile_ticks() - t, nested = inside() - inside_before;
    times_->lock += elapsed > nested ? elapsed - nested : 0;
    return rc;
  }
  // The attempt ended (after commit() or abort()).
  void end(bool committed) {
    const uint64_t elapsed = profile_ticks() - start_;
    auto& t = total_.ticks;
    if (!committed) {
      t[ExecProfile::kAbort] += elapsed;
      return;
    }
    const uint64_t timed = inside();
    t[ExecProfile::kLock] += times_->lock;
    t[ExecProfile::kIndex] += times_->index;
    t[ExecProfile::kValidation] += times_->validation;
    t[ExecProfile::kExecute] += elapsed > timed ? elapsed - timed : 0;
  }
  // The backoff after an aborted attempt is part of the abort's cost.
  template <class F>
  void backoff(F&& f) {
    const uint64_t t = profile_ticks();
    f();
    const uint64_t waited = profile_ticks() - t;
    total_.ticks[ExecProfile::kAbort] += waited;
    total_.backoff_ticks += waited;
  }

 private:
  uint64_t inside() const { return times_->lock + times_->index + times_->validation; }

  ExecProfile& total_;
  AttemptTimes* times_ = nullptr;  // attach()
  uint64_t start_ = 0;
};

}  // namespace ccb
