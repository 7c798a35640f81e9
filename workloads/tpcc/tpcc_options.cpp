#include "workloads/tpcc/tpcc_options.h"

#include <gflags/gflags_declare.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>

#include "workloads/tpcc/tpcc_schema.h"

DECLARE_int32(threads);  // the engine's: --warehouses=0 is one per worker

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

// --mix: a named mix or five percentages, echoed as given and as mix_pct.
void read_mix(TpccOptions& o, const std::string& mix) {
  o.mix = mix;
  if (mix == "standard") {
    o.mix_pct = {45, 43, 4, 4, 4};
  } else if (mix == "neworder_payment") {
    o.mix_pct = {50, 50, 0, 0, 0};
  } else {
    const auto pct = parse_percentages(mix);
    uint32_t sum = 0;
    if (pct)
      for (uint32_t p : *pct) sum += p;
    require(pct.has_value() && sum == 100, "mix",
            "standard | neworder_payment | five comma-separated integer percentages "
            "NewOrder,Payment,OrderStatus,Delivery,StockLevel summing to 100 (e.g. 45,43,4,4,4)");
    o.mix_pct = *pct;
  }
}

void write_mix(const TpccOptions& o, JsonWriter& w) {
  w.key("mix").value(o.mix);
  w.key("mix_pct").begin_object();
  for (size_t t = 0; t < o.mix_pct.size(); ++t) w.key(tpcc::kTxnTypeNames[t]).value(o.mix_pct[t]);
  w.end_object();
}

}  // namespace

OptionsTable<TpccOptions> TpccOptions::flags{"tpcc_flags"};

const std::vector<std::string>& TpccOptions::home_warehouses() {
  static const std::vector<std::string> names{"worker", "uniform"};
  return names;
}

TpccOptions TpccOptions::from_flags() {
  TpccOptions o;
  flags.read(o);
  if (o.warehouses == 0) o.warehouses = static_cast<uint32_t>(std::max(FLAGS_threads, 1));  // BCC Fig 4
  require(o.cross_pct <= 0 || o.warehouses >= 2, "cross_pct",
          "0 or -1 with --warehouses=1 (a cross-warehouse transaction needs a second warehouse)");
  return o;
}

void TpccOptions::to_json(JsonWriter& w) const {
  flags.write(*this, w);
  w.key("load_seed").value(load_seed);
}

}  // namespace ccb

CCB_OPTION(ccb::TpccOptions::flags, warehouses, uint32, warehouses, 1,
           ccb::range(0, ccb::tpcc::kMaxWarehouses, "an integer", " (0 = --threads)"),
           "TPC-C: number of warehouses (0 = as many as --threads, the papers' low-contention setting)");
CCB_OPTION(ccb::TpccOptions::flags, home_warehouse, string, home_warehouse, "worker",
           ccb::one_of(&ccb::TpccOptions::home_warehouses),
           "TPC-C: the warehouse a request is issued for: worker (worker i's requests all for warehouse i mod "
           "warehouses + 1, as DBx1000 binds threads to warehouses) or uniform (each request's home drawn "
           "uniformly over all warehouses, clients over the whole database as in the Strife paper)");
CCB_PARSED_OPTION(ccb::TpccOptions::flags, string, mix, "standard", ccb::read_mix, ccb::write_mix,
                  R"({"type": "string"})",
                  "TPC-C: transaction mix: standard (NewOrder/Payment/OrderStatus/Delivery/StockLevel 45/43/4/4/4), "
                  "neworder_payment (50/50, the BCC and Strife mix), or five comma-separated percentages in that "
                  "order summing to 100");
CCB_OPTION(ccb::TpccOptions::flags, cross_pct, int32, cross_pct, -1,
           ccb::range(-1, 100, "a percentage").explained("-1 (the spec's remote accesses) or a percentage in [0, 100]"),
           "TPC-C: percentage of NewOrder and Payment transactions that cross warehouses (needs --warehouses >= 2 "
           "when > 0)");
CCB_OPTION(ccb::TpccOptions::flags, by_last_name_pct, uint32, by_last_name_pct, 60,
           ccb::range(0, 100, "a percentage"),
           "TPC-C: percentage of Payment and OrderStatus transactions selecting the customer by last name");
CCB_OPTION(ccb::TpccOptions::flags, immutable_reads, bool, immutable_reads, false, ccb::any_value(),
           "TPC-C: NewOrder reads W_TAX and the customer's C_DISCOUNT, C_LAST and C_CREDIT, which no transaction "
           "writes, from a copy made at load, without concurrency control (the DBx1000 of the 1000-cores papers, "
           "RD_RO under ALLOW_READ_ONLY); false: through the protocol like every other read");
CCB_OPTION(ccb::TpccOptions::flags, expected_new_orders, uint64, expected_new_orders, 500000,
           ccb::range(1, 0x1p32, "an integer"),
           "TPC-C: NewOrders a run is expected to commit; sizes the indexes of the insert tables");
