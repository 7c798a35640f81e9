#include "workloads/micro/micro_generator.h"

#include <stdexcept>

#include "workloads/distinct_keys.h"

namespace ccb {

MicroGenerator::MicroGenerator(const MicroOptions& o) : opt_(o) {
  require_bounded_distinct_draws(o.objects, o.key_skew.theta, MicroOptions::kKeys,
                                 "the 9 distinct objects of a transaction out of --micro_objects=" +
                                     std::to_string(o.objects),
                                 "lower --theta or raise --micro_objects");
}

void MicroGenerator::prepare() {
  if (!zipf_) zipf_.emplace(opt_.objects, opt_.key_skew.theta);
}

void MicroGenerator::generate(Random& rng, uint32_t /*thread*/, Request& r) const {
  if (!zipf_) throw std::logic_error("MicroGenerator::generate before prepare()");
  r.type = 0;
  for (uint32_t i = 0; i < MicroOptions::kKeys; ++i) {
    uint64_t key;
    bool repeat;
    do {  // distinct keys; bounded by the constructor's check
      key = zipf_->sample(rng);
      repeat = false;
      for (uint32_t j = 0; j < i; ++j) repeat |= r.keys[j] == key;
    } while (repeat);
    r.keys[i] = key;
  }
}

TxnDesc MicroGenerator::describe(const Request& r) const {
  TxnDesc d;
  d.type = r.type;
  for (uint32_t i = 0; i < MicroOptions::kKeys; ++i)
    (i >= 1 && i < MicroOptions::kReads ? d.read_set : d.write_set).push_back(make_global_key(kTableId, r.keys[i]));
  return d;
}

}  // namespace ccb
