#include "engine/exec/frontends.h"

#include <gflags/gflags.h>

#include <stdexcept>

#include "partitioners/horticulture/horticulture.h"
#include "partitioners/partitioner_frontend.h"
#include "partitioners/schism/schism.h"
#include "partitioners/strife/strife_frontend.h"

DEFINE_uint32(batch_size, 10000, "bundle executor (--frontend other than none): transactions per batch (1..1000000)");
DEFINE_uint32(strife_k, 0, "--frontend=strife: spot trials k (1..1024; 0 = the paper's rule ceil(10 x threads / 3), 100 at 30 threads)");
DEFINE_double(strife_alpha, 0.2, "--frontend=strife: residual parameter alpha of the merge step ([0, 1])");

namespace ccb {

static bool flag_given(const char* name) {
  gflags::CommandLineFlagInfo info;
  return gflags::GetCommandLineFlagInfo(name, &info) && !info.is_default;
}

BundleSettings BundleSettings::from_flags(const EngineConfig& cfg) {
  BundleSettings s;
  const bool bundle = uses_bundle_executor(cfg.frontend);
  const bool strife = cfg.frontend == "strife";
  require(bundle || !flag_given("batch_size"), "batch_size", "only with a bundle front-end (--frontend=strife|schism|horticulture)");
  require(strife || !flag_given("strife_k"), "strife_k", "only with --frontend=strife");
  require(strife || !flag_given("strife_alpha"), "strife_alpha", "only with --frontend=strife");
  require(cfg.frontend != "horticulture" || horticulture::attribute_for(cfg.workload) != nullptr, "frontend",
          "horticulture is hard-coded for --workload=tpcc|ycsb (TSKD §6.1), not " + cfg.workload);
  s.batch_size = in_range(FLAGS_batch_size, 1, 1000000, "batch_size", "an integer");
  in_range(FLAGS_strife_k, 0, strife::kMaxK, "strife_k", "an integer", " (0 = ceil(10 x threads / 3))");
  s.strife_k = FLAGS_strife_k != 0 ? FLAGS_strife_k : std::min(strife::kMaxK, strife::default_k(cfg.threads));
  s.strife_alpha = in_range(FLAGS_strife_alpha, 0.0, 1.0, "strife_alpha", "a number");
  return s;
}

std::unique_ptr<BundleFrontend> make_frontend(const EngineConfig& cfg, const BundleSettings& settings) {
  if (cfg.frontend == "strife") {
    strife::Options o;
    o.k = settings.strife_k;
    o.alpha = settings.strife_alpha;
    o.threads = static_cast<unsigned>(cfg.threads);  // §4: the analysis runs on all cores
    o.seed = cfg.seed;
    return std::make_unique<strife::StrifeFrontend>(o);
  }
  // TSKD §6.1's partitioner baselines: k = #cores partitions, one per worker.
  const unsigned parts = static_cast<unsigned>(cfg.threads);
  if (cfg.frontend == "schism") {
    schism::Options o;
    o.seed = cfg.seed;
    return std::make_unique<PartitionerFrontend>(schism::make_schism(o), parts);
  }
  if (cfg.frontend == "horticulture") {
    horticulture::Options o;
    o.attribute = horticulture::attribute_for(cfg.workload);
    return std::make_unique<PartitionerFrontend>(horticulture::make_horticulture(o), parts);
  }
  throw std::logic_error("no front-end named " + cfg.frontend);
}

}  // namespace ccb
