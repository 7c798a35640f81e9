// Run options of the pipeline engine (Ding et al., PVLDB 2018, §3-§5 and
// the §5 setup): modes, batch sizes, component counts, the validator's
// reordering. bin/pipeline's flags are the rows of its options table
// (options.cpp, compiled into bin/pipeline only; engine/core/options.h),
// echoed in the result's "config" as $defs/pipeline_flags of
// docs/result.schema.json.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "engine/core/options.h"
#include "partitioners/reorder/reorder.h"

namespace ccb::pipeline {

// The paper's series names (§5 setup, §5.2):
//   base   no batching anywhere; the unbatched fast path, no reorder workers
//   batch  batching at storage and validator, no reordering
//   sr     storage batching with reordering; the validator unbatched
//   vc     validator batching with reordering; storage unbatched
//   srvc   both
enum class Mode { kBase, kBatch, kSr, kVc, kSrvc };
inline constexpr const char* kModeNames = "base, batch, sr, vc, srvc";

inline bool parse_mode(std::string_view s, Mode& m) {
  if (s == "base") m = Mode::kBase;
  else if (s == "batch") m = Mode::kBatch;
  else if (s == "sr") m = Mode::kSr;
  else if (s == "vc") m = Mode::kVc;
  else if (s == "srvc") m = Mode::kSrvc;
  else return false;
  return true;
}
inline const char* mode_name(Mode m) {
  switch (m) {
    case Mode::kBase: return "base";
    case Mode::kBatch: return "batch";
    case Mode::kSr: return "sr";
    case Mode::kVc: return "vc";
    case Mode::kSrvc: return "srvc";
  }
  return "?";
}
inline bool storage_batching(Mode m) { return m == Mode::kBatch || m == Mode::kSr || m == Mode::kSrvc; }
inline bool storage_reordering(Mode m) { return m == Mode::kSr || m == Mode::kSrvc; }
inline bool validator_batching(Mode m) { return m == Mode::kBatch || m == Mode::kVc || m == Mode::kSrvc; }
inline bool validator_reordering(Mode m) { return m == Mode::kVc || m == Mode::kSrvc; }

// Deliberately broken validators for the mutation test (the checker must
// flag them); never used by figures.
enum class Mutation {
  kNone,
  // Commits each reordered batch in the reverse of its topological order and
  // skips the final validation's in-batch overwrite check: a transaction whose
  // read was overwritten inside its batch commits.
  kReverseCommitOrder,
};

struct PipelineOptions {
  static constexpr uint32_t kMaxConcurrency = 100000;
  Mode mode = Mode::kSrvc;
  uint32_t clients = 2;          // transaction generators (§5)
  uint32_t storage_workers = 2;  // (§5)
  uint32_t concurrency = 300;    // "at most 300 active transactions" (§5)
  uint32_t batch_size = 40;      // "40 for both storage and validator" (§5), by count
  uint32_t flush_timeout_us = 100;  // [INF] a partial batch waits at most this long
  uint32_t reorder_workers = 4;     // the .tex's 4 reorder workers (§4.3, Fig 19)
  std::string fvs_algorithm = "greedy_sort";  // the name reorder.fvs was made from (--fvs_algorithm)
  reorder::ReorderOptions reorder;  // greedy_sort, prod-degree, k = 2 by default; edge limit
  // --max_graph_edge_share: reorder.max_graph_edges as a share of a full
  // batch's complete graph instead (0: not given).
  double max_graph_edge_share = 0;
  double warmup_s = 0.5;
  double duration_s = 2;
  uint64_t seed = 1;
  bool verify = false;
  Mutation mutation = Mutation::kNone;
  // Called by the reorder workers (concurrently: the callee synchronizes)
  // after each batch's reordering; with reorder.keep_graph the result holds
  // the batch's pre-validated dependency graph (bench_fvs --source=pipeline).
  std::function<void(const reorder::ReorderResult&)> on_reorder;

  // bin/pipeline's rows (options.cpp): the fields above from mode to
  // mutation. from_flags reads them and makes the cross-flag checks; the
  // run's length, seed and --verify come from the engine's flags.
  static OptionsTable<PipelineOptions> flags;
  static PipelineOptions from_flags();
  void to_json(JsonWriter& w) const { flags.write(*this, w); }  // members of "config"
};

}  // namespace ccb::pipeline
