#include "rundb/frontends.h"

#include <algorithm>
#include <stdexcept>

#include "frontend_names.h"     // generated from partitioners/frontends.txt (cmake/registries.cmake)
#include "frontend_registry.h"  // the same: the bundle front-ends' factories
#include "partitioners/horticulture/horticulture.h"
#include "partitioners/reorder/thread_assign.h"
#include "partitioners/schism/schism.h"
#include "partitioners/strife/strife_frontend.h"  // strife::default_k, the paper's rule for --strife_k=0
#include "partitioners/strife/strife_partitioner.h"
#include "partitioners/tspar/tskd_frontend.h"  // tspar::make_tskd, the TSKD front-ends (is_tskd)

namespace ccb {
OptionsTable<BundleSettings> BundleSettings::flags{"bundle_flags"};

const std::vector<std::string>& BundleSettings::partition_times() {
  static const std::vector<std::string> names{"outside", "schedule-inside", "inside"};
  return names;
}
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
// Echoed in "config" (ResolvedFrontend::options_json): what a throughput counts.
CCB_OPTION(ccb::BundleSettings::flags, partition_time, string, partition_time, "outside",
           ccb::one_of(&ccb::BundleSettings::partition_times),
           "a bundle front-end over an input partitioner or a TSKD front-end (strife-static, schism, horticulture, "
           "tskd-*, tspar-*, tsdefer-*): outside (the partitioner's plan and TSKD's queues, i.e. its residual "
           "extraction, cost estimates, TSgen and TsDEFER's lanes, are inputs computed outside the measured interval, "
           "as the TSKD paper measures: TSKD §6.1, §6.2), schedule-inside (the partitioning outside, TSKD's schedule "
           "inside, as analysis: TSKD's cost on top of a given partition; TSKD front-ends only) or inside (both "
           "serially inside it, as analysis: the end-to-end cost)");
CCB_OPTION(ccb::BundleSettings::flags, min_batches, uint32, min_batches, 1,
           ccb::range(1, 1000000, "an integer").not_echoed(),
           "bundle executor (a --frontend other than none, tsdefer, reorder): the measured interval holds at least "
           "this many batches, whatever --duration says (--measure_txns may make it more)");

namespace ccb {
namespace {
const std::vector<std::string>& strife_spot_modes() {
  static const std::vector<std::string> names{"sample", "all"};
  return names;
}
}  // namespace
}  // namespace ccb

CCB_OPTION(ccb::BundleSettings::flags, strife_spot, string, strife_spot, "sample",
           ccb::one_of(&ccb::strife_spot_modes).not_echoed(),
           "--frontend=strife and the front-ends over its partition: which transactions spot tries: sample (k random "
           "trials, the Strife paper's §3.1.2) or all (every transaction in batch order, as the public STRIFE "
           "implementation the TSKD paper ran, TSKD §6.1 ref. [4])");
CCB_OPTION(ccb::BundleSettings::flags, strife_fallback, double, strife_fallback, 0,
           ccb::range(0, 1, "a number", " (0 = 1 - alpha with 2+ threads, none at 1 thread [INF])").not_echoed(),
           "--frontend=strife: fallback clustering (Strife §2): a CF cluster holding more than this fraction of the "
           "batch runs in the residual phase under the protocol; 1 = never. The default infers the bound from §2's "
           "good clustering (n >= cores, |R| <= alpha |B|): partitioners/strife/strife_frontend.h");

namespace ccb {

namespace {

// The online executor's own front-ends (the registry's lines of executor
// online; cmake/registries.cmake admits exactly these names) and how each
// has a worker pick its next request.
struct OnlineFrontend {
  const char* name;
  FrontendSpec::OnlineOrder order;
};
constexpr OnlineFrontend kOnlineFrontends[] = {
    {"none", FrontendSpec::OnlineOrder::kBuffer},
    {"tsdefer", FrontendSpec::OnlineOrder::kTsDefer},
    {"reorder", FrontendSpec::OnlineOrder::kThreadReorder},
};

const generated::FrontendName& registry_line(const std::string& frontend) {
  for (const generated::FrontendName& f : generated::kFrontendNames)
    if (frontend == f.name) return f;
  throw std::logic_error("front-end " + frontend + " is not in partitioners/frontends.txt");
}

// The registry line of a bundle front-end (nullptr: none, i.e. an online one).
const generated::BundleFrontendEntry* bundle_entry(const std::string& frontend) {
  for (const generated::BundleFrontendEntry& e : generated::kBundleFrontends)
    if (frontend == e.name) return &e;
  return nullptr;
}

FrontendSpec::OnlineOrder online_order(const std::string& frontend) {
  for (const OnlineFrontend& f : kOnlineFrontends)
    if (frontend == f.name) return f.order;
  throw std::logic_error("partitioners/frontends.txt: online front-end " + frontend +
                         " is not built into the online executor (rundb/frontends.cpp)");
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

// Whether a registry line's front-end plans over an input partitioner (its
// partition field names one and its factory is not Strife's own, whose
// clustering is its own analysis, inside the interval as the Strife paper
// measures it).
bool has_input_partitioner(const generated::BundleFrontendEntry& e) {
  return std::string(e.partition) != "-" && e.make != &strife::make_frontend;
}

// TSKD's front-ends (partitioners/tspar): their plan is a schedule that the
// paper counts as an input (BundlePlan::input_schedule), over an input
// partition or none (TSKD[O]).
bool is_tskd(const generated::BundleFrontendEntry& e) {
  return e.make == &tspar::make_tskd || e.make == &tspar::make_tspar || e.make == &tspar::make_tsdefer;
}

std::string frontends_with_timed_input() {
  std::string s;
  for (const generated::BundleFrontendEntry& e : generated::kBundleFrontends)
    if (has_input_partitioner(e) || is_tskd(e)) s += (s.empty() ? "" : ", ") + std::string(e.name);
  return s;
}

std::string tskd_frontends() {
  std::string s;
  for (const generated::BundleFrontendEntry& e : generated::kBundleFrontends)
    if (is_tskd(e)) s += (s.empty() ? "" : ", ") + std::string(e.name);
  return s;
}

// Strife's options for Strife's own front-end (its execution may fall back,
// Strife §2) or, with fallback = false, for the Strife partition that other
// front-ends take (the public STRIFE of the TSKD paper has no fallback).
strife::Options strife_options(const EngineConfig& cfg, const BundleSettings& settings, bool fallback) {
  strife::Options o;
  o.k = settings.strife_k;
  o.alpha = settings.strife_alpha;
  o.spot = settings.strife_spot == "all" ? strife::SpotMode::kAll : strife::SpotMode::kSample;
  o.threads = static_cast<unsigned>(cfg.threads);  // §4: the analysis runs on all cores
  o.seed = cfg.seed;
  if (fallback)
    o.max_cluster_fraction = settings.strife_fallback > 0 ? settings.strife_fallback
                                                          : strife::default_max_cluster_fraction(o.alpha, o.threads);
  return o;
}

// The input partition a registry line's partition field names (TSKD §6.1:
// S = Strife, C = Schism, H = Horticulture); nullptr for '-'.
std::unique_ptr<Partitioner> make_partition(const std::string& partition, const EngineConfig& cfg,
                                            const BundleSettings& settings) {
  if (partition == "-") return nullptr;
  if (partition == "strife")
    return std::make_unique<strife::StrifePartitioner>(strife_options(cfg, settings, /*fallback=*/false));
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

ResolvedFrontend::ResolvedFrontend(const EngineConfig& cfg, const BundleSettings& settings)
    : cfg_(cfg), settings_(settings), entry_(bundle_entry(cfg.frontend)) {
  const generated::FrontendName& line = registry_line(cfg.frontend);
  spec_.name = cfg.frontend;
  spec_.owner_threads = line.owner_threads;
  if (line.bundle) {
    if (entry_ == nullptr) throw std::logic_error("no bundle front-end named " + cfg.frontend);
    spec_.executor = FrontendSpec::Executor::kBundle;
    spec_.batch_size = settings.batch_size;
    spec_.min_batches = settings.min_batches;
  } else {
    spec_.online_order = online_order(cfg.frontend);
    // The thread-aware policy is the reorder front-end's (partitioners/reorder).
    if (spec_.online_order == FrontendSpec::OnlineOrder::kThreadReorder)
      spec_.thread_assign = &reorder::assign_to_threads;
  }
}

ResolvedFrontend ResolvedFrontend::from_flags(const EngineConfig& cfg) {
  ResolvedFrontend resolved(cfg, BundleSettings{});
  // Each knob belongs to the front-ends whose partition it shapes (the
  // registry's partition field): Strife's to the front-ends over Strife's
  // partition (Strife's own included), Horticulture's hard-coded attribute
  // to those over Horticulture's.
  const std::string partition = resolved.bundle() ? resolved.entry_->partition : "-";
  require(resolved.bundle() || !flag_given("batch_size"), "batch_size",
          "only with a bundle front-end (--frontend other than none, tsdefer, reorder)");
  require(partition == "strife" || !flag_given("strife_k"), "strife_k",
          "only with --frontend=" + frontends_over("strife"));
  require(partition == "strife" || !flag_given("strife_alpha"), "strife_alpha",
          "only with --frontend=" + frontends_over("strife"));
  require(partition == "strife" || !flag_given("strife_spot"), "strife_spot",
          "only with --frontend=" + frontends_over("strife"));
  require(cfg.frontend == "strife" || !flag_given("strife_fallback"), "strife_fallback",
          "only with --frontend=strife (Strife's own execution falls back, Strife §2; the Strife partition that "
          "the other front-ends take, the public STRIFE of the TSKD paper, does not)");
  require(partition != "horticulture" || horticulture::attribute_for(cfg.workload) != nullptr, "frontend",
          cfg.frontend + " uses Horticulture, hard-coded for --workload=tpcc|ycsb (TSKD §6.1), not " + cfg.workload);
  require(resolved.spec_.online_order != FrontendSpec::OnlineOrder::kThreadReorder || !cfg.abort_buffer(),
          "abort_policy", "backoff with --frontend=" + cfg.frontend + " (its workers run each batch in the plan's "
          "order; parking an aborted transaction would reorder the batch)");
  const bool tskd = resolved.bundle() && is_tskd(*resolved.entry_);
  require((resolved.bundle() && has_input_partitioner(*resolved.entry_)) || tskd || !flag_given("partition_time"),
          "partition_time", "only with a front-end over an input partitioner or a TSKD front-end: --frontend=" +
                                frontends_with_timed_input());
  require(resolved.bundle() || !flag_given("min_batches"), "min_batches",
          "only with a bundle front-end (--frontend other than none, tsdefer, reorder)");
  BundleSettings& s = resolved.settings_;
  BundleSettings::flags.read(s);
  require(tskd || s.partition_time != "schedule-inside", "partition_time",
          "outside|inside with --frontend=" + cfg.frontend + " (schedule-inside only with a TSKD front-end: --frontend=" +
              tskd_frontends() + ")");
  if (s.strife_k == 0) s.strife_k = std::min(strife::kMaxK, strife::default_k(cfg.threads));
  if (resolved.bundle()) {
    resolved.spec_.batch_size = s.batch_size;
    resolved.spec_.min_batches = s.min_batches;
    using PartitionTime = FrontendSpec::PartitionTime;
    resolved.spec_.partition_time = s.partition_time == "inside"            ? PartitionTime::kInside
                                    : s.partition_time == "schedule-inside" ? PartitionTime::kScheduleInside
                                                                            : PartitionTime::kOutside;
  }
  return resolved;
}

void ResolvedFrontend::options_json(JsonWriter& w) const {
  if (bundle()) BundleSettings::flags.write(settings_, w);
}

std::unique_ptr<BundleFrontend> ResolvedFrontend::make_bundle_frontend() const {
  if (!bundle()) throw std::logic_error("no bundle front-end named " + cfg_.frontend);
  FrontendContext ctx{.cfg = cfg_,
                      .strife = strife_options(cfg_, settings_, /*fallback=*/cfg_.frontend == "strife"),
                      .partition = [&] { return make_partition(entry_->partition, cfg_, settings_); }};
  return entry_->make(ctx);
}

std::vector<std::string> registered_bundle_frontends() {
  std::vector<std::string> names;
  for (const generated::BundleFrontendEntry& e : generated::kBundleFrontends) names.push_back(e.name);
  return names;
}

std::string owner_thread_frontends() {
  std::string s;
  for (const generated::FrontendName& f : generated::kFrontendNames)
    if (f.owner_threads) s += (s.empty() ? "" : " or ") + std::string(f.name);
  return s;
}

}  // namespace ccb
