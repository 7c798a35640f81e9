#include "rundb/frontends.h"

#include <stdexcept>

#include "partitioners/horticulture/horticulture.h"
#include "partitioners/partitioner_frontend.h"
#include "partitioners/schism/schism.h"
#include "partitioners/strife/strife_frontend.h"
#include "partitioners/strife/strife_partitioner.h"
#include "partitioners/tspar/tskd_frontend.h"

namespace ccb {
OptionsTable<BundleSettings> BundleSettings::flags{"bundle_flags"};
}  // namespace ccb

// Not echoed in "config": the bundle executor's "frontend" object reports what it ran with.
CCB_OPTION(ccb::BundleSettings::flags, batch_size, uint32, batch_size, 10000,
           ccb::range(1, 1000000, "an integer").not_echoed(),
           "bundle executor (--frontend other than none): transactions per batch");
CCB_OPTION(ccb::BundleSettings::flags, strife_k, uint32, strife_k, 0,
           ccb::range(0, ccb::strife::kMaxK, "an integer", " (0 = ceil(10 x threads / 3))").not_echoed(),
           "--frontend=strife: spot trials k (the paper's rule gives 100 at 30 threads)");
CCB_OPTION(ccb::BundleSettings::flags, strife_alpha, double, strife_alpha, 0.2,
           ccb::range(0, 1, "a number").not_echoed(),
           "--frontend=strife: residual parameter alpha of the merge step");

namespace ccb {

BundleSettings BundleSettings::from_flags(const EngineConfig& cfg) {
  BundleSettings s;
  const bool bundle = uses_bundle_executor(cfg.frontend);
  // Each knob belongs to the front-ends whose partition it shapes: Strife's to
  // Strife and the TSKD instances over Strife's partition (-s), Horticulture's
  // hard-coded attribute to horticulture and the instances over it (-h).
  const bool strife = cfg.frontend == "strife" || cfg.frontend == "strife-static" || cfg.frontend.ends_with("-s");
  const bool horticulture = cfg.frontend == "horticulture" || cfg.frontend.ends_with("-h");
  require(bundle || !flag_given("batch_size"), "batch_size", "only with a bundle front-end (--frontend other than none, tsdefer)");
  require(strife || !flag_given("strife_k"), "strife_k", "only with --frontend=strife, strife-static, tskd-s, tspar-s or tsdefer-s");
  require(strife || !flag_given("strife_alpha"), "strife_alpha", "only with --frontend=strife, strife-static, tskd-s, tspar-s or tsdefer-s");
  require(!horticulture || horticulture::attribute_for(cfg.workload) != nullptr, "frontend",
          cfg.frontend + " uses Horticulture, hard-coded for --workload=tpcc|ycsb (TSKD §6.1), not " + cfg.workload);
  flags.read(s);
  if (s.strife_k == 0) s.strife_k = std::min(strife::kMaxK, strife::default_k(cfg.threads));
  return s;
}

static strife::Options strife_options(const EngineConfig& cfg, const BundleSettings& settings) {
  strife::Options o;
  o.k = settings.strife_k;
  o.alpha = settings.strife_alpha;
  o.threads = static_cast<unsigned>(cfg.threads);  // §4: the analysis runs on all cores
  o.seed = cfg.seed;
  return o;
}

// A TSKD instance (partitioners/tspar/tskd_frontend.h) over any partitioner;
// nullptr: no input partition (TSKD[O]).
static std::unique_ptr<BundleFrontend> make_tskd(const EngineConfig& cfg, tspar::Variant variant,
                                                 std::unique_ptr<Partitioner> partitioner) {
  tspar::TskdOptions o;
  o.variant = variant;
  o.threads = static_cast<unsigned>(cfg.threads);
  o.seed = seed_for(cfg.seed, uint64_t{4} << 32);
  o.tsdefer = cfg.tsdefer;
  return std::make_unique<tspar::TskdFrontend>(o, std::move(partitioner));
}

std::unique_ptr<BundleFrontend> make_frontend(const EngineConfig& cfg, const BundleSettings& settings) {
  if (cfg.frontend == "strife") return std::make_unique<strife::StrifeFrontend>(strife_options(cfg, settings));
  // The input partition of a TSKD instance or baseline, by the name's suffix
  // (TSKD §6.1: S = Strife, C = Schism, H = Horticulture).
  auto partitioner_for = [&](char which) -> std::unique_ptr<Partitioner> {
    if (which == 's') return std::make_unique<strife::StrifePartitioner>(strife_options(cfg, settings));
    if (which == 'c') {
      schism::Options o;
      o.seed = cfg.seed;
      return schism::make_schism(o);
    }
    horticulture::Options o;
    o.attribute = horticulture::attribute_for(cfg.workload);
    return horticulture::make_horticulture(o);
  };
  // TSKD §6.1's partitioner baselines: k = #cores partitions, one per worker
  // (TSKD §2: "Each partition is executed serially by a dedicated thread").
  // strife-static is TSKD's STRIFE: Strife's partition as such static
  // partitions, where --frontend=strife (the Strife paper's own execution)
  // lets idle workers pop CF clusters from a shared worklist.
  const unsigned parts = static_cast<unsigned>(cfg.threads);
  if (cfg.frontend == "strife-static") return std::make_unique<PartitionerFrontend>(partitioner_for('s'), parts);
  if (cfg.frontend == "schism") return std::make_unique<PartitionerFrontend>(partitioner_for('c'), parts);
  if (cfg.frontend == "horticulture") return std::make_unique<PartitionerFrontend>(partitioner_for('h'), parts);
  if (cfg.frontend == "tskd-o") return make_tskd(cfg, tspar::Variant::kTskd, nullptr);
  const auto dash = cfg.frontend.find('-');
  if (dash != std::string::npos && dash + 2 == cfg.frontend.size()) {
    const std::string variant = cfg.frontend.substr(0, dash);
    const char which = cfg.frontend.back();
    if (which == 's' || which == 'c' || which == 'h') {
      if (variant == "tskd") return make_tskd(cfg, tspar::Variant::kTskd, partitioner_for(which));
      if (variant == "tspar") return make_tskd(cfg, tspar::Variant::kTsparOnly, partitioner_for(which));
      if (variant == "tsdefer") return make_tskd(cfg, tspar::Variant::kTsdeferOnly, partitioner_for(which));
    }
  }
  throw std::logic_error("no front-end named " + cfg.frontend);
}

}  // namespace ccb
