// --frontend, resolved once from the front-end registry
// (partitioners/frontends.txt; cmake/registries.cmake generates
// frontend_names.h, every line's executor and owner-threads fields, and
// frontend_registry.h, each bundle front-end's factory): the spec the
// executors take (engine/exec/frontend_spec.h), the bundle executor's flags,
// and the construction of a bundle front-end by its registered factory.
//
// The online front-ends (none, tsdefer, reorder) are built into the online
// executor, which the spec tells how a worker picks its next request; every
// bundle front-end runs on the bundle executor with batches of --batch_size
// transactions. A partitioner's own flags (--strife_*) are refused unless
// the registry line's partition (or Strife's own front-end) uses it, and
// --batch_size with an online front-end (ConfigError, exit 2); so is
// --min_batches with an online front-end, --partition_time with a front-end
// that has neither an input partitioner nor a TSKD schedule (the online ones,
// Strife's own), and --partition_time=schedule-inside with one that is not
// TSKD's (partitioners/tspar). The line's
// partition field builds the factory's input partition: strife (Strife's,
// --strife_k, --strife_alpha, --strife_spot; --strife_fallback only for
// Strife's own front-end, whose execution falls back), schism, horticulture (refused for workloads
// other than tpcc and ycsb, whose partitioning attribute it hard-codes) or
// none.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/exec/bundle_plan.h"
#include "engine/exec/frontend_spec.h"

namespace ccb {

namespace generated {
struct BundleFrontendEntry;  // a bundle front-end's registry line (generated/frontend_registry.h)
}  // namespace generated

struct BundleSettings {
  uint32_t batch_size = 10000;  // Strife §5.1: "a default batch size of 10K"
  uint32_t strife_k = 0;        // spot trials; ResolvedFrontend::from_flags applies the paper's rule for 0
  double strife_alpha = 0.2;    // §3.1.4: "α = 0.2 to give the best results"
  std::string strife_spot = "sample";  // §3.1.2's k-sample, or "all" (the public STRIFE's spot, TSKD's baseline)
  double strife_fallback = 0;   // --frontend=strife's fallback bound; 0: strife::default_max_cluster_fraction
  // Where an input partitioner's time and TSKD's schedule count
  // (FrontendSpec::PartitionTime): both "outside" the measured interval (the
  // TSKD paper's measurement), "schedule-inside" (the partitioning outside,
  // TSKD's schedule inside) or both "inside".
  std::string partition_time = "outside";
  uint32_t min_batches = 1;  // the measured interval's fewest batches

  static const std::vector<std::string>& partition_times();  // {"outside", "schedule-inside", "inside"}

  static OptionsTable<BundleSettings> flags;  // its rows: frontends.cpp
};

class ResolvedFrontend {
 public:
  // Looks cfg.frontend up in the registry with the bundle settings given.
  // REQUIRES: cfg.frontend is registered (EngineConfig::from_flags checked
  // it); `cfg` outlives this object.
  ResolvedFrontend(const EngineConfig& cfg, const BundleSettings& settings);
  // The same with the bundle flags, read and checked against the registry
  // line (throws ConfigError): the program's one resolution, before loading.
  static ResolvedFrontend from_flags(const EngineConfig& cfg);

  const FrontendSpec& spec() const { return spec_; }
  // The bundle flags echoed in the result's "config" (--partition_time), for
  // a bundle front-end; nothing for an online one.
  void options_json(JsonWriter& w) const;
  bool bundle() const { return spec_.executor == FrontendSpec::Executor::kBundle; }

  // The registered factory's front-end, given the line's input partition.
  // REQUIRES: bundle() (else std::logic_error).
  std::unique_ptr<BundleFrontend> make_bundle_frontend() const;

 private:
  const EngineConfig& cfg_;
  BundleSettings settings_;
  FrontendSpec spec_;
  const generated::BundleFrontendEntry* entry_ = nullptr;  // bundle(): its registry line
};

// The bundle front-ends of the registry, in its order.
std::vector<std::string> registered_bundle_frontends();

// The front-ends that protocols with owner threads run with, "none or tsdefer"
// (the registry's owner-threads field).
std::string owner_thread_frontends();

}  // namespace ccb
