#include "workloads/hot/hot_generator.h"

#include <numeric>
#include <utility>

namespace ccb {

HotGenerator::HotGenerator(const HotOptions& o) : opt_(o), parts_(o.parts()), rows_per_part_(o.rows_per_partition()) {
  for (uint32_t s = 1; s < parts_; ++s)
    if (std::gcd(s, parts_) == 1) strides_.push_back(s);
}

void HotGenerator::generate(Random& rng, uint32_t /*thread*/, Request& r) const {
  r.type = 0;
  r.pinned_epoch = HotRequest::kUnpinned;
  r.hot_slot = static_cast<uint32_t>(rng.below(opt_.hot_records));
  r.hot_pos = static_cast<uint32_t>(rng.below(HotRequest::kUpdates));
  const uint32_t home = r.hot_slot % parts_;
  const uint32_t remote = parts_ > 1 ? static_cast<uint32_t>(rng.between(0, opt_.remote_max)) : 0;
  for (uint32_t i = 0; i < HotOptions::kCold; ++i) {
    uint64_t key;
    bool repeat;
    do {
      uint32_t q = home;
      if (i < remote) q = (home + 1 + static_cast<uint32_t>(rng.below(parts_ - 1))) % parts_;
      key = q + uint64_t{parts_} * rng.between(opt_.hot_records, rows_per_part_ - 1);
      repeat = false;
      for (uint32_t j = 0; j < i; ++j) repeat |= r.cold[j] == key;
    } while (repeat);
    r.cold[i] = key;
  }
  for (uint32_t i = HotOptions::kCold - 1; i > 0; --i) std::swap(r.cold[i], r.cold[rng.below(i + 1)]);
}

TxnDesc HotGenerator::describe(const Request& r, uint64_t epoch) const {
  TxnDesc d;
  d.type = r.type;
  for (uint32_t i = 0; i < HotRequest::kUpdates; ++i) d.write_set.push_back(make_global_key(kTableId, key(r, i, epoch)));
  return d;
}

HotGenerator::Placement HotGenerator::placement(uint64_t e) const {
  if (e == 0 || parts_ == 1) return {parts_, 0, 1};
  uint64_t s = opt_.shift_seed ^ (0x9E3779B97F4A7C15ull * e);
  const uint64_t u = splitmix64(s), off = splitmix64(s), st = splitmix64(s);
  return {1 + static_cast<uint32_t>(u % (parts_ - 1)), static_cast<uint32_t>(off % parts_),
          strides_[st % strides_.size()]};
}

}  // namespace ccb
