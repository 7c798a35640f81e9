#include "partitioners/partitioner_frontend.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "engine/core/clock.h"
#include "engine/core/json.h"

namespace ccb {

void partition_input(Partitioner& partitioner, std::span<const TxnDesc> batch, unsigned parts, Partitioning& out,
                     BundlePlan& plan) {
  out.clear();
  const uint64_t start = now_ns();
  const auto host_start = std::chrono::steady_clock::now();
  partitioner.partition(batch, parts, out);
  plan.input_partition_ns = now_ns() - start;
  plan.input_partition_host_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - host_start).count());
  if (out.partition_us <= 0) out.partition_us = static_cast<double>(plan.input_partition_ns) * 1e-3;
  if (out.parts.size() != parts)
    throw std::logic_error(std::string(partitioner.name()) + " returned " + std::to_string(out.parts.size()) +
                           " partitions, asked for " + std::to_string(parts));
  if (!partitioner.gives_residual() && !out.residual.empty())
    throw std::logic_error(std::string(partitioner.name()) + " gives no residual but returned one");
}

void PartitionerFrontend::plan(std::span<const TxnDesc> batch, BundlePlan& plan) {
  partition_input(*partitioner_, batch, parts_, partitioning_, plan);
  // Strife's partitions are conflict-free by its residual; Schism's and
  // Horticulture's may conflict and run with CC (the header).
  const BundleQueue::Mode mode =
      partitioner_->gives_residual() ? BundleQueue::Mode::kWithoutCC : BundleQueue::Mode::kWithCC;
  plan.per_thread.resize(parts_);
  size_t smallest = batch.size(), largest = 0;
  for (unsigned i = 0; i < parts_; ++i) {
    auto& p = partitioning_.parts[i];
    smallest = std::min(smallest, p.size());
    largest = std::max(largest, p.size());
    if (p.empty()) continue;
    BundleQueue q;
    q.mode = mode;
    q.txns = std::move(p);
    plan.per_thread[i].push_back(std::move(q));
  }
  plan.residuals = std::move(partitioning_.residual);
  plan.input_as_is = true;
  plan.step_us = {{"partition", partitioning_.partition_us}};
  plan.counters = {{"part_min", double(smallest)}, {"part_max", double(largest)}};  // |R|: per_batch.residuals
}

void PartitionerFrontend::params_json(JsonWriter& w) const {
  w.key("partitioner").value(partitioner_->name());
  w.key("parts").value(parts_);
  w.key("partitions_cc").value(!partitioner_->gives_residual());  // the partitions run under the protocol
}

std::unique_ptr<BundleFrontend> make_partitioner_frontend(FrontendContext& ctx) {
  std::unique_ptr<Partitioner> partition = ctx.partition();
  if (!partition) throw std::logic_error("front-end " + ctx.cfg.frontend + ": a partitioner baseline needs a partition");
  return std::make_unique<PartitionerFrontend>(std::move(partition), static_cast<unsigned>(ctx.cfg.threads));
}

}  // namespace ccb
