#include "workloads/tpcw/tpcw_options.h"

#include <algorithm>

namespace ccb {
OptionsTable<TpcwOptions> TpcwOptions::flags{"tpcw_flags"};
}  // namespace ccb

CCB_OPTION(ccb::TpcwOptions::flags, items, uint64, tpcw_items, 10000, ccb::any_value(),
           "TPC-W: rows of the ITEM table; item 0 is the hot item (more than --tpcw_cart_items and "
           "--tpcw_order_lines, at most 2^32)");
CCB_OPTION(ccb::TpcwOptions::flags, hot_prob, double, tpcw_hot_prob, 1.0, ccb::range(0, 1, "a probability"),
           "TPC-W: probability that a DoCart reads (adds) the hot item");
CCB_OPTION(ccb::TpcwOptions::flags, cart_items, uint32, tpcw_cart_items, 5,
           ccb::range(1, ccb::TpcwOptions::kMaxLines, "an integer"),
           "TPC-W: distinct items one DoCart adds to its cart");
CCB_OPTION(ccb::TpcwOptions::flags, order_lines, uint32, tpcw_order_lines, 10,
           ccb::range(1, ccb::TpcwOptions::kMaxLines, "an integer"),
           "TPC-W: distinct items one OrderProcess orders, the hot item included");
CCB_OPTION(ccb::TpcwOptions::flags, order_threads, uint32, tpcw_order_threads, 1, ccb::range(1, 1024, "an integer"),
           "TPC-W: workers 0..N-1 run OrderProcess, the others DoCart (the BCC paper uses 1)");

namespace ccb {

TpcwOptions TpcwOptions::from_flags() {
  TpcwOptions o;
  flags.read(o);
  const uint64_t needed = std::max(o.cart_items, o.order_lines);
  in_range(o.items, needed + 1, uint64_t{1} << 32, "tpcw_items", "an integer",
           " (the hot item plus enough other items for distinct lines)");
  return o;
}

void TpcwOptions::to_json(JsonWriter& w) const { flags.write(*this, w); }

}  // namespace ccb
