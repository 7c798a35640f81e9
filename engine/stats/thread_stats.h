// Per-thread run statistics, merged after the run. Definitions (docs/results.md):
//   commits     transactions that committed during the measured interval
//   aborts      aborted attempts during the measured interval (each retry of a
//               request that aborts again counts again)
//   latency     from a request's first start to its commit, retries included
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "engine/core/rc.h"
#include "engine/stats/attempt_latency.h"
#include "engine/stats/exec_profile.h"
#include "engine/stats/histogram.h"

namespace ccb {

struct TxnTypeStats {
  uint64_t commits = 0, aborts = 0, user_aborts = 0;
  uint64_t latency_ns_sum = 0;
};

struct ThreadStats {
  uint64_t commits = 0;
  uint64_t aborts = 0;
  uint64_t user_aborts = 0;  // procedures that rolled back by design (not retried)
  std::array<uint64_t, static_cast<size_t>(RC::kCount)> aborts_by_reason{};
  LatencyHistogram latency;
  std::vector<TxnTypeStats> per_type;
  std::vector<uint64_t> timeline;  // commits per measured second
  AttemptLatencies attempts;       // with --attempt_latency_type: that type's attempts by outcome
  ExecProfile profile;             // with --profile: the measured interval's execution profile

  explicit ThreadStats(size_t n_types = 0) : per_type(n_types) {}

  // --timeline: one commit `since_measure_start_ns` into the measured
  // interval, counted in its second (both executors).
  void add_to_timeline(uint64_t since_measure_start_ns) {
    const size_t second = since_measure_start_ns / 1000000000ull;
    if (timeline.size() <= second) timeline.resize(second + 1);
    ++timeline[second];
  }

  void merge(const ThreadStats& o) {
    commits += o.commits;
    aborts += o.aborts;
    user_aborts += o.user_aborts;
    for (size_t i = 0; i < aborts_by_reason.size(); ++i) aborts_by_reason[i] += o.aborts_by_reason[i];
    latency.merge(o.latency);
    if (per_type.size() < o.per_type.size()) per_type.resize(o.per_type.size());
    for (size_t i = 0; i < o.per_type.size(); ++i) {
      per_type[i].commits += o.per_type[i].commits;
      per_type[i].aborts += o.per_type[i].aborts;
      per_type[i].user_aborts += o.per_type[i].user_aborts;
      per_type[i].latency_ns_sum += o.per_type[i].latency_ns_sum;
    }
    if (timeline.size() < o.timeline.size()) timeline.resize(o.timeline.size());
    for (size_t i = 0; i < o.timeline.size(); ++i) timeline[i] += o.timeline[i];
    attempts.merge(o.attempts);
    profile.merge(o.profile);
  }
};

}  // namespace ccb
