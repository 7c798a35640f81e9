#include "workloads/tpcw/tpcw_generator.h"

namespace ccb {

void TpcwGenerator::generate(Random& rng, uint32_t thread, Request& r) const {
  const bool order = thread < opt_.order_threads;
  r.type = static_cast<uint32_t>(order ? TpcwTxn::kOrderProcess : TpcwTxn::kDoCart);
  r.session = thread % kSessions;
  r.n = order ? opt_.order_lines : opt_.cart_items;
  const bool hot = order || rng.chance(opt_.hot_prob);
  const uint32_t hot_pos = hot ? static_cast<uint32_t>(rng.below(r.n)) : r.n;
  for (uint32_t i = 0; i < r.n; ++i) {
    if (i == hot_pos) {
      r.item[i] = kHotItem;
    } else {
      uint32_t id;
      bool repeat;
      do {  // distinct items, never the hot one
        id = static_cast<uint32_t>(rng.between(1, opt_.items - 1));
        repeat = false;
        for (uint32_t j = 0; j < i; ++j) repeat |= r.item[j] == id;
      } while (repeat);
      r.item[i] = id;
    }
    r.qty[i] = order ? static_cast<uint8_t>(rng.between(1, kMaxQty)) : 1;
  }
}

TxnDesc TpcwGenerator::describe(const Request& r) const {
  TxnDesc d;
  d.type = r.type;
  auto& items = r.txn() == TpcwTxn::kOrderProcess ? d.write_set : d.read_set;
  for (uint32_t i = 0; i < r.n; ++i) items.push_back(make_global_key(kItemId, r.item[i]));
  if (r.txn() == TpcwTxn::kDoCart) d.write_set.push_back(make_global_key(kCartId, r.session));
  return d;
}

}  // namespace ccb
