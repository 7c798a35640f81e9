#include "rundb/frontends.h"

#include <algorithm>
#include <stdexcept>

#include "frontend_registry.h"  // generated from partitioners/frontends.txt (cmake/registries.cmake)
#include "partitioners/horticulture/horticulture.h"
#include "partitioners/schism/schism.h"
#include "partitioners/strife/strife_frontend.h"  // strife::default_k, the paper's rule for --strife_k=0
#include "partitioners/strife/strife_partitioner.h"

namespace ccb {
OptionsTable<BundleSettings> BundleSettings::flags{"bundle_flags"};
}  // namespace ccb

// Not echoed in "config": the bundle executor's "frontend" object reports what it ran with.
CCB_OPTION(ccb::BundleSettings::flags, batch_size, uint32, batch_size, 10000,
           ccb::range(1, 1000000, "an integer").not_echoed(),
           "bundle executor (a --frontend other than none, tsdefer, reorder): transactions per batch");
CCB_OPTION(ccb::BundleSettings::flags, strife_k, uint32, strife_k, 0,
           ccb::range(0, ccb::strife::kMaxK, "an integer", " (0 = ceil(10 x threads / 3))").not_echoed(),
           "--frontend=strife: spot trials k (the paper's rule gives 100 at 30 threads)");
CCB_OPTION(ccb::BundleSettings::flags, strife_alpha, double, strife_alpha, 0.2,
           ccb::range(0, 1, "a number").not_echoed(),
           "--frontend=strife: residual parameter alpha of the merge step");

namespace ccb {

namespace {

// The registry line of a bundle front-end (nullptr: none, i.e. an online one).
const generated::BundleFrontendEntry* bundle_entry(const std::string& frontend) {
  for (const generated::BundleFrontendEntry& e : generated::kBundleFrontends)
    if (frontend == e.name) return &e;
  return nullptr;
}

// The front-ends of the registry whose partition field is `partition`, and
// Strife's own for strife: "strife, strife-static, tskd-s, tspar-s or tsdefer-s".
std::string frontends_over(const std::string& partition) {
  std::vector<std::string> names;
  for (const generated::BundleFrontendEntry& e : generated::kBundleFrontends)
    if (partition == e.partition) names.push_back(e.name);
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return s;
}

strife::Options strife_options(const EngineConfig& cfg, const BundleSettings& settings) {
  strife::Options o;
  o.k = settings.strife_k;
  o.alpha = settings.strife_alpha;
  o.threads = static_cast<unsigned>(cfg.threads);  // §4: the analysis runs on all cores
  o.seed = cfg.seed;
  return o;
}

// The input partition a registry line's partition field names (TSKD §6.1:
// S = Strife, C = Schism, H = Horticulture); nullptr for '-'.
std::unique_ptr<Partitioner> make_partition(const std::string& partition, const EngineConfig& cfg,
                                            const BundleSettings& settings) {
  if (partition == "-") return nullptr;
  if (partition == "strife") return std::make_unique<strife::StrifePartitioner>(strife_options(cfg, settings));
  if (partition == "schism") {
    schism::Options o;
    o.seed = cfg.seed;
    return schism::make_schism(o);
  }
  if (partition == "horticulture") {
    horticulture::Options o;
    o.attribute = horticulture::attribute_for(cfg.workload);
    return horticulture::make_horticulture(o);
  }
  throw std::logic_error("partitioners/frontends.txt: front-end " + cfg.frontend + " names partition '" + partition +
                         "'; known: -|strife|schism|horticulture (rundb/frontends.cpp)");
}

}  // namespace

BundleSettings BundleSettings::from_flags(const EngineConfig& cfg) {
  BundleSettings s;
  // Each knob belongs to the front-ends whose partition it shapes (the
  // registry's partition field): Strife's to the front-ends over Strife's
  // partition (Strife's own included), Horticulture's hard-coded attribute
  // to those over Horticulture's.
  const generated::BundleFrontendEntry* entry = bundle_entry(cfg.frontend);
  const std::string partition = entry != nullptr ? entry->partition : "-";
  require(entry != nullptr || !flag_given("batch_size"), "batch_size",
          "only with a bundle front-end (--frontend other than none, tsdefer, reorder)");
  require(partition == "strife" || !flag_given("strife_k"), "strife_k", "only with --frontend=" + frontends_over("strife"));
  require(partition == "strife" || !flag_given("strife_alpha"), "strife_alpha",
          "only with --frontend=" + frontends_over("strife"));
  require(partition != "horticulture" || horticulture::attribute_for(cfg.workload) != nullptr, "frontend",
          cfg.frontend + " uses Horticulture, hard-coded for --workload=tpcc|ycsb (TSKD §6.1), not " + cfg.workload);
  flags.read(s);
  if (s.strife_k == 0) s.strife_k = std::min(strife::kMaxK, strife::default_k(cfg.threads));
  return s;
}

std::unique_ptr<BundleFrontend> make_frontend(const EngineConfig& cfg, const BundleSettings& settings) {
  const generated::BundleFrontendEntry* entry = bundle_entry(cfg.frontend);
  if (entry == nullptr) throw std::logic_error("no bundle front-end named " + cfg.frontend);
  FrontendContext ctx{.cfg = cfg,
                      .strife = strife_options(cfg, settings),
                      .partition = [&] { return make_partition(entry->partition, cfg, settings); }};
  return entry->make(ctx);
}

std::vector<std::string> registered_bundle_frontends() {
  std::vector<std::string> names;
  for (const generated::BundleFrontendEntry& e : generated::kBundleFrontends) names.push_back(e.name);
  return names;
}

}  // namespace ccb
