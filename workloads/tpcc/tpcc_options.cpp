#include "workloads/tpcc/tpcc_options.h"

#include <gflags/gflags.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>

#include "engine/config.h"
#include "engine/core/json.h"
#include "workloads/tpcc/tpcc_schema.h"

DEFINE_uint32(warehouses, 1,
              "TPC-C: number of warehouses (1..65535; 0 = as many as --threads, the papers' low-contention "
              "setting); worker i's home warehouse is i mod warehouses + 1");
DECLARE_int32(threads);
DEFINE_string(mix, "standard",
              "TPC-C: transaction mix: standard (NewOrder/Payment/OrderStatus/Delivery/StockLevel 45/43/4/4/4), "
              "neworder_payment (50/50, the BCC and Strife mix), or five comma-separated percentages in that order "
              "summing to 100");
DEFINE_int32(cross_pct, -1,
             "TPC-C: percentage of NewOrder and Payment transactions that cross warehouses (0..100; needs "
             "--warehouses >= 2 when > 0); -1 = the spec's 1% remote order lines and 15% remote payments");
DEFINE_uint32(by_last_name_pct, 60,
              "TPC-C: percentage of Payment and OrderStatus transactions selecting the customer by last name (0..100)");
DEFINE_uint64(expected_new_orders, 500000,
              "TPC-C: NewOrders a run is expected to commit; sizes the indexes of the insert tables (1..2^32)");

namespace ccb {

namespace {

// "a,b,c,d,e" -> five percentages, or nothing if malformed.
std::optional<std::array<uint32_t, tpcc::kTxnTypes>> parse_percentages(std::string_view s) {
  std::array<uint32_t, tpcc::kTxnTypes> pct{};
  const char* p = s.data();
  const char* end = s.data() + s.size();
  for (size_t i = 0; i < pct.size(); ++i) {
    const auto [next, ec] = std::from_chars(p, end, pct[i]);
    if (ec != std::errc() || next == p) return std::nullopt;
    p = next;
    if (i + 1 < pct.size()) {
      if (p == end || *p != ',') return std::nullopt;
      ++p;
    }
  }
  if (p != end) return std::nullopt;
  return pct;
}

}  // namespace

TpccOptions TpccOptions::from_flags() {
  TpccOptions o;
  o.warehouses = FLAGS_warehouses == 0 ? static_cast<uint32_t>(std::max(FLAGS_threads, 1))
                                       : FLAGS_warehouses;  // 0: one home warehouse per worker (BCC Fig 4)
  in_range(o.warehouses, 1, tpcc::kMaxWarehouses, "warehouses", "an integer", " (0 = --threads)");

  o.mix = FLAGS_mix;
  if (FLAGS_mix == "standard") {
    o.mix_pct = {45, 43, 4, 4, 4};
  } else if (FLAGS_mix == "neworder_payment") {
    o.mix_pct = {50, 50, 0, 0, 0};
  } else {
    const auto pct = parse_percentages(FLAGS_mix);
    uint32_t sum = 0;
    if (pct)
      for (uint32_t p : *pct) sum += p;
    require(pct.has_value() && sum == 100, "mix",
            "standard | neworder_payment | five comma-separated integer percentages "
            "NewOrder,Payment,OrderStatus,Delivery,StockLevel summing to 100 (e.g. 45,43,4,4,4)");
    o.mix_pct = *pct;
  }

  require(FLAGS_cross_pct >= -1 && FLAGS_cross_pct <= 100, "cross_pct",
          "-1 (the spec's remote accesses) or a percentage in [0, 100]");
  require(FLAGS_cross_pct <= 0 || o.warehouses >= 2, "cross_pct",
          "0 or -1 with --warehouses=1 (a cross-warehouse transaction needs a second warehouse)");
  o.cross_pct = FLAGS_cross_pct;

  o.by_last_name_pct = in_range(FLAGS_by_last_name_pct, 0, 100, "by_last_name_pct", "a percentage");
  o.expected_new_orders = in_range(FLAGS_expected_new_orders, 1, uint64_t{1} << 32, "expected_new_orders", "an integer");
  return o;
}

void TpccOptions::to_json(JsonWriter& w) const {
  w.key("warehouses").value(warehouses);
  w.key("mix").value(mix);
  w.key("mix_pct").begin_object();
  for (size_t t = 0; t < mix_pct.size(); ++t) w.key(tpcc::kTxnTypeNames[t]).value(mix_pct[t]);
  w.end_object();
  w.key("cross_pct").value(cross_pct);
  w.key("by_last_name_pct").value(by_last_name_pct);
  w.key("expected_new_orders").value(expected_new_orders);
  w.key("load_seed").value(load_seed);
}

}  // namespace ccb
