// The loader (clause 4.3.3.1): spec cardinalities, value ranges, the
// last-name index, independence from the number of loader threads, and the
// consistency conditions right after load.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "engine/cc/nowait/nowait.h"
#include "tests/tpcc/tpcc_test_util.h"

namespace ccb {
namespace {

using namespace tpcc;
using namespace tpcc::testing;
using CC = NoWait;

class TpccLoaderTest : public ::testing::Test {
 protected:
  static constexpr uint32_t kWarehouses = 2;
  static void SetUpTestSuite() {
    workload_ = new TpccWorkload<CC>(small_options(kWarehouses));
    workload_->load(2);
  }
  static void TearDownTestSuite() {
    delete workload_;
    workload_ = nullptr;
  }
  static TpccDatabase<CC>& db() { return workload_->db(); }
  static inline TpccWorkload<CC>* workload_ = nullptr;
};

TEST_F(TpccLoaderTest, TablesHaveSpecCardinalities) {
  auto& d = db();
  for (uint32_t i = 1; i <= kItems; ++i) ASSERT_NE(d.item.lookup(item_key(i)), nullptr) << i;
  EXPECT_EQ(d.item.lookup(item_key(kUnusedItemId)), nullptr);
  EXPECT_EQ(d.item.lookup(item_key(0)), nullptr);
  for (uint32_t w = 1; w <= kWarehouses; ++w) {
    ASSERT_NE(d.warehouse.lookup(warehouse_key(w)), nullptr);
    for (uint32_t i = 1; i <= kItems; ++i) ASSERT_NE(d.stock.lookup(stock_key(w, i)), nullptr);
    EXPECT_EQ(d.stock.lookup(stock_key(w, kUnusedItemId)), nullptr);
    EXPECT_EQ(d.district.lookup(district_key(w, kDistrictsPerWarehouse + 1)), nullptr);
    for (uint32_t dist = 1; dist <= kDistrictsPerWarehouse; ++dist) {
      const auto* dr = row<DistrictRow>(d.district, district_key(w, dist));
      ASSERT_NE(dr, nullptr);
      EXPECT_EQ(dr->next_o_id, 3001u);
      EXPECT_EQ(row<DeliveryCursorRow>(d.delivery_cursor, district_key(w, dist))->next_o_id, 2101u);
      for (uint32_t c = 1; c <= kCustomersPerDistrict; ++c) {
        ASSERT_NE(d.customer.lookup(customer_key(w, dist, c)), nullptr);
        ASSERT_NE(d.history.lookup(loaded_history_key(w, dist, c)), nullptr);
        ASSERT_NE(d.customer_last_order.lookup(customer_key(w, dist, c)), nullptr);
      }
      EXPECT_EQ(d.customer.lookup(customer_key(w, dist, kCustomersPerDistrict + 1)), nullptr);
      uint32_t new_orders = 0;
      uint64_t lines = 0;
      for (uint32_t o = 1; o <= kOrdersPerDistrict; ++o) {
        const auto* od = row<OrderRow>(d.order, order_key(w, dist, o));
        ASSERT_NE(od, nullptr);
        ASSERT_GE(od->ol_cnt, kMinOrderLines);
        ASSERT_LE(od->ol_cnt, kMaxOrderLines);
        for (uint32_t ol = 1; ol <= od->ol_cnt; ++ol)
          ASSERT_NE(d.order_line.lookup(order_line_key(w, dist, o, ol)), nullptr);
        ASSERT_EQ(d.order_line.lookup(order_line_key(w, dist, o, od->ol_cnt + 1u)), nullptr);
        lines += od->ol_cnt;
        new_orders += d.new_order.lookup(order_key(w, dist, o)) != nullptr;
        ASSERT_EQ(d.new_order.lookup(order_key(w, dist, o)) != nullptr, o >= kFirstUndeliveredOrder) << o;
      }
      EXPECT_EQ(d.order.lookup(order_key(w, dist, kOrdersPerDistrict + 1)), nullptr);
      EXPECT_EQ(new_orders, 900u);
      EXPECT_GT(lines, 3000u * 9);  // 10 on average
      EXPECT_LT(lines, 3000u * 11);
    }
  }
}

TEST_F(TpccLoaderTest, RowsFollowTheSpecDistributions) {
  auto& d = db();
  const uint32_t w = 2, dist = 7;
  uint32_t bad_credit = 0;
  std::vector<uint32_t> orders_of(kCustomersPerDistrict + 1, 0);
  for (uint32_t c = 1; c <= kCustomersPerDistrict; ++c) {
    const auto* cr = row<CustomerRow>(d.customer, customer_key(w, dist, c));
    if (c <= kLastNames) {
      char expected[16];
      last_name(c - 1, expected);
      ASSERT_EQ(text(cr->last), text(expected)) << c;
    }
    ASSERT_GE(text(cr->first).size(), 8u);
    ASSERT_GE(text(cr->data).size(), 300u);
    ASSERT_EQ(cr->balance, -1000);
    ASSERT_EQ(cr->ytd_payment, 1000);
    ASSERT_EQ(cr->payment_cnt, 1u);
    ASSERT_LE(cr->discount, 5000);
    bad_credit += text(cr->credit) == "BC";
  }
  EXPECT_GT(bad_credit, 200u);  // 10% of 3000
  EXPECT_LT(bad_credit, 400u);
  for (uint32_t o = 1; o <= kOrdersPerDistrict; ++o) {
    const auto* od = row<OrderRow>(d.order, order_key(w, dist, o));
    ++orders_of[od->c_id];
    const bool delivered = o < kFirstUndeliveredOrder;
    ASSERT_EQ(od->carrier_id != 0, delivered);
    ASSERT_LE(od->carrier_id, 10);
    const auto* line = row<OrderLineRow>(d.order_line, order_line_key(w, dist, o, 1));
    ASSERT_EQ(line->delivery_d != 0, delivered);
    ASSERT_EQ(line->amount == 0, delivered);
    ASSERT_EQ(line->quantity, 5);
    ASSERT_EQ(line->supply_w_id, w);
  }
  // O_C_ID is a permutation: every customer has exactly one order, which
  // its last-order row names.
  for (uint32_t c = 1; c <= kCustomersPerDistrict; ++c) {
    ASSERT_EQ(orders_of[c], 1u) << c;
    const uint32_t o = row<CustomerLastOrderRow>(d.customer_last_order, customer_key(w, dist, c))->o_id;
    ASSERT_EQ(row<OrderRow>(d.order, order_key(w, dist, o))->c_id, c);
  }
  uint32_t original = 0;
  for (uint32_t i = 1; i <= kItems; ++i) {
    const auto* it = row<ItemRow>(d.item, item_key(i));
    ASSERT_GE(it->price, 100);
    ASSERT_LE(it->price, 10000);
    original += text(it->data).find("ORIGINAL") != std::string_view::npos;
    const auto* s = row<StockRow>(d.stock, stock_key(w, i));
    ASSERT_GE(s->quantity, 10);
    ASSERT_LE(s->quantity, 100);
    ASSERT_EQ(text(s->dist[9]).size(), 24u);
  }
  EXPECT_GT(original, 9000u);
  EXPECT_LT(original, 11000u);
}

TEST_F(TpccLoaderTest, LastNameIndexListsTheDistrictsNamesakesByFirstName) {
  auto& d = db();
  const uint32_t w = 1, dist = 4;
  size_t indexed = 0;
  for (uint32_t n = 0; n < kLastNames; ++n) {
    char name[16];
    last_name(n, name);
    const auto ids = d.names.find(w, dist, n);
    ASSERT_FALSE(ids.empty()) << "customers 1..1000 take every name";
    indexed += ids.size();
    for (size_t i = 0; i < ids.size(); ++i) {
      const auto* c = row<CustomerRow>(d.customer, customer_key(w, dist, ids[i]));
      ASSERT_EQ(text(c->last), text(name));
      if (i > 0) {
        const auto* prev = row<CustomerRow>(d.customer, customer_key(w, dist, ids[i - 1]));
        ASSERT_LE(text(prev->first), text(c->first));
      }
    }
    ASSERT_EQ(d.names.middle(w, dist, n), ids[(ids.size() + 1) / 2 - 1]);
  }
  EXPECT_EQ(indexed, kCustomersPerDistrict);
}

TEST_F(TpccLoaderTest, TablesResolveByGlobalKeyTableId) {
  for (uint32_t id = kWarehouseTable; id <= kDeliveryCursorTable; ++id) {
    Table<CC>* t = workload_->table_by_id(id);
    ASSERT_NE(t, nullptr) << id;
    EXPECT_EQ(t->id(), id);
  }
  EXPECT_EQ(workload_->table_by_id(0), nullptr);
  EXPECT_EQ(workload_->table_by_id(kDeliveryCursorTable + 1), nullptr);
}

TEST_F(TpccLoaderTest, OnlyOrderStatusAndStockLevelAreReadOnly) {
  TpccRequest r;
  for (uint32_t t = 0; t < kTxnTypes; ++t) {
    r.type = t;
    EXPECT_EQ(workload_->read_only(r), t == kOrderStatus || t == kStockLevel) << kTxnTypeNames[t];
  }
}

TEST_F(TpccLoaderTest, ConsistencyConditionsHoldAfterLoad) {
  expect_all_hold(workload_->check_invariants({TpccWorkload<CC>::ThreadState{}}));
}

TEST(TpccLoaderDeterminismTest, DatabaseDoesNotDependOnLoaderThreads) {
  TpccWorkload<CC> one(small_options(2)), three(small_options(2));
  one.load(1);
  three.load(3);
  auto same = [](auto* a, auto* b) { return std::memcmp(a, b, sizeof *a) == 0; };
  // Equal but for the load date (wall-clock seconds of each load).
  auto same_customer = [](CustomerRow a, CustomerRow b) {
    a.since = b.since = 0;
    return std::memcmp(&a, &b, sizeof a) == 0;
  };
  auto same_line = [](OrderLineRow a, OrderLineRow b) {
    a.delivery_d = a.delivery_d != 0;
    b.delivery_d = b.delivery_d != 0;
    return std::memcmp(&a, &b, sizeof a) == 0;
  };
  for (uint32_t w = 1; w <= 2; ++w) {
    for (uint32_t i = 1; i <= kItems; i += 997) {
      ASSERT_TRUE(
          same(row<StockRow>(one.db().stock, stock_key(w, i)), row<StockRow>(three.db().stock, stock_key(w, i))));
      ASSERT_TRUE(same(row<ItemRow>(one.db().item, item_key(i)), row<ItemRow>(three.db().item, item_key(i))));
    }
    for (uint32_t c = 1; c <= kCustomersPerDistrict; c += 101) {
      ASSERT_TRUE(same_customer(*row<CustomerRow>(one.db().customer, customer_key(w, 10, c)),
                                *row<CustomerRow>(three.db().customer, customer_key(w, 10, c))));
      ASSERT_TRUE(same_line(*row<OrderLineRow>(one.db().order_line, order_line_key(w, 10, c, 5)),
                            *row<OrderLineRow>(three.db().order_line, order_line_key(w, 10, c, 5))));
    }
  }
}

}  // namespace
}  // namespace ccb
