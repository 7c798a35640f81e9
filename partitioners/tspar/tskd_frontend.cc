#include "partitioners/tspar/tskd_frontend.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "engine/core/json.h"
#include "engine/core/random.h"
#include "engine/core/local_work.h"  // charge_analysis_probes
#include "engine/core/sim_hooks.h"
#include "partitioners/partitioner_frontend.h"  // partition_input
#include "partitioners/residual.h"              // extract_residual

namespace ccb::tspar {

namespace {

double elapsed_us(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - since).count();
}

// max / min of the queue loads; a zero minimum (an empty queue) counts as the
// smallest transaction's time, so the ratio stays finite [INF: the paper's
// "ratio of the largest partition over the smallest" is silent on empty ones].
double load_ratio(const std::vector<double>& loads, double smallest_txn) {
  if (loads.empty()) return 1.0;
  const auto [lo, hi] = std::minmax_element(loads.begin(), loads.end());
  const double floor = std::max(*lo, smallest_txn);
  return floor > 0 ? *hi / floor : 1.0;
}

}  // namespace

TskdFrontend::TskdFrontend(const TskdOptions& options, std::unique_ptr<Partitioner> partitioner)
    : options_(options), partitioner_(std::move(partitioner)), tsgen_(options.seed, options.order) {
  if (options_.threads == 0) throw std::invalid_argument("TSKD needs at least one thread");
  if (!partitioner_ && options_.variant == Variant::kTsdeferOnly)
    throw std::invalid_argument("TsDEFER-only needs an input partition");
}

void TskdFrontend::plan(std::span<const TxnDesc> batch, BundlePlan& plan) {
  const unsigned k = options_.threads;
  // TSKD's own loops (the extraction, the estimates, TSgen's index) run on
  // the front-end's team (the bundle executor's workers).
  const ForChunks on_team = [this](size_t n, const std::function<void(size_t, size_t)>& body) { for_chunks(n, body); };
  // Partition (or none: TSKD[O] treats W as R, §4).
  std::optional<double> extract_us;  // set where TSKD extracted R (§6.1)
  if (partitioner_) {
    partition_input(*partitioner_, batch, k, part_, plan);
    if (!partitioner_->gives_residual()) {  // SCHISM, HORTICULTURE: TSKD extracts R itself (§6.1)
      const auto t = std::chrono::steady_clock::now();
      extract_residual(batch, part_, on_team);
      extract_us = elapsed_us(t);
    }
  } else {
    part_.clear();
    part_.parts.assign(k, {});
    part_.residual.resize(batch.size());
    for (uint32_t i = 0; i < batch.size(); ++i) part_.residual[i] = i;
  }

  auto t = std::chrono::steady_clock::now();
  estimate_times(batch);
  double smallest = 0;
  for (double x : time_)
    if (x > 0 && (smallest == 0 || x < smallest)) smallest = x;
  const double estimate_us = elapsed_us(t);

  std::vector<double> input_load(k, 0.0);
  for (unsigned i = 0; i < k; ++i)
    for (uint32_t x : part_.parts[i]) input_load[i] += time_[x];

  plan.per_thread.resize(k);
  plan.residuals_round_robin = true;
  if (options_.variant == Variant::kTsdeferOnly) {
    for (unsigned i = 0; i < k; ++i) {
      if (part_.parts[i].empty()) continue;
      plan.per_thread[i].push_back(BundleQueue{BundleQueue::Mode::kWithCC, part_.parts[i]});
    }
    plan.residuals = part_.residual;
    plan.tsdefer_queues = plan.tsdefer_residuals = true;
    plan.queue_estimates = input_load;
    plan.step_us = {{"partition", part_.partition_us}, {"estimate", estimate_us}};
    if (extract_us) plan.step_us.emplace_back("extract", *extract_us);
    plan.counters = {{"residual_in", double(part_.residual.size())}, {"rs", double(part_.residual.size())},
                     {"load_ratio", load_ratio(input_load, smallest)},
                     {"input_load_ratio", load_ratio(input_load, smallest)}};
    return;
  }

  tsgen_.schedule(batch, part_, time_, schedule_, on_team);
  for (unsigned i = 0; i < k; ++i) {
    if (schedule_.queues[i].empty()) continue;
    plan.per_thread[i].push_back(BundleQueue{BundleQueue::Mode::kWithCC, std::move(schedule_.queues[i])});
  }
  plan.residuals = schedule_.rs;
  plan.tsdefer_queues = plan.tsdefer_residuals = options_.variant == Variant::kTskd;
  plan.queue_estimates = schedule_.load;
  const double r = static_cast<double>(part_.residual.size());
  const double rs = static_cast<double>(schedule_.rs.size());
  plan.step_us = {{"partition", part_.partition_us}, {"estimate", estimate_us}, {"tsgen", schedule_.tsgen_us}};
  if (extract_us) plan.step_us.emplace_back("extract", *extract_us);
  plan.counters = {{"residual_in", r},
                   {"rs", rs},
                   {"scheduled_pct", r > 0 ? 100.0 * (r - rs) / r : 100.0},
                   {"load_ratio", load_ratio(schedule_.load, smallest)},
                   {"input_load_ratio", load_ratio(input_load, smallest)},
                   {"cost_samples", double(costs_.samples())}};
  if (partitioner_ && part_.partition_us > 0)
    plan.counters.push_back({"overhead_r", schedule_.tsgen_us / part_.partition_us});
}

void TskdFrontend::estimate_times(std::span<const TxnDesc> batch) {
  // In chunks on the team, read-only (CostModel::known); the parameters the
  // memo lacks (few: the history's nearest entries) serially after, in bundle
  // order, so the estimates do not depend on the chunking. Under sim each
  // estimate (a lookup in the history) is one index_probe of the analysis.
  time_.resize(batch.size());
  missing_.assign(batch.size(), 0);
  const uint32_t analysis = sim::analysis_work_type();
  for_chunks(batch.size(), [&](size_t begin, size_t end) {
    const sim::ScopedWorkType scope(analysis);
    for (size_t i = begin; i < end; ++i) {
      charge_analysis_probes(1);
      const std::optional<double> e = costs_.known(batch[i]);
      time_[i] = e.value_or(0.0);
      missing_[i] = !e;
    }
  });
  for (size_t i = 0; i < batch.size(); ++i)
    if (missing_[i]) time_[i] = costs_.estimate(batch[i]);
}

void TskdFrontend::observe_costs(std::span<const TxnDesc> batch, std::span<const uint64_t> ns) {
  for (size_t i = 0; i < batch.size() && i < ns.size(); ++i)
    if (ns[i] > 0) costs_.observe(batch[i], static_cast<double>(ns[i]));
}

void TskdFrontend::params_json(JsonWriter& w) const {
  static constexpr const char* kVariants[] = {"tskd", "tspar", "tsdefer"};
  w.key("variant").value(kVariants[static_cast<int>(options_.variant)]);
  w.key("partitioner").value(partitioner_ ? partitioner_->name() : "none");
  w.key("residual_order").value(options_.order == ResidualOrder::kRandom ? "random" : "given");
  w.key("queues_cc").value(true);  // every TSKD instance (TSKD §6.1)
  w.key("residual_assignment").value("round-robin");
  if (options_.variant != Variant::kTsparOnly) {
    w.key("tsdefer_lookups").value(options_.tsdefer.lookups);
    w.key("tsdefer_deferp").value(options_.tsdefer.deferp);
  }
}

static std::unique_ptr<BundleFrontend> make_variant(FrontendContext& ctx, Variant variant) {
  TskdOptions o;
  o.variant = variant;
  o.threads = static_cast<unsigned>(ctx.cfg.threads);
  o.seed = seed_for(ctx.cfg.seed, uint64_t{4} << 32);
  o.tsdefer = ctx.cfg.tsdefer;
  return std::make_unique<TskdFrontend>(o, ctx.partition());
}

std::unique_ptr<BundleFrontend> make_tskd(FrontendContext& ctx) { return make_variant(ctx, Variant::kTskd); }
std::unique_ptr<BundleFrontend> make_tspar(FrontendContext& ctx) { return make_variant(ctx, Variant::kTsparOnly); }
std::unique_ptr<BundleFrontend> make_tsdefer(FrontendContext& ctx) { return make_variant(ctx, Variant::kTsdeferOnly); }

}  // namespace ccb::tspar
