#include "partitioners/partitioner_frontend.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/core/json.h"

namespace ccb {

void PartitionerFrontend::plan(std::span<const TxnDesc> batch, BundlePlan& plan) {
  partitioning_.clear();
  partitioner_->partition(batch, parts_, partitioning_);
  if (partitioning_.parts.size() != parts_)
    throw std::logic_error(std::string(partitioner_->name()) + " returned " +
                           std::to_string(partitioning_.parts.size()) + " partitions, asked for " +
                           std::to_string(parts_));
  plan.per_thread.resize(parts_);
  size_t smallest = batch.size(), largest = 0;
  for (unsigned i = 0; i < parts_; ++i) {
    auto& p = partitioning_.parts[i];
    smallest = std::min(smallest, p.size());
    largest = std::max(largest, p.size());
    if (p.empty()) continue;
    BundleQueue q;
    q.mode = BundleQueue::Mode::kWithoutCC;  // conflict-free across partitions by construction of R
    q.txns = std::move(p);
    plan.per_thread[i].push_back(std::move(q));
  }
  plan.residuals = std::move(partitioning_.residual);
  plan.step_us = {{"partition", partitioning_.partition_us}};
  plan.counters = {{"part_min", double(smallest)}, {"part_max", double(largest)}};  // |R|: per_batch.residuals
}

void PartitionerFrontend::params_json(JsonWriter& w) const {
  w.key("partitioner").value(partitioner_->name());
  w.key("parts").value(parts_);
}

std::unique_ptr<BundleFrontend> make_partitioner_frontend(FrontendContext& ctx) {
  std::unique_ptr<Partitioner> partition = ctx.partition();
  if (!partition) throw std::logic_error("front-end " + ctx.cfg.frontend + ": a partitioner baseline needs a partition");
  return std::make_unique<PartitionerFrontend>(std::move(partition), static_cast<unsigned>(ctx.cfg.threads));
}

}  // namespace ccb
