// The front-ends the engine can put in front of the bundle executor
// (--frontend, engine/exec/bundle_executor.h), and their flags.
//
// --frontend=none keeps the online executor; every other front-end runs on
// the bundle executor with batches of --batch_size transactions. A front-end's
// own flags (--strife_*) are refused with any other --frontend, and
// --batch_size with --frontend=none (ConfigError, exit 2). strife-static,
// schism and horticulture (TSKD's partitioner baselines,
// partitioners/partitioner_frontend.h) partition into --threads parts, one
// static partition per worker (strife-static: the TSKD paper's STRIFE;
// strife: the Strife paper's shared worklist of CF clusters); horticulture is
// refused for workloads other than tpcc and ycsb, whose partitioning attribute it hard-codes. The TSKD
// instances (partitioners/tspar/tskd_frontend.h) are named variant-partition:
// variant tskd (TsPAR + TsDEFER), tspar (TsDEFER off) or tsdefer (the input
// partition's queues with TsDEFER only), partition s (Strife), c (Schism) or
// h (Horticulture); tskd-o is TSKD without an input partition.
#pragma once

#include <cstdint>
#include <memory>

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

// REQUIRES: uses_bundle_executor(cfg.frontend), settings from from_flags(cfg).
std::unique_ptr<BundleFrontend> make_frontend(const EngineConfig& cfg, const BundleSettings& settings);

}  // namespace ccb
