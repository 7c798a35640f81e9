// The prototype's closed loop; see validator_sim.h for the rules.
#include "partitioners/reorder/validator_sim.h"

#include <span>
#include <stdexcept>
#include <string>
#include <utility>

namespace ccb::reorder {

ValidatorSim::ValidatorSim(const ValidatorSimOptions& options, Source source)
    : options_(options), source_(std::move(source)) {
  if (options_.batch < 1) {
    throw std::invalid_argument("batch: must be >= 1, got " + std::to_string(options_.batch));
  }
  if (options_.concurrency < options_.batch) {
    throw std::invalid_argument("concurrency: must be >= batch (" + std::to_string(options_.batch) +
                                "), got " + std::to_string(options_.concurrency));
  }
  validate(options_.reorder.fvs);
  if (!source_) throw std::invalid_argument("source: must be callable");
  options_.reorder.keep_graph = true;  // the graph is what callers record
  for (uint32_t i = 0; i < options_.concurrency; ++i) issue_new();
}

uint64_t ValidatorSim::latest_version(GlobalKey key) const {
  const auto it = versions_.find(key);
  return it == versions_.end() ? 0 : it->second;
}

void ValidatorSim::issue(InFlight t) {
  t.reads.clear();
  for (GlobalKey k : t.read_keys) t.reads.push_back({k, latest_version(k)});
  fifo_.push_back(std::move(t));
}

void ValidatorSim::issue_new() {
  SimTxn s = source_();
  s.desc.id = next_id_++;
  s.desc.restarts = 0;
  issue(InFlight{std::move(s.desc), std::move(s.reads), {}});
}

const SimBatch& ValidatorSim::step() {
  const uint32_t n = options_.batch;
  std::vector<InFlight> members;
  members.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    members.push_back(std::move(fifo_.front()));
    fifo_.pop_front();
  }
  SimBatch& b = batch_;
  b.index = batches_++;
  b.first_position = position_;
  position_ += n;
  b.txns.clear();
  b.reads.clear();
  for (const InFlight& m : members) {
    b.txns.push_back(m.desc);
    b.reads.push_back(m.reads);
  }
  const auto latest = [this](GlobalKey k) { return latest_version(k); };
  const std::span<const TxnDesc> txns(b.txns);
  const std::span<const ObservedReads> reads(b.reads);
  b.result = options_.prevalidate ? prevalidate_and_reorder(txns, reads, latest, options_.reorder)
                                  : reorder_batch(txns, reads, {}, options_.reorder);

  // Final validation in commit order (§4.3): backward validation against the
  // state that includes the commits earlier in this batch.
  std::vector<uint8_t> committed(n, 0);
  b.committed.clear();
  b.first_commit_ts = commit_ts_ + 1;
  b.final_aborts = 0;
  for (uint32_t p : b.result.commit_order) {
    if (!prevalidate(std::span<const ObservedReads>(&b.reads[p], 1), latest)[0]) {
      ++b.final_aborts;
      continue;
    }
    ++commit_ts_;
    for (GlobalKey k : b.txns[p].write_set) versions_[k] = commit_ts_;
    committed[p] = 1;
    b.committed.push_back(p);
  }

  // Replacements, in batch-position order, after all of the batch's commits.
  for (uint32_t p = 0; p < n; ++p) {
    if (committed[p]) {
      issue_new();
    } else {
      InFlight& m = members[p];
      ++m.desc.restarts;
      issue(std::move(m));
    }
  }
  return b;
}

}  // namespace ccb::reorder
