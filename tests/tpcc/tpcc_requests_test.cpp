// Request generation (clauses 2.4.1 - 2.8.1, the mixes, the remote rates of
// spec and --cross_pct mode) and the predicted access sets.
#include "workloads/tpcc/tpcc_requests.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <set>

namespace ccb {
namespace {

using namespace tpcc;

constexpr int kSamples = 200000;

TpccGenerator make_generator(const TpccOptions& o) {
  return TpccGenerator(o);
}

TpccOptions options(uint32_t warehouses, int32_t cross_pct = -1) {
  TpccOptions o;
  o.warehouses = warehouses;
  o.cross_pct = cross_pct;
  return o;
}

// Fraction of kSamples requests (for `thread`) satisfying pred.
template <class Pred>
double fraction(const TpccGenerator& g, Pred pred, uint32_t thread = 0) {
  Random rng(42);
  TpccRequest r;
  int hits = 0;
  for (int i = 0; i < kSamples; ++i) {
    g.generate(rng, thread, r);
    hits += pred(r);
  }
  return static_cast<double>(hits) / kSamples;
}

TEST(TpccRequestsTest, MixesFollowTheirPercentages) {
  TpccOptions o = options(2);
  const auto standard = make_generator(o);
  const std::array<double, kTxnTypes> expected = {0.45, 0.43, 0.04, 0.04, 0.04};
  for (uint32_t t = 0; t < kTxnTypes; ++t)
    EXPECT_NEAR(fraction(standard, [t](const TpccRequest& r) { return r.type == t; }), expected[t], 0.005)
        << kTxnTypeNames[t];
  o.mix_pct = {50, 50, 0, 0, 0};
  const auto np = make_generator(o);
  EXPECT_NEAR(fraction(np, [](const TpccRequest& r) { return r.type == kNewOrder; }), 0.5, 0.005);
  EXPECT_EQ(fraction(np, [](const TpccRequest& r) { return r.type > kPayment; }), 0.0);
}

TEST(TpccRequestsTest, HomeWarehouseIsThreadModWarehouses) {
  const auto g = make_generator(options(3));
  Random rng(1);
  TpccRequest r;
  for (uint32_t thread = 0; thread < 7; ++thread)
    for (int i = 0; i < 1000; ++i) {
      g.generate(rng, thread, r);
      ASSERT_EQ(r.w_id, thread % 3 + 1);
    }
}

// --home_warehouse=uniform: every request's home drawn over all warehouses,
// whichever worker issues it (about 1/W of them each).
TEST(TpccRequestsTest, UniformHomesAreDrawnOverAllWarehouses) {
  TpccOptions o = options(30);
  o.home_warehouse = "uniform";
  const auto g = make_generator(o);
  std::array<int, 31> count{};
  Random rng(5);
  TpccRequest r;
  constexpr int kPerThread = 6000;
  for (uint32_t thread = 0; thread < 15; ++thread)
    for (int i = 0; i < kPerThread; ++i) {
      g.generate(rng, thread, r);
      ASSERT_GE(r.w_id, 1);
      ASSERT_LE(r.w_id, 30);
      ++count[r.w_id];
    }
  for (uint32_t w = 1; w <= 30; ++w) EXPECT_NEAR(count[w], 15 * kPerThread / 30, 15 * kPerThread / 30 / 10) << w;
}

TEST(TpccRequestsTest, NewOrderInputsAreInTheirSpecRanges) {
  const auto g = make_generator(options(4));
  Random rng(2);
  TpccRequest r;
  int rollbacks = 0;
  for (int i = 0; i < kSamples; ++i) {
    g.new_order(rng, 2, r);
    ASSERT_EQ(r.type, kNewOrder);
    ASSERT_GE(r.d_id, 1);
    ASSERT_LE(r.d_id, 10);
    ASSERT_GE(r.c_id, 1u);
    ASSERT_LE(r.c_id, 3000u);
    ASSERT_GE(r.ol_cnt, 5);
    ASSERT_LE(r.ol_cnt, 15);
    std::set<uint32_t> ids;
    for (uint32_t l = 0; l < r.ol_cnt; ++l) {
      const TpccOrderItem& it = r.items[l];
      ASSERT_TRUE((it.i_id >= 1 && it.i_id <= kItems) || (it.i_id == kUnusedItemId && l + 1 == r.ol_cnt));
      ASSERT_GE(it.quantity, 1);
      ASSERT_LE(it.quantity, 10);
      ASSERT_GE(it.supply_w_id, 1);
      ASSERT_LE(it.supply_w_id, 4);
      ids.insert(it.i_id);
    }
    ASSERT_EQ(ids.size(), r.ol_cnt) << "items of an order are distinct";
    rollbacks += r.rolls_back();
  }
  EXPECT_NEAR(static_cast<double>(rollbacks) / kSamples, 0.01, 0.002);
}

TEST(TpccRequestsTest, SpecModeRemoteRates) {
  const auto g = make_generator(options(4));
  // 1% of order lines supplied by another warehouse.
  Random rng(3);
  TpccRequest r;
  int lines = 0, remote_lines = 0;
  for (int i = 0; i < kSamples; ++i) {
    g.new_order(rng, 1, r);
    for (uint32_t l = 0; l < r.ol_cnt; ++l) remote_lines += r.items[l].supply_w_id != 1;
    lines += r.ol_cnt;
  }
  EXPECT_NEAR(static_cast<double>(remote_lines) / lines, 0.01, 0.001);
  // 15% of payments for another warehouse's customer.
  EXPECT_NEAR(fraction(g, [](const TpccRequest& q) { return q.type == kPayment && q.c_w_id != q.w_id; }), 0.43 * 0.15,
              0.005);
  // With one warehouse nothing is remote.
  const auto single = make_generator(options(1));
  EXPECT_EQ(fraction(single,
                     [](const TpccRequest& q) {
                       return (q.type == kPayment && q.c_w_id != q.w_id) || (q.type == kNewOrder && !q.all_local());
                     }),
            0.0);
}

TEST(TpccRequestsTest, CrossPctMakesThatShareOfNewOrdersAndPaymentsRemote) {
  const auto g = make_generator(options(4, 25));
  Random rng(4);
  TpccRequest r;
  int remote_orders = 0;
  for (int i = 0; i < kSamples; ++i) {
    g.new_order(rng, 3, r);
    int remote_lines = 0;
    for (uint32_t l = 0; l < r.ol_cnt; ++l) remote_lines += r.items[l].supply_w_id != 3;
    ASSERT_LE(remote_lines, 1);
    remote_orders += remote_lines;
  }
  EXPECT_NEAR(static_cast<double>(remote_orders) / kSamples, 0.25, 0.005);
  int remote_payments = 0;
  for (int i = 0; i < kSamples; ++i) {
    g.payment(rng, 3, r);
    ASSERT_GE(r.c_w_id, 1);
    ASSERT_LE(r.c_w_id, 4);
    remote_payments += r.c_w_id != 3;
  }
  EXPECT_NEAR(static_cast<double>(remote_payments) / kSamples, 0.25, 0.005);
}

TEST(TpccRequestsTest, CustomerSelectionByLastNameShare) {
  const auto g = make_generator(options(1));
  Random rng(5);
  TpccRequest r;
  int by_name = 0;
  for (int i = 0; i < kSamples; ++i) {
    if (i % 2)
      g.payment(rng, 1, r);
    else
      g.order_status(rng, 1, r);
    if (r.by_last_name) {
      ++by_name;
      ASSERT_LT(r.c_last, kLastNames);
    } else {
      ASSERT_GE(r.c_id, 1u);
      ASSERT_LE(r.c_id, kCustomersPerDistrict);
    }
  }
  EXPECT_NEAR(static_cast<double>(by_name) / kSamples, 0.60, 0.005);
}

// Field-wise equality, dates excepted (wall-clock seconds).
bool same_inputs(const TpccRequest& a, const TpccRequest& b) {
  bool same = a.type == b.type && a.w_id == b.w_id && a.d_id == b.d_id && a.c_w_id == b.c_w_id &&
              a.c_d_id == b.c_d_id && a.by_last_name == b.by_last_name && a.c_id == b.c_id && a.c_last == b.c_last &&
              a.ol_cnt == b.ol_cnt && a.carrier_id == b.carrier_id && a.threshold == b.threshold &&
              a.h_amount == b.h_amount;
  for (uint32_t i = 0; i < kMaxOrderLines; ++i)
    same = same && a.items[i].i_id == b.items[i].i_id && a.items[i].supply_w_id == b.items[i].supply_w_id &&
           a.items[i].quantity == b.items[i].quantity;
  return same;
}

TEST(TpccRequestsTest, SameSeedSameRequests) {
  const auto g = make_generator(options(2));
  Random a(9), b(9);
  TpccRequest ra, rb;
  for (int i = 0; i < 1000; ++i) {
    g.generate(a, 1, ra);
    g.generate(b, 1, rb);
    ASSERT_TRUE(same_inputs(ra, rb)) << i;
  }
}

TEST(TpccRequestsTest, DescribeNamesWhatIsKnownBeforeExecution) {
  TpccRequest r;
  r.type = kNewOrder;
  r.w_id = r.c_w_id = 1;
  r.d_id = r.c_d_id = 2;
  r.c_id = 3;
  r.ol_cnt = 2;
  r.items[0] = {10, 1, 1};
  r.items[1] = {kUnusedItemId, 1, 1};
  TxnDesc d = TpccGenerator::describe(r);
  EXPECT_EQ(std::set<GlobalKey>(d.read_set.begin(), d.read_set.end()),
            (std::set<GlobalKey>{make_global_key(kWarehouseTable, warehouse_key(1)),
                                 make_global_key(kCustomerTable, customer_key(1, 2, 3)),
                                 make_global_key(kItemTable, item_key(10))}));
  EXPECT_EQ(std::set<GlobalKey>(d.write_set.begin(), d.write_set.end()),
            (std::set<GlobalKey>{make_global_key(kDistrictTable, district_key(1, 2)),
                                 make_global_key(kCustomerLastOrderTable, customer_key(1, 2, 3)),
                                 make_global_key(kStockTable, stock_key(1, 10))}));

  r = TpccRequest{};
  r.type = kPayment;
  r.w_id = 1;
  r.d_id = 4;
  r.c_w_id = 2;
  r.c_d_id = 5;
  r.c_id = 6;
  d = TpccGenerator::describe(r);
  EXPECT_TRUE(d.read_set.empty());
  EXPECT_EQ(std::set<GlobalKey>(d.write_set.begin(), d.write_set.end()),
            (std::set<GlobalKey>{make_global_key(kWarehouseTable, warehouse_key(1)),
                                 make_global_key(kDistrictTable, district_key(1, 4)),
                                 make_global_key(kCustomerTable, customer_key(2, 5, 6))}));
  EXPECT_TRUE(d.partition_keys.empty());
  r.by_last_name = true;  // the customer is unknown before the index lookup...
  d = TpccGenerator::describe(r);
  EXPECT_EQ(d.write_set.size(), 2u);
  // ...but its district, hence its warehouse's partition, is known (PartCC
  // locks it up front, as DBx1000's HSTORE does).
  EXPECT_EQ(d.partition_keys, (std::vector<GlobalKey>{make_global_key(kCustomerTable, customer_key(2, 5, 0))}));

  r = TpccRequest{};
  r.type = kOrderStatus;
  r.w_id = 4;
  r.d_id = 3;
  r.by_last_name = true;
  d = TpccGenerator::describe(r);
  EXPECT_TRUE(d.read_set.empty());
  EXPECT_EQ(d.partition_keys, (std::vector<GlobalKey>{make_global_key(kCustomerTable, customer_key(4, 3, 0))}));

  r = TpccRequest{};
  r.type = kDelivery;
  r.w_id = 3;
  d = TpccGenerator::describe(r);
  EXPECT_EQ(d.write_set.size(), kDistrictsPerWarehouse);
  EXPECT_EQ(d.write_set.front(), make_global_key(kDeliveryCursorTable, district_key(3, 1)));

  r = TpccRequest{};
  r.type = kStockLevel;
  r.w_id = 3;
  r.d_id = 7;
  d = TpccGenerator::describe(r);
  EXPECT_EQ(d.read_set, (std::vector<GlobalKey>{make_global_key(kDistrictTable, district_key(3, 7))}));
  EXPECT_TRUE(d.write_set.empty());
}

}  // namespace
}  // namespace ccb
