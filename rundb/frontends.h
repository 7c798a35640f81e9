// The bundle front-ends by name (--frontend, engine/exec/bundle_executor.h),
// as the front-end registry lists them (partitioners/frontends.txt: each line
// names its factory; cmake/registries.cmake generates frontend_registry.h),
// and the bundle executor's flags.
//
// --frontend=none keeps the online executor; every bundle front-end runs on
// the bundle executor with batches of --batch_size transactions. A
// partitioner's own flags (--strife_*) are refused unless the registry line's
// partition (or Strife's own front-end) uses it, and --batch_size with an
// online front-end (ConfigError, exit 2). The line's partition field builds
// the factory's input partition: strife (Strife's, --strife_k,
// --strife_alpha), schism, horticulture (refused for workloads other than
// tpcc and ycsb, whose partitioning attribute it hard-codes) or none.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/exec/bundle_plan.h"

namespace ccb {

struct BundleSettings {
  uint32_t batch_size = 10000;  // Strife §5.1: "a default batch size of 10K"
  uint32_t strife_k = 0;        // spot trials; from_flags applies the paper's rule for 0
  double strife_alpha = 0.2;    // §3.1.4: "α = 0.2 to give the best results"

  static OptionsTable<BundleSettings> flags;  // its rows: frontends.cpp
  // Validates the bundle flags against cfg.frontend (throws ConfigError).
  static BundleSettings from_flags(const EngineConfig& cfg);
};

// The registered factory of cfg.frontend, given the line's input partition.
// REQUIRES: uses_bundle_executor(cfg.frontend), settings from from_flags(cfg).
std::unique_ptr<BundleFrontend> make_frontend(const EngineConfig& cfg, const BundleSettings& settings);

// The bundle front-ends of the registry, in its order.
std::vector<std::string> registered_bundle_frontends();

}  // namespace ccb
