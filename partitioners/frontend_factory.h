// What a bundle front-end's factory gets: the registry line of
// partitioners/frontends.txt names a factory
//   std::unique_ptr<BundleFrontend> factory(FrontendContext& ctx)
// (in namespace ccb, declared in the line's header), which rundb/frontends.cpp
// calls for --frontend=<name> with the run's configuration, Strife's knobs and
// a builder of the input partition the line's partition field names.
//
// A factory calls ctx.partition() at most once, and only if it uses the
// partition (Strife's own front-end does not: it clusters with ctx.strife).
// It throws ConfigError for a configuration it refuses and std::logic_error
// for a registry line that cannot work (e.g. a partition it needs is '-').
//
// Thread safety: the factory runs once, before the executor starts.
#pragma once

#include <functional>
#include <memory>

#include "engine/config.h"
#include "engine/exec/bundle_plan.h"
#include "partitioners/partitioning.h"
#include "partitioners/strife/clusterer.h"

namespace ccb {

struct FrontendContext {
  const EngineConfig& cfg;  // --threads (one queue per worker), --seed, --workload, --tsdefer_*
  // Strife's knobs (--strife_k, --strife_alpha) with the analysis threads
  // (--threads, Strife §4) and the seed: Strife's own front-end takes them
  // (the Strife partition, when the line's partition is strife, is built from them).
  strife::Options strife;
  // Builds the line's input partition (partition field); nullptr for '-'.
  std::function<std::unique_ptr<Partitioner>()> partition;
};

using FrontendFactory = std::unique_ptr<BundleFrontend> (*)(FrontendContext& ctx);

}  // namespace ccb
