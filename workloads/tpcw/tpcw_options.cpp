#include "workloads/tpcw/tpcw_options.h"

#include <gflags/gflags.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/config.h"
#include "engine/core/json.h"

DEFINE_uint64(tpcw_items, 10000, "TPC-W: rows of the ITEM table; item 0 is the hot item");
DEFINE_double(tpcw_hot_prob, 1.0, "TPC-W: probability that a DoCart reads (adds) the hot item ([0, 1])");
DEFINE_uint32(tpcw_cart_items, 5, "TPC-W: distinct items one DoCart adds to its cart (1..32)");
DEFINE_uint32(tpcw_order_lines, 10, "TPC-W: distinct items one OrderProcess orders, the hot item included (1..32)");
DEFINE_uint32(tpcw_order_threads, 1,
              "TPC-W: workers 0..N-1 run OrderProcess, the others DoCart (1..1024; the BCC paper uses 1)");

namespace ccb {

TpcwOptions TpcwOptions::from_flags() {
  TpcwOptions o;
  o.cart_items = in_range(FLAGS_tpcw_cart_items, 1, kMaxLines, "tpcw_cart_items", "an integer");
  o.order_lines = in_range(FLAGS_tpcw_order_lines, 1, kMaxLines, "tpcw_order_lines", "an integer");
  const uint64_t needed = std::max(o.cart_items, o.order_lines);
  o.items = in_range(FLAGS_tpcw_items, needed + 1, uint64_t{1} << 32, "tpcw_items", "an integer",
                     " (the hot item plus enough other items for distinct lines)");
  o.hot_prob = in_range(FLAGS_tpcw_hot_prob, 0.0, 1.0, "tpcw_hot_prob", "a probability");
  o.order_threads = in_range(FLAGS_tpcw_order_threads, 1, 1024, "tpcw_order_threads", "an integer");
  return o;
}

void TpcwOptions::to_json(JsonWriter& w) const {
  w.key("tpcw_items").value(items);
  w.key("tpcw_hot_prob").value(hot_prob);
  w.key("tpcw_cart_items").value(cart_items);
  w.key("tpcw_order_lines").value(order_lines);
  w.key("tpcw_order_threads").value(order_threads);
}

}  // namespace ccb
