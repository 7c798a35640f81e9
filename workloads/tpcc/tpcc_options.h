// TPC-C knobs, validated from flags (--warehouses, --home_warehouse, --mix,
// --cross_pct, --by_last_name_pct, --expected_new_orders; README.md describes them).
//
// Thread safety: an immutable value after from_flags().
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/options.h"

namespace ccb {

namespace tpcc {

// Transaction types; Request::type and txn_types() use this order.
enum TxnType : uint32_t { kNewOrder = 0, kPayment, kOrderStatus, kDelivery, kStockLevel, kTxnTypes };
inline constexpr std::array<const char*, kTxnTypes> kTxnTypeNames = {"new_order", "payment", "order_status", "delivery",
                                                                     "stock_level"};

}  // namespace tpcc

struct TpccOptions {
  uint32_t warehouses = 1;
  // Which warehouse a request is issued for (its W_ID): "worker", worker t's
  // requests all for warehouse t mod warehouses + 1 (DBx1000 binds its
  // threads to warehouses so; the BCC paper ran DBx1000 and Silo, which do
  // the same), or "uniform", each request's home drawn uniformly over all
  // warehouses (clients over the whole database, as the Strife paper's
  // §5.3 batches are: "as many CF clusters as warehouses" at fewer cores
  // than warehouses).
  std::string home_warehouse = "worker";
  std::string mix = "standard";  // the flag's value, for the results
  // Percentage of each transaction type, indexed by tpcc::TxnType; sums to 100.
  std::array<uint32_t, tpcc::kTxnTypes> mix_pct = {45, 43, 4, 4, 4};
  // -1: the spec's remote accesses (each NewOrder item supplied by another
  // warehouse with 1%, 15% of Payments for a customer of another warehouse).
  // c in [0, 100]: c% of NewOrders have one remote order line and c% of
  // Payments a remote customer (TSKD's c%), nothing else is remote.
  int32_t cross_pct = -1;
  uint32_t by_last_name_pct = 60;  // Payment and OrderStatus select the customer by C_LAST (2.5.1.2, 2.6.1.2)
  // NewOrder reads W_TAX and C_DISCOUNT, C_LAST, C_CREDIT, which no
  // transaction writes, from a copy made at load, without concurrency
  // control: the 1000-cores DBx1000's RD_RO accesses under ALLOW_READ_ONLY
  // (benchmarks/tpcc/tpcc_txn.cpp there), whose runs are the reference data.
  // false: through the protocol, as every other read.
  bool immutable_reads = false;
  // NewOrders the run is expected to commit; sizes the hash indexes of the
  // tables NewOrder and Payment insert into, so their chains stay short.
  uint64_t expected_new_orders = 500000;
  // Seed of the loaded database and of the NURand constants: fixed, so every
  // run (any --seed, any thread count) starts from the same database.
  uint64_t load_seed = 20240901;

  static OptionsTable<TpccOptions> flags;  // its rows: tpcc_options.cpp
  static TpccOptions from_flags();
  void to_json(JsonWriter& w) const;
  bool standard_remote() const { return cross_pct < 0; }
  bool uniform_home() const { return home_warehouse == "uniform"; }
  static const std::vector<std::string>& home_warehouses();  // {"worker", "uniform"}
};

}  // namespace ccb
