#include "workloads/ycsb/ycsb_generator.h"

#include <stdexcept>

#include "workloads/distinct_keys.h"

namespace ccb {

namespace {

bool contains(const YcsbRequest& r, uint32_t n, uint64_t key) {
  for (uint32_t j = 0; j < n; ++j)
    if (r.key(j) == key) return true;
  return false;
}

}  // namespace

YcsbGenerator::YcsbGenerator(const YcsbOptions& o) : opt_(o), worker_home_(o.worker_home()) {
  const std::string keys = o.partitions ? "--table_size=" + std::to_string(o.table_size) + " / --partitions=" +
                                              std::to_string(o.partitions) + " keys"
                                        : "--table_size=" + std::to_string(o.table_size) + " keys";
  require_bounded_distinct_draws(o.keys_per_partition(), o.key_skew.theta, o.req_per_txn,
                                 "--req_per_txn=" + std::to_string(o.req_per_txn) + " distinct keys of " + keys,
                                 "lower --theta or --req_per_txn, or raise --table_size");
}

void YcsbGenerator::prepare() {
  if (!zipf_) zipf_.emplace(opt_.keys_per_partition(), opt_.key_skew.theta);
}

void YcsbGenerator::generate(Random& rng, uint32_t thread, Request& r) const {
  if (!zipf_) throw std::logic_error("YcsbGenerator::generate before prepare()");
  const uint64_t base =
      opt_.partitions ? (worker_home_ ? thread % opt_.partitions : rng.below(opt_.partitions)) * opt_.keys_per_partition()
                      : 0;
  r.type = 0;
  r.n = opt_.req_per_txn;
  for (uint32_t i = 0; i < r.n; ++i) {
    uint64_t key;
    do {  // keys within a transaction are distinct (as in DBx1000); bounded by the constructor's check
      key = base + zipf_->sample(rng);
    } while (contains(r, i, key));
    r.ops[i] = key | (rng.chance(opt_.read_ratio) ? 0 : YcsbRequest::kWriteBit);
  }
}

TxnDesc YcsbGenerator::describe(const Request& r) const {
  TxnDesc d;
  d.type = r.type;
  for (uint32_t i = 0; i < r.n; ++i)
    (r.is_write(i) ? d.write_set : d.read_set).push_back(make_global_key(kTableId, r.key(i)));
  return d;
}

}  // namespace ccb
