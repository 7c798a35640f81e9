#include "partitioners/horticulture/horticulture.h"

#include <gtest/gtest.h>

#include "partitioners/residual.h"
#include "tests/partitioners/txn_builder.h"
#include "workloads/tpcc/tpcc_schema.h"

namespace ccb::horticulture {
namespace {

using test::txn;
using V = std::vector<uint32_t>;

GlobalKey tpcc_key(uint32_t table, uint64_t key) { return make_global_key(table, key); }

TEST(Horticulture, TpccAttributeIsTheWarehouseAndItemIsReplicated) {
  EXPECT_EQ(tpcc_warehouse(tpcc_key(tpcc::kStockTable, tpcc::stock_key(3, 77))), 3u);
  EXPECT_EQ(tpcc_warehouse(tpcc_key(tpcc::kCustomerTable, tpcc::customer_key(5, 10, 3000))), 5u);
  EXPECT_EQ(tpcc_warehouse(tpcc_key(tpcc::kOrderLineTable, tpcc::order_line_key(2, 1, 4000, 3))), 2u);
  EXPECT_FALSE(tpcc_warehouse(tpcc_key(tpcc::kItemTable, tpcc::item_key(77))).has_value());
  EXPECT_EQ(attribute_for("tpcc"), &tpcc_warehouse);
  EXPECT_EQ(attribute_for("ycsb"), &ycsb_key);
  EXPECT_EQ(attribute_for("smallbank"), nullptr);
}

// Transactions confined to key blocks: ranges keep each one on one
// partition (coordination 0), hashing the key spreads each over both.
TEST(Horticulture, CostModelPicksRangeForBlockLocalTransactions) {
  std::vector<TxnDesc> trace;
  for (uint64_t i = 0; i < 40; ++i) {
    const uint64_t base = (i % 2) * 1000;
    trace.push_back(txn({base + i % 7}, {base + i % 7 + 1, base + 999 - i % 5}));
  }
  test::number(trace);
  HorticulturePartitioner h(Options{.attribute = &ycsb_key});
  const Design range = h.evaluate(trace, 2, Mapping::kRange);
  const Design hash = h.evaluate(trace, 2, Mapping::kHash);
  EXPECT_DOUBLE_EQ(range.coordination, 0.0);
  EXPECT_NEAR(range.skew, 0.0, 1e-12);
  EXPECT_GT(hash.coordination, 0.5);
  Partitioning out;
  h.partition(trace, 2, out);
  ASSERT_TRUE(h.design().has_value());
  EXPECT_EQ(h.design()->mapping, Mapping::kRange);
  EXPECT_TRUE(out.residual.empty());
  for (uint32_t t = 0; t < trace.size(); ++t)
    EXPECT_EQ(std::count(out.parts[t % 2].begin(), out.parts[t % 2].end(), t), 1) << t;
}

// Hot keys at the low end of a wide range (YCSB's Zipf): ranges put nearly
// every access on partition 0 (skew), hashing balances them.
TEST(Horticulture, CostModelPicksHashForSkewedRanges) {
  std::vector<TxnDesc> trace;
  for (uint64_t i = 0; i < 40; ++i) trace.push_back(txn({}, {i % 10}));
  trace.push_back(txn({}, {1000}));
  test::number(trace);
  HorticulturePartitioner h(Options{.attribute = &ycsb_key});
  const Design range = h.evaluate(trace, 2, Mapping::kRange);
  const Design hash = h.evaluate(trace, 2, Mapping::kHash);
  EXPECT_GT(range.skew, 0.8);
  EXPECT_NEAR(hash.skew, 0.0, 1e-3);
  Partitioning out;
  h.partition(trace, 2, out);
  EXPECT_EQ(h.design()->mapping, Mapping::kHash);
  EXPECT_EQ(out.validate(trace.size()), "");
  EXPECT_TRUE(out.residual.empty());  // single-key transactions, keys split by parity
}

// TPC-C by warehouse: a transaction goes where
// most of its records are; ITEM reads do not vote; the design, chosen on the
// first bundle, stays for the next ones (static).
TEST(Horticulture, TpccRoutesByWarehouseMajorityAndStaysStatic) {
  using namespace tpcc;
  auto neworder = [](uint32_t w, uint32_t supply_w) {
    TxnDesc d;
    d.read_set = {tpcc_key(kWarehouseTable, warehouse_key(w)), tpcc_key(kItemTable, item_key(5)),
                  tpcc_key(kItemTable, item_key(6))};
    d.write_set = {tpcc_key(kDistrictTable, district_key(w, 1)), tpcc_key(kStockTable, stock_key(w, 5)),
                   tpcc_key(kStockTable, stock_key(supply_w, 6))};
    std::sort(d.read_set.begin(), d.read_set.end());
    std::sort(d.write_set.begin(), d.write_set.end());
    return d;
  };
  // Home warehouses 1..4, plus (1, 3) and (2, 3) with a remote stock row:
  // hashing w_id mod 2 keeps (1, 3) on one partition, ranges split both, so
  // the cost model keeps H-Store's hash design.
  std::vector<TxnDesc> b = {neworder(1, 1), neworder(2, 2), neworder(3, 3),
                            neworder(4, 4), neworder(1, 3), neworder(2, 3)};
  test::number(b);
  HorticulturePartitioner h(Options{.attribute = &tpcc_warehouse});
  Partitioning out;
  h.partition(b, 2, out);
  EXPECT_EQ(h.design()->mapping, Mapping::kHash);
  // Warehouses 2, 4 -> partition 0; 1, 3 -> 1. Transaction 5 (three records
  // of warehouse 2, one of 3) runs at 0. Horticulture gives no residual
  // (TSKD §6.1); TSKD's extraction then finds that 5 writes stock (3, 6), as
  // 2 and 4 at partition 1 do: all three are residual.
  EXPECT_FALSE(h.gives_residual());
  EXPECT_EQ(out.parts, (std::vector<V>{{1, 3, 5}, {0, 2, 4}}));
  EXPECT_TRUE(out.residual.empty());
  extract_residual(b, out);
  EXPECT_EQ(out.parts, (std::vector<V>{{1, 3}, {0}}));
  EXPECT_EQ(out.residual, (V{2, 4, 5}));
  // Ranges ({1, 2}, {3, 4}) would keep both of these on one partition each,
  // but the design is static: by hash both run at partition 1 (majority 1, 3).
  std::vector<TxnDesc> next = {neworder(1, 2), neworder(3, 4)};
  test::number(next);
  EXPECT_LT(h.evaluate(next, 2, Mapping::kRange).cost, h.evaluate(next, 2, Mapping::kHash).cost);
  h.partition(next, 2, out);
  EXPECT_EQ(h.design()->mapping, Mapping::kHash);
  EXPECT_EQ(out.parts, (std::vector<V>{{}, {0, 1}}));
}

}  // namespace
}  // namespace ccb::horticulture
