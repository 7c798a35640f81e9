// Per-attempt latency of one transaction type, by the attempt's outcome
// (`--attempt_latency_type=NewOrder`; BCC paper, section 6.3, Figures 11 and
// 12). An attempt runs from txn.begin() to the return of commit() or abort()
// (backoff and the request's earlier attempts excluded). Outcomes:
//   committed  committed, and OCC's criterion would have committed it too
//              (every commit of a protocol that does not say otherwise);
//   saved      committed although OCC's criterion failed: "saved by BCC"
//              (protocols with `bool last_commit_saved(Txn<CC>&)`, i.e. BCC);
//   aborted    aborted and retried (under BCC only the validation aborts
//              after its own check: "aborted by both OCC and BCC").
// Rollbacks by design (RC::kUser, RC::kNotFound) are not attempts that
// compete, and are not recorded.
//
// Which outcome an attempt had is the protocol's to say:
// classify_attempt (engine/txn/attempt_outcome.h).
//
// Thread safety: one instance per worker, merged after the run.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/cli.h"
#include "engine/core/json.h"
#include "engine/stats/histogram.h"

namespace ccb {

enum class AttemptOutcome : uint8_t { kCommitted, kSaved, kAborted, kCount };

inline const char* attempt_outcome_name(AttemptOutcome o) {
  switch (o) {
    case AttemptOutcome::kCommitted: return "committed";
    case AttemptOutcome::kSaved: return "saved";
    case AttemptOutcome::kAborted: return "aborted";
    case AttemptOutcome::kCount: break;
  }
  return "?";
}

// The index of --attempt_latency_type among the workload's transaction types
// (`types`), kNoAttemptType when the flag is off (never matches a request).
// A name that is not a type is a ConfigError naming the allowed ones; the
// run calls this before loading so that the error comes at once.
inline constexpr uint32_t kNoAttemptType = ~uint32_t{0};
inline uint32_t attempt_latency_type_index(const std::string& flag, const std::vector<std::string>& types,
                                           const std::string& workload) {
  if (flag.empty()) return kNoAttemptType;
  std::string allowed;
  for (size_t t = 0; t < types.size(); ++t) {
    if (types[t] == flag) return static_cast<uint32_t>(t);
    allowed += (t ? "|" : "") + types[t];
  }
  throw ConfigError("attempt_latency_type",
                    "invalid value '" + flag + "'; allowed: a transaction type of workload " + workload + ": " + allowed);
}

struct AttemptLatencies {
  std::array<LatencyHistogram, static_cast<size_t>(AttemptOutcome::kCount)> by_outcome;

  void record(AttemptOutcome o, uint64_t ns) { by_outcome[static_cast<size_t>(o)].record(ns); }
  const LatencyHistogram& of(AttemptOutcome o) const { return by_outcome[static_cast<size_t>(o)]; }
  void merge(const AttemptLatencies& other) {
    for (size_t i = 0; i < by_outcome.size(); ++i) by_outcome[i].merge(other.by_outcome[i]);
  }

  // {"type": ..., "committed": {"count", "avg", "p50", "p99"}, "saved": ..., "aborted": ...},
  // in microseconds; an outcome with no attempt has count 0 and null times
  // (no data, not a zero latency).
  void to_json(JsonWriter& w, const std::string& type) const {
    w.key("type").value(type);
    for (size_t i = 0; i < by_outcome.size(); ++i) {
      const LatencyHistogram& h = by_outcome[i];
      w.key(attempt_outcome_name(static_cast<AttemptOutcome>(i))).begin_object();
      w.key("count").value(h.count());
      if (h.count() == 0) {
        for (const char* k : {"avg", "p50", "p99"}) w.key(k).value(nullptr);
      } else {
        w.key("avg").value(h.mean() / 1e3);
        w.key("p50").value(h.quantile(0.50) / 1e3);
        w.key("p99").value(h.quantile(0.99) / 1e3);
      }
      w.end_object();
    }
  }
};

}  // namespace ccb
